import Foundation
import ConstantColor
import ConstantColorIO

/// Calibration of a camera + flash from spectral data (SPEC 3, `calibrate spectral`).
///
/// 1. The flash's camera-RGB white is exact: w = ∑ E_flash(λ) s(λ) Δλ (a perfect white under the flash).
/// 2. For every training reflectance ρᵢ: flash-white-balanced camera RGB bᵢ = (∑ ρᵢ E_flash s Δλ) / w and
///    target tᵢ = XYZ of ρᵢ under D65 (CIE 1931 2°, perfect white Y = 1).
/// 3. The 3×3 matrix M minimizes ∑ ‖M bᵢ − tᵢ‖² subject to M (1, 1, 1)ᵀ = XYZ of the D65 white
///    (white-point preserving least squares, Finlayson & Drew 1997, "Constrained least-squares
///    regression in color spaces", J. Electronic Imaging 6(4) 484–493), solved row by row with a
///    Lagrange multiplier: m = m₀ + (BᵀB)⁻¹1 (w_r − 1ᵀm₀) / (1ᵀ(BᵀB)⁻¹1), m₀ the unconstrained solution.
public struct SpectralCalibration: Sendable {
    /// Camera RGB of a perfect white under the flash (file scale; profiles normalize green to 1).
    public let flashWhiteCameraRGB: SIMD3<Double>
    /// Flash-white-balanced camera RGB → XYZ (D65 white, Y = 1).
    public let matrixToXYZD65: Matrix3
    /// The XYZ of the D65 white the matrix preserves.
    public let whiteXYZD65: SIMD3<Double>
    /// Fit errors over the training set, CIEDE2000.
    public let trainingMeanDeltaE2000: Double, trainingMaxDeltaE2000: Double
    /// Errors over the 24 ColorChecker patches (BabelColor average), CIEDE2000.
    public let colorCheckerMeanDeltaE2000: Double, colorCheckerMaxDeltaE2000: Double
    /// Number of training reflectances.
    public let trainingCount: Int
    /// The matrix's error by colour, learned from the per-training-sample ΔE00 chroma (for the
    /// confidence; see `ColorimetricUncertainty`).
    public let colorimetricUncertainty: ColorimetricUncertainty

    /// The share of each camera channel's response to `flash` (Σ sensitivity × power over the working
    /// grid) that lies outside `measured`, the wavelengths the flash's table covers: there its end
    /// values are repeated (CIE 015:2004 §7.2.2.1, `SpectralExtrapolation.constant`), an invented light.
    /// A YAG flash cut to 450–620 nm made the flash white's blue 15 % too high, without a word.
    public static func responseShareOutside(_ measured: ClosedRange<Double>, flash: SpectralDistribution,
                                            camera: CameraSensitivity) -> SIMD3<Double> {
        var all = SIMD3<Double>(), outside = SIMD3<Double>()
        for (i, nm) in WorkingGrid.wavelengthsNm.enumerated() {
            let response = SIMD3(camera.red.values[i], camera.green.values[i], camera.blue.values[i]) * flash.values[i]
            all += response
            if !measured.contains(nm) { outside += response }
        }
        return SIMD3((0..<3).map { all[$0] > 0 ? outside[$0] / all[$0] : 0 })
    }

    /// The largest share of a channel's response `responseShareOutside` may find before `calibrate
    /// spectral` refuses the flash table: 1 %, about 0.5 ΔE00 of white balance in that channel.
    public static let largestExtrapolatedShare = 0.01

    /// Fits the calibration.
    public init(camera: CameraSensitivity, flash: SpectralDistribution, training: SpectralSet,
                library: SpectralLibrary) throws(SpectralCalibrationError) {
        let w = camera.response(to: flash)
        guard w.x > 0, w.y > 0, w.z > 0 else { throw .noFlashResponse(camera: camera.name, flash: flash.name) }
        flashWhiteCameraRGB = w
        let white = library.whiteXYZD65
        whiteXYZD65 = white
        func balanced(_ r: SpectralDistribution) -> SIMD3<Double> { camera.response(to: r * flash) / w }
        let b = training.members.map(balanced)
        let t = training.members.map(library.xyzD65(of:))
        guard b.count >= 3 else { throw .tooFewReflectances(b.count) }
        guard let matrix = WhitePreservingLeastSquares.fit(balanced: b, targets: t, white: white) else { throw .singular }
        matrixToXYZD65 = matrix
        trainingCount = b.count
        func errors(_ set: [SpectralDistribution]) -> [Double] {
            set.map { r in
                ColorScience.ciede2000(ColorScience.lab(fromXYZ: library.xyzD65(of: r), white: white),
                                       ColorScience.lab(fromXYZ: matrix * balanced(r), white: white))
            }
        }
        let et = errors(training.members), ec = errors(library.colorChecker.members)
        // ΔE00 chroma per training sample: the rendering scaled to the true Y (see ColorimetricUncertainty).
        let chroma = zip(b, t).map { bi, ti in
            ColorScience.chromaDeltaE2000(measuredXYZ: matrix * bi, referenceLab: ColorScience.lab(fromXYZ: ti, white: white))
        }
        colorimetricUncertainty = ColorimetricUncertainty(balanced: b, chromaDeltaE2000: chroma)
        trainingMeanDeltaE2000 = et.reduce(0, +) / Double(et.count)
        trainingMaxDeltaE2000 = et.max() ?? 0
        colorCheckerMeanDeltaE2000 = ec.reduce(0, +) / Double(ec.count)
        colorCheckerMaxDeltaE2000 = ec.max() ?? 0
    }

    /// The fit statistics for a profile's `metadata`.
    public func metadata(trainingName: String, source: String) -> [String: JSONValue] {
        ["method": .string("calibrate spectral: white-preserving least squares (Finlayson & Drew 1997) over training reflectances under the flash, targets XYZ under D65, CIE 1931 2°"),
         "trainingSet": .string(trainingName), "trainingSource": .string(source),
         "trainingCount": .number(Double(trainingCount)),
         "trainingMeanDeltaE2000": .number(trainingMeanDeltaE2000), "trainingMaxDeltaE2000": .number(trainingMaxDeltaE2000),
         "colorCheckerMeanDeltaE2000": .number(colorCheckerMeanDeltaE2000),
         "colorCheckerMaxDeltaE2000": .number(colorCheckerMaxDeltaE2000),
         "colorCheckerSet": .string("BabelColor average (Pascale 2006)")]
    }
}

/// Why a spectral calibration failed.
public enum SpectralCalibrationError: Error, Equatable, CustomStringConvertible {
    /// A channel does not respond to the flash at all.
    case noFlashResponse(camera: String, flash: String)
    /// Fewer than three reflectances.
    case tooFewReflectances(Int)
    /// The training colours do not span three dimensions.
    case singular

    public var description: String {
        switch self {
        case .noFlashResponse(let c, let f): return "camera '\(c)' has a channel with no response to flash '\(f)'"
        case .tooFewReflectances(let n): return "\(n) training reflectances; at least 3 are needed"
        case .singular: return "the training reflectances do not span three camera dimensions"
        }
    }
}
