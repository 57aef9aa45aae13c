import TestSupport
import Foundation
@testable import ConstantColor

/// A small analytic scene for stage tests: smooth-edged squares of varying reflectance on a
/// textured background, sampled at any continuous coordinate (so that a camera motion is exact).
/// The squares repeat every 160 × 120 pixels, so a larger `width`/`height` has them all over the frame.
struct SyntheticScene {
    var width = 160, height = 120
    /// Moves one of the squares (index into the list) by (dx, dy) pixels: an object that moved.
    var movedSquare: (index: Int, dx: Double, dy: Double)? = nil
    /// Camera with ample dynamic range and the noise model used by the tests.
    static let camera = CameraProfile(name: "test", blackLevel: 256, whiteLevel: 65535,
                                      noise: NoiseModel(readNoiseDN: 2, gainElectronsPerDN: 2))
    static let flashProfile = FlashProfile(name: "test flash", cameraName: "test",
                                           whiteCameraRGB: SIMD3(0.8, 1, 0.7), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)

    /// Reflectance (per camera channel, white-balanced to a flash of white `flashWhite`) at (x, y).
    func reflectance(x: Double, y: Double) -> SIMD3<Double> {
        var r = SIMD3<Double>(0.35, 0.35, 0.35) + 0.05 * sin(x * 0.21) * cos(y * 0.17)
        let squares: [(Double, Double, Double, SIMD3<Double>)] = [
            (40, 35, 14, SIMD3(0.7, 0.2, 0.15)), (100, 40, 16, SIMD3(0.1, 0.5, 0.2)),
            (60, 85, 18, SIMD3(0.2, 0.25, 0.7)), (125, 90, 12, SIMD3(0.85, 0.85, 0.8)),
        ]
        for (k, (cx0, cy0, h, c)) in squares.enumerated() {
            // The nearest copy of the square in the 160 × 120 tiling (on the first tile, and just
            // outside it, that is the square itself).
            var cx = cx0 + 160 * ((x - cx0) / 160).rounded(), cy = cy0 + 120 * ((y - cy0) / 120).rounded()
            if let m = movedSquare, m.index == k { cx += m.dx; cy += m.dy }
            let inside = min(h - abs(x - cx), h - abs(y - cy))
            let t = 1 / (1 + exp(-inside * 3))  // soft edge about 1/3 px wide
            r = r * (1 - t) + c * t
        }
        return r
    }

    /// Renders a frame in DN: `flashGain` scales the flash (0 = none), `ambient` is the ambient
    /// camera-RGB irradiance, `ambientFromFlash` moves the camera (the frame samples the scene at
    /// transformed coordinates), and noise is added when `seed` is given.
    func render(flashGain: Double, ambient: SIMD3<Double>, ambientFromFlash: Matrix3 = .identity,
                exposure: ExposureSettings, seed: UInt64? = nil, clipDisk: (Double, Double, Double)? = nil) -> PlanarImage {
        var img = PlanarImage(width: width, height: height, channelCount: 3)
        let cam = Self.camera
        let inverse = ambientFromFlash.inverse!
        var rng = SplitMix(seed: seed ?? 0)
        let scale = exposure.radiometricScale
        let white = Self.flashProfile.whiteCameraRGB
        for y in 0..<height {
            for x in 0..<width {
                var sum = SIMD3<Double>(0, 0, 0)
                for sy in 0..<3 { for sx in 0..<3 {
                    // This frame's pixel sample → scene (= flash-frame) coordinates.
                    let px = Double(x) + (Double(sx) + 0.5) / 3, py = Double(y) + (Double(sy) + 0.5) / 3
                    let q = inverse * SIMD3(px, py, 1)
                    let r = reflectance(x: q.x / q.z, y: q.y / q.z)
                    sum += r * (ambient + flashGain * white)
                } }
                var signal = sum / 9 * scale
                if let d = clipDisk, pow(Double(x) + 0.5 - d.0, 2) + pow(Double(y) + 0.5 - d.1, 2) < d.2 * d.2 {
                    signal = SIMD3(repeating: 1e9)
                }
                for c in 0..<3 {
                    var v = signal[c]
                    if seed != nil {
                        let variance = cam.noise.variance(signalDN: v, iso: exposure.isoSpeed)
                        v += variance.squareRoot() * rng.gaussian()
                    }
                    img[x, y, c] = Float(min(cam.whiteLevel, max(0, (v + cam.blackLevel).rounded())))
                }
            }
        }
        return img
    }
}

/// The shared SplitMix64 with Box–Muller normals: deterministic test noise.
typealias SplitMix = SplitMix64

extension SplitMix64 {
    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// One tolerance definition for the stage tests.
enum Tolerance {
    /// Registration accuracy the SPEC asks for, pixels.
    static let registrationPixels = 0.1
}
