import ConstantColor
import ConstantColorIO
import Foundation

/// `calibrate chart` (SPEC 3) as library code: from a dark-room flash capture of a chart (or a
/// flash/ambient pair of it), the flash's camera-RGB white, the white-preserving 3×3 matrix from
/// flash-white-balanced camera RGB to XYZ (D65, white Y = 1) and the noise model.
///
/// Steps, each its own type:
/// 1. `PatchSampling`: per-patch medians of the black-subtracted (ambient-subtracted) signal over
///    the patch's square, clipped pixels (either frame) excluded; `PatchUniformity` refuses a square
///    that does not hold one surface.
/// 2. `FlashWhiteEstimate`: the white from the neutral patches (median of RGB / Y_ref).
/// 3. `WhitePreservingLeastSquares`: the start, least squares in XYZ with M (1,1,1)ᵀ = D65 white,
///    alternated with `FlashFalloffField` (the flash lights the chart's corners less than its center).
/// 4. `DeltaE2000MatrixRefinement`: minimizes ∑ ΔE00² jointly with the exposure scale and the field.
/// 5. `PhotonTransfer`: per-patch, per-channel variance against mean on the flash capture → gain
///    and read noise, referred to ISO 100. With a `DarkFrame` the read variance is the dark frame's
///    (referred to the capture's ISO) and only the slope (1 / gain) is fitted: a flash-lit chart's
///    darkest patch is too bright for its intercept to pin the read noise down. Squares whose
///    4 × 4-block variance stands out relative to their pixel variance (an ambient shadow's
///    penumbra, a highlight) are left out (`PhotonTransfer.fitLeavingOutStructure`, `structuredPatches`).
public struct ChartCalibration: Sendable {
    /// The flash's camera-RGB white (capture scale, black-subtracted DN of a perfect white).
    public let flashWhiteCameraRGB: SIMD3<Double>
    /// Balanced camera RGB → XYZ (D65, Y = 1), after the CIEDE2000 refinement.
    public let matrixToXYZD65: Matrix3
    /// The least-squares start (for the record).
    public let leastSquaresMatrix: Matrix3
    /// The flash's fall-off across the frame, fitted jointly (uniform when not fitted).
    public let flashFalloff: FlashFalloffField
    /// The exposure scale fitted jointly with the matrix (1 = the neutral patches' scale).
    public let exposureScale: Double
    /// Per-patch CIEDE2000 of the refined fit, in chart order.
    public let deltaE2000: [Double]
    /// Per-patch CIEDE2000 of the least-squares start.
    public let leastSquaresDeltaE2000: [Double]
    /// Per-patch fitted L*a*b* (D65).
    public let fittedLab: [SIMD3<Double>]
    /// The patches' black-subtracted camera RGB medians.
    public let patchCameraRGB: [SIMD3<Double>]
    /// Per patch, the fraction of its sampled pixels that are clipped (up to half is accepted): the
    /// median of the others is biased low, since it is the brightest that are missing.
    public let clippedFractions: [Double]
    /// The photon transfer fit at the capture's ISO; nil when the patches give no line (noise-free
    /// or single-level data).
    public let photonTransfer: PhotonTransfer.Fit?
    /// The noise model referred to ISO 100 (nil with `photonTransfer`).
    public let noise: NoiseModel?
    /// The patches' noise variance falls as their signal rises (the unweighted least-squares slope
    /// of variance on mean over the photon transfer line's points, or every point where no line was
    /// fitted, is negative): gamma-encoded data, whose curve compresses the bright codes, not light a
    /// sensor counted (shot noise grows with the signal).
    public let varianceFallsWithSignal: Bool
    /// Indices of the patches whose square gave a photon transfer point that was left out as
    /// structure, not noise (`PhotonTransfer.structured`), of the line and of the correlation.
    public let structuredPatches: [Int]
    /// The noise's spatial correlation measured on the patches (`PhotonTransfer.correlation`; also in
    /// `noise`), nil when the patches are too small for 4 × 4 block differences.
    public let noiseCorrelation: NoiseCorrelation?
    /// The number of 4 × 4 block differences it comes from.
    public let noiseCorrelationDifferences: Int
    /// The dark frame that gave the read noise, if one was given.
    public let darkFrame: DarkFrame?
    /// The chart.
    public let chart: ChartDescription

    /// Mean CIEDE2000 over the patches.
    public var meanDeltaE2000: Double { deltaE2000.reduce(0, +) / Double(deltaE2000.count) }
    /// Max CIEDE2000 over the patches.
    public var maxDeltaE2000: Double { deltaE2000.max() ?? 0 }
    /// The matrix's error by colour, learned from the patches' ΔE00 chroma under the refined matrix
    /// (`ColorScience.chromaDeltaE2000`) over their flash-white-balanced camera chromaticity
    /// (`ColorimetricUncertainty`). In-sample residuals of a fit to these very patches: optimistic near
    /// them; away from them the largest error holds.
    public var colorimetricUncertainty: ColorimetricUncertainty {
        let balanced = patchCameraRGB.map { $0 / flashWhiteCameraRGB }
        let chroma = chart.patches.indices.map {
            ColorScience.chromaDeltaE2000(measuredXYZ: matrixToXYZD65 * balanced[$0], referenceLab: chart.patches[$0].labD65)
        }
        return ColorimetricUncertainty(balanced: balanced, chromaDeltaE2000: chroma)
    }

    /// Fits the calibration.
    ///
    /// - Parameters:
    ///   - capture: the flash capture in DN (3 planes).
    ///   - ambient: an ambient-only capture of the same, unmoved chart in DN, when the room is not
    ///     dark, with `ambientToCaptureScale` = (capture t·ISO/N²) / (ambient t·ISO/N²).
    ///   - blackLevel, whiteLevel: the sensor's levels, DN; samples ≥ black + 98 % of the range are clipped.
    ///   - iso: the capture's ISO (the noise model is referred from it to ISO 100).
    ///   - fitFlashFalloff: fit the flash's irradiance field across the chart (`FlashFalloffField`)
    ///     with the matrix; off assumes an evenly lit chart.
    ///   - darkFrame: a measured dark frame; its read variance (scaled to `iso` as `NoiseModel`
    ///     does) is the photon transfer intercept, and only the slope is fitted.
    ///   - file: the capture's path, for messages; `ambientFile`, the ambient frame's.
    public init(capture: PlanarImage, ambient: PlanarImage? = nil, ambientToCaptureScale: Double = 1,
                blackLevel: Double, whiteLevel: Double, iso: Double, chart: ChartDescription,
                fitFlashFalloff: Bool = true, darkFrame: DarkFrame? = nil, file: String, ambientFile: String? = nil) throws {
        guard capture.channelCount == 3 else { throw ChartCalibrationError.notRGB(file: file, channels: capture.channelCount) }
        if let problem = chart.chromaticCoverageProblem { throw ChartCalibrationError.chromaticCoverage(file: file, problem: problem) }
        if let a = ambient, a.width != capture.width || a.height != capture.height || a.channelCount != 3 {
            throw ChartCalibrationError.ambientMismatch(file: ambientFile ?? file, ambient: "\(a.width)x\(a.height)x\(a.channelCount)",
                                                        capture: "\(file) is \(capture.width)x\(capture.height)x3")
        }
        let n = capture.pixelCount
        let clipDN = Float(blackLevel + ExposureNormalization.clippingFraction * (whiteLevel - blackLevel))
        var clipped = [UInt8](repeating: 0, count: n)
        var signal = PlanarImage(width: capture.width, height: capture.height, channelCount: 3)
        let black = Float(blackLevel), ratio = Float(ambientToCaptureScale)
        for i in 0..<n {
            var isClipped = false
            for c in 0..<3 {
                let f = capture.samples[c * n + i]
                var s = f - black
                if f >= clipDN { isClipped = true }
                if let a = ambient {
                    let v = a.samples[c * n + i]
                    if v >= clipDN { isClipped = true }
                    s -= (v - black) * ratio
                }
                signal.samples[c * n + i] = s
            }
            clipped[i] = isClipped ? 1 : 0
        }
        let samples = try PatchSampling.sample(signal, chart: chart, clipped: clipped, file: file)
        // Every patch reflects some flash light: a median at or below the black level in a channel
        // says the black level is not these files' (already subtracted by a raw converter?).
        // With an ambient frame subtracted, its part there is said too: an ambient frame brighter than
        // the capture is not the capture's twin (another scene or light, or exposure tags that are off).
        for (i, sample) in samples.enumerated() {
            for c in 0..<3 where sample.median[c] <= 0 {
                // (The median of the ambient frame's square, mapped as its samples were subtracted: a
                // median commutes with an increasing affine map.)
                let subtracted = ambient.map { a in
                    let square = PatchSquare(center: chart.patches[i].center, halfSize: chart.patches[i].halfSize)
                    return (PatchSampling.sample(a, square: square, clipped: clipped).median[c] - blackLevel) * ambientToCaptureScale
                }
                throw ChartCalibrationError.noSignal(file: file, patch: chart.patches[i].name, channel: c,
                                                     medianDN: sample.median[c], blackLevel: blackLevel,
                                                     subtractedAmbientDN: subtracted)
            }
        }
        // Each square must hold one surface (`PatchUniformity`): the median would hide a mixture.
        for (i, p) in chart.patches.enumerated() {
            if let d = PatchUniformity.departure(signal: signal, square: PatchSquare(center: p.center, halfSize: p.halfSize),
                                                 clipped: clipped), d.isNonUniform {
                throw ChartCalibrationError.notUniform(file: file, patch: chart.patches[i].name, departure: d, ambientSubtracted: ambient != nil)
            }
        }
        let rgb = samples.map(\.median)
        clippedFractions = samples.map(\.clippedFraction)
        let referenceXYZ = chart.patches.map(\.xyzD65)
        let white = ColorScience.whiteD65XYZ
        let referenceY = referenceXYZ.map(\.y)
        let referenceLab = chart.patches.map(\.labD65)
        // White and least-squares matrix, alternating with the fall-off field fitted to the
        // remaining per-patch luminance ratios (a few rounds converge: the matrix cannot absorb a
        // position-dependent brightness).
        let basis = chart.patches.map { FlashFalloffField.basis(at: $0.center, width: capture.width, height: capture.height) }
        var field = FlashFalloffField()
        var w = SIMD3<Double>(1, 1, 1), start = Matrix3.identity
        for round in 0..<(fitFlashFalloff ? 6 : 1) {
            let corrected = rgb.indices.map { rgb[$0] / field.relativeIrradiance(basis: basis[$0]) }
            do { w = try FlashWhiteEstimate.estimate(cameraRGB: corrected, referenceY: referenceY, neutral: chart.neutralIndices) } catch {
                throw ChartCalibrationError.white(file: file, failure: error)
            }
            guard let m = WhitePreservingLeastSquares.fit(balanced: corrected.map { $0 / w }, targets: referenceXYZ, white: white) else {
                throw ChartCalibrationError.degenerate(file: file)
            }
            start = m
            guard fitFlashFalloff, round < 5 else { break }
            let logRatios = corrected.indices.map { log(max((m * (corrected[$0] / w)).y, 1e-6) / referenceY[$0]) }
            let delta = FlashFalloffField.fit(logRatios: logRatios, basis: basis)
            field.coefficients = zip(field.coefficients, delta.coefficients).map(+)
        }
        let balanced = rgb.map { $0 / w }
        let refined = DeltaE2000MatrixRefinement.refine(start: start, startField: field, fieldBasis: fitFlashFalloff ? basis : nil,
                                                        balanced: balanced, referenceLab: referenceLab, white: white)
        var points: [PhotonTransfer.Point] = []
        for (index, p) in chart.patches.enumerated() {
            let square = PatchSquare(center: p.center, halfSize: p.halfSize)
            for c in 0..<3 {
                if let point = PhotonTransfer.point(raw: capture, channel: c, square: square, blackLevel: blackLevel, clipped: clipped,
                                                    patch: index) {
                    points.append(point)
                }
            }
        }
        let ptc: PhotonTransfer.Fit?
        if let dark = darkFrame {
            let k = iso / dark.iso, read = dark.readVarianceDN2(atISO: iso)
            ptc = PhotonTransfer.fitLeavingOutStructure(points, knownReadVarianceDN2: read,
                                                       readVarianceStandardErrorDN2: dark.readVarianceStandardErrorDN2 * k * k)
            // No patch can be quieter than the dark frame's read noise: where a quarter of the patch
            // channels are, each by more than five standard errors of its variance (σ²·√(2/dof)), the
            // dark frame is not of this camera and setting, or the capture's values were scaled or
            // denoised. A capture scaled to 5 % wrote a gain of 21 e⁻/DN (the truth 0.25) without a word.
            if let fitted = ptc?.points, read > 0 {
                let quieter = fitted.filter { $0.varianceDN2 < read * (1 - 5 * (2 / Double(max(1, $0.differenceCount))).squareRoot()) }
                if !quieter.isEmpty, 4 * quieter.count >= fitted.count {
                    throw ChartCalibrationError.quieterThanDarkFrame(file: file, quieter: quieter.count, of: fitted.count,
                                                                     medianVarianceDN2: fitted.map(\.varianceDN2).sorted()[fitted.count / 2],
                                                                     readVarianceDN2: read, iso: iso)
                }
            }
        } else {
            ptc = PhotonTransfer.fitLeavingOutStructure(points)
        }
        flashWhiteCameraRGB = w
        matrixToXYZD65 = refined.matrix
        leastSquaresMatrix = start
        exposureScale = refined.exposureScale
        deltaE2000 = refined.deltaE2000
        leastSquaresDeltaE2000 = DeltaE2000MatrixRefinement.deltaE2000(
            matrix: start, factors: basis.map { 1 / field.relativeIrradiance(basis: $0) }, balanced: balanced,
            referenceLab: referenceLab, white: white)
        flashFalloff = refined.field
        fittedLab = balanced.indices.map {
            ColorScience.lab(fromXYZ: refined.matrix * (refined.exposureScale / refined.field.relativeIrradiance(basis: basis[$0]) * balanced[$0]),
                             white: white)
        }
        patchCameraRGB = rgb
        photonTransfer = ptc
        varianceFallsWithSignal = Self.leastSquaresSlope((ptc?.points ?? points).map { ($0.meanDN, $0.varianceDN2) }).map { $0 < 0 } ?? false
        // The dark frame's points referred to the capture's ISO, where the line's intercept is.
        let k2 = darkFrame.map { pow(iso / $0.iso, 2) } ?? 1
        let darkPoints = (darkFrame?.correlationPoints ?? []).map { p in
            var q = p
            q.varianceDN2 *= k2
            q.blockVariance = p.blockVariance.map { ($0.twoByTwoDN2 * k2, $0.fourByFourDN2 * k2, $0.differenceCount) }
            return q
        }
        // Over the points the line kept: a square left out of it holds structure.
        let correlation = ptc.flatMap { PhotonTransfer.correlation($0.points + darkPoints, fit: $0) }
        noise = ptc.map { fit in
            var model = fit.noiseModel(iso: iso)
            if let correlation { model.correlation = correlation.correlation }
            return model
        }
        noiseCorrelation = correlation?.correlation
        structuredPatches = Set((ptc?.excludedPoints ?? []).map(\.patch)).filter { $0 >= 0 }.sorted()
        noiseCorrelationDifferences = correlation?.blockDifferences ?? 0
        self.darkFrame = darkFrame
        self.chart = chart
    }

    /// The fit statistics for the flash profile's `metadata`: mean / max CIEDE2000, and per patch
    /// the reference and fitted L*a*b* and the CIEDE2000.
    public func flashMetadata(captureFile: String, chartFile: String) -> [String: JSONValue] {
        let perPatch: [JSONValue] = chart.patches.indices.map { i in
            .object(["name": .string(chart.patches[i].name),
                     "deltaE2000": .number(deltaE2000[i]),
                     "referenceLabD65": .array([chart.patches[i].labD65.x, chart.patches[i].labD65.y, chart.patches[i].labD65.z].map(JSONValue.number)),
                     "fittedLabD65": .array([fittedLab[i].x, fittedLab[i].y, fittedLab[i].z].map(JSONValue.number))])
        }
        return ["source": .string("constant-color calibrate chart"),
                "method": .string("flash white: median over neutral patches of camera RGB / Y_ref; matrix: white-preserving least squares in XYZ (Finlayson & Drew 1997), refined by Nelder-Mead minimizing the sum of squared CIEDE2000 (CIE 142-2001) jointly with one exposure scale and a smooth flash fall-off field exp(c_u u + c_v v + c2 rho^2 + c4 rho^4)"),
                "captureFile": .string(captureFile), "chartFile": .string(chartFile),
                "chartIlluminant": .string(chart.sourceIlluminant),
                "patchCount": .number(Double(chart.patches.count)),
                "fitMeanDeltaE2000": .number(meanDeltaE2000), "fitMaxDeltaE2000": .number(maxDeltaE2000),
                "leastSquaresMeanDeltaE2000": .number(leastSquaresDeltaE2000.reduce(0, +) / Double(leastSquaresDeltaE2000.count)),
                "exposureScale": .number(exposureScale),
                "flashFalloffField": .object(Dictionary(uniqueKeysWithValues: zip(FlashFalloffField.termNames, flashFalloff.coefficients.map(JSONValue.number)))),
                "patches": .array(perPatch)]
    }

    /// The noise fit for the camera profile's `metadata` (with `darkFile`, the dark frame's path,
    /// when one was given).
    public func cameraMetadata(captureFile: String, iso: Double, darkFile: String? = nil) -> [String: JSONValue] {
        guard let photonTransfer else { return ["source": .string("constant-color calibrate chart"), "captureFile": .string(captureFile)] }
        var m: [String: JSONValue] = [
            "source": .string("constant-color calibrate chart"),
            "captureFile": .string(captureFile), "captureISO": .number(iso),
            "photonTransferPoints": .number(Double(photonTransfer.points.count)),
            "photonTransferPointsExcluded": .number(Double(photonTransfer.excludedPoints.count)),
            "patchesExcludedAsStructure": .array(structuredPatches.map { .string(chart.patches[$0].name) }),
            "interceptDN2AtCaptureISO": .number(photonTransfer.readVarianceDN2),
            "interceptStandardErrorDN2": .number(photonTransfer.readVarianceStandardErrorDN2),
            "slopeAtCaptureISO": .number(photonTransfer.shotSlope),
            "slopeStandardError": .number(photonTransfer.shotSlopeStandardError)]
        if let dark = darkFrame {
            m["method"] = .string("photon transfer (Janesick 2007; EMVA 1288 R4.0): per patch and channel, variance from differences of pixels \(PhotonTransfer.pixelDistance) apart (trimmed at 4 robust sigma) against mean; intercept = the dark frame's read variance (variance of differences of pixels \(DarkFrame.lag) apart in a row / 2, trimmed at 4 robust sigma), referred to the capture ISO as NoiseModel scales it; weighted least squares slope; gain = 1/slope, referred to ISO 100")
            m["readNoiseSource"] = .string("dark frame")
            if let darkFile { m["darkFile"] = .string(darkFile) }
            m["darkISO"] = .number(dark.iso)
            m["darkBlackLevelDN"] = .array([dark.blackLevelPerChannelDN.x, dark.blackLevelPerChannelDN.y, dark.blackLevelPerChannelDN.z].map(JSONValue.number))
            m["darkReadNoiseDNAtDarkISO"] = .array([dark.readNoisePerChannelDN.x, dark.readNoisePerChannelDN.y, dark.readNoisePerChannelDN.z].map(JSONValue.number))
        } else {
            m["method"] = .string("photon transfer (Janesick 2007): per patch and channel, variance from differences of pixels \(PhotonTransfer.pixelDistance) apart (trimmed at 4 robust sigma) against mean; weighted least squares line; gain = 1/slope, read noise = sqrt(intercept), referred to ISO 100")
            m["readNoiseSource"] = .string("photon transfer intercept")
        }
        if noiseCorrelation != nil {
            m["noiseCorrelationMethod"] = .string("per channel, variance of 2x2 and 4x4 block means from differences of non-overlapping tiles with 4 pixels between them (cut beyond 4 sigma of a pixel difference: defects only), relative to the fitted line's variance, averaged over the patches and the dark frame's central 512x512 square (when given) weighted by degrees of freedom: blockFactor = 4 Var(2x2) / variance, areaFactor = 2 S4 - S2 with S4 = 16 Var(4x4) / variance (first-order extrapolation in 1/k); each at least 1")
            // (The factors themselves are the profile's noise.correlation, not repeated here.)
            m["noiseCorrelationBlockDifferences"] = .number(Double(noiseCorrelationDifferences))
        } else {
            m["noiseCorrelation"] = .string("not measured: the patches' sampled squares are smaller than 16 pixels; pixels' noise taken as independent")
        }
        return m
    }

    /// The ordinary least-squares slope of y on x (`LinearLeastSquares`, the line 1, x; nil for
    /// fewer than two distinct x).
    static func leastSquaresSlope(_ points: [(x: Double, y: Double)]) -> Double? {
        LinearLeastSquares.fit(basis: points.map { [1, $0.x] }, values: points.map(\.y)).map { $0[1] }
    }
}

/// Why a chart calibration failed; every message names the file.
public enum ChartCalibrationError: Error, CustomStringConvertible {
    /// The capture is not 3-channel.
    case notRGB(file: String, channels: Int)
    /// The ambient frame's size differs.
    /// (`file` the ambient frame's when known, `capture` the capture's name and size.)
    case ambientMismatch(file: String, ambient: String, capture: String)
    /// The flash white could not be estimated.
    case white(file: String, failure: FlashWhiteEstimate.Failure)
    /// The patch colors do not span three dimensions.
    case degenerate(file: String)
    /// The chart's chromatic patches cannot fix a matrix (`ChartDescription.chromaticCoverageProblem`).
    case chromaticCoverage(file: String, problem: String)
    /// The photon transfer line could not be fitted; `varianceFalls`: the variance falls with the
    /// signal (`ChartCalibration.varianceFallsWithSignal`).
    case noiseFit(file: String, varianceFalls: Bool = false)
    /// A patch's square does not hold one uniform surface (`PatchUniformity`).
    /// With `ambientSubtracted`, the ambient frame's misalignment is named as a cause too.
    case notUniform(file: String, patch: String, departure: PatchUniformity.Departure, ambientSubtracted: Bool = false)
    /// With a dark frame: a quarter of the patch channels (`quieter` of `of`) are quieter than its
    /// read noise, which no signal can be.
    case quieterThanDarkFrame(file: String, quieter: Int, of: Int, medianVarianceDN2: Double, readVarianceDN2: Double, iso: Double)
    /// A patch's median is at or below the black level in a channel; with an ambient frame, the
    /// median of the ambient part subtracted there (scaled to the capture's exposure).
    case noSignal(file: String, patch: String, channel: Int, medianDN: Double, blackLevel: Double, subtractedAmbientDN: Double?)

    public var description: String {
        switch self {
        case .notRGB(let f, let c): return "\(f): has \(c) channel(s); camera RGB is required"
        case .ambientMismatch(let f, let a, let c):
            return "\(f): the ambient frame is \(a) (width x height x channels) but the capture \(c); it must be the same chart's, camera unmoved"
        case .white(let f, let e): return "\(f): \(e)"
        case .chromaticCoverage(let f, let p): return "\(f): the chart description: \(p)"
        case .degenerate(let f): return "\(f): the patches' camera RGB do not span three dimensions; cannot fit a matrix"
        case .notUniform(let f, let p, let d, let ambientSubtracted):
            return "\(f): patch '\(p)': its square is not one uniform surface (in \(["red", "green", "blue"][d.channel]) a part of it departs by " + String(format: "%.0f %%", 100 * d.relative) + (d.standardErrors.isFinite ? String(format: " and %.0f noise standard errors", d.standardErrors) : ", and the square has no pixel noise,") + " from the square's smooth level): "
                + (ambientSubtracted ? "the --ambient frame is not aligned with the capture (the camera or chart moved between them: the subtracted frame's patch edges fall inside the squares), or " : "")
                + "the chart description's centres or halfSize do not fit the image, or an object, a shadow or a highlight lies on the patch"
        case .noSignal(let f, let p, let c, let m, let b, let ambient?):
            return "\(f): patch '\(p)' has no signal in \(["red", "green", "blue"][c]) once the ambient frame is subtracted (median " + String(format: "%.0f", m) + " DN after subtracting the black level " + String(format: "%g", b) + " and the ambient frame's " + String(format: "%.0f", ambient) + " DN there, scaled by the two frames' exposures): the ambient frame is brighter there than the capture, so it is not this capture's ambient-only twin (another scene, light or position), or one of the two frames' exposure tags is wrong (--capture-exposure, --ambient-exposure)"
        case .noSignal(let f, let p, let c, let m, let b, nil):
            return "\(f): patch '\(p)' has no signal above the black level in \(["red", "green", "blue"][c]) (median " + String(format: "%.0f", m) + " DN after subtracting " + String(format: "%g", b) + "): the black level is not these files' (already subtracted by a raw converter?), or the patch is not lit by the flash"
        case .quieterThanDarkFrame(let f, let n, let m, let median, let read, let iso):
            return "\(f): \(n) of its \(m) patch channels are quieter than the dark frame's read noise (median variance " + String(format: "%.3g", median)
                + " DN² against " + String(format: "%.3g", read) + " DN² at ISO " + String(format: "%g", iso) + "), which no signal can be: the dark frame is not of this camera and setting, or the capture's values were scaled or denoised"
        case .noiseFit(let f, let falls):
            return "\(f): the patches do not give a photon transfer line (need unclipped patches at two or more signal levels)"
                + (falls ? "; their noise variance falls as their signal rises, as in gamma-encoded data: the capture must be linear (a raw development with gamma 1, or a file with its ICC profile and --linearize-icc)" : "")
        }
    }
}
