#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The illumination-invariant representation registration aligns: high-passed log luminance.
///
/// `log(L + ε)` turns the flash's fall-off and the ambient's gradient into smooth additive terms,
/// and subtracting a local mean removes them, leaving reflectance edges that both frames share
/// (in the spirit of gradient/log-domain flash–no-flash alignment, Petschnigg et al. 2004).
enum RegistrationFeatures {
    /// Radius of the local mean subtracted at every level, in that level's pixels.
    static let highPassRadius = 4

    /// Sum of the three normalized channels, full resolution.
    static func luminance(_ frame: LinearFrame) -> GrayImage {
        let img = frame.image
        let n = img.pixelCount
        var out = GrayImage(width: img.width, height: img.height)
        img.samples.withUnsafeBufferPointer { s in
            out.pixels.withUnsafeMutableBufferPointer { dBuffer in
                let d = SharedMutableBuffer(dBuffer)
                let src = UncheckedSendableBox(s)
                let w = img.width
                forEachRowBand(rowCount: img.height, minimumRowsPerBand: 64) { rows in
                    let s = src.value
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                        d[i] = s[i] + s[n + i] + s[2 * n + i]
                    }
                }
            }
        }
        return out
    }

    /// The feature image of one pyramid level of luminance.
    ///
    /// `ε` keeps the logarithm away from the noise floor: 2% of the level's mean luminance plus
    /// three times the read-noise standard deviation of a luminance sample.
    static func features(luminance: GrayImage, readNoiseStd: Float) -> GrayImage {
        var sum: Double = 0
        for v in luminance.pixels { sum += Double(max(0, v)) }
        let mean = Float(sum / Double(max(1, luminance.pixels.count)))
        let epsilon = max(0.02 * mean + 3 * readNoiseStd, Float.leastNormalMagnitude)
        var logL = luminance
        for i in logL.pixels.indices { logL.pixels[i] = logf(max(0, logL.pixels[i]) + epsilon) }
        let smooth = logL.boxMean(radius: 1)
        let background = smooth.boxMean(radius: highPassRadius)
        var out = smooth
        for i in out.pixels.indices { out.pixels[i] -= background.pixels[i] }
        return out
    }

    /// Central-difference gradients (per level pixel); zero on the border.
    static func gradients(_ f: GrayImage) -> (GrayImage, GrayImage) {
        var gx = GrayImage(width: f.width, height: f.height)
        var gy = GrayImage(width: f.width, height: f.height)
        let w = f.width, h = f.height
        guard w > 2, h > 2 else { return (gx, gy) }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                gx.pixels[i] = 0.5 * (f.pixels[i + 1] - f.pixels[i - 1])
                gy.pixels[i] = 0.5 * (f.pixels[i + w] - f.pixels[i - w])
            }
        }
        return (gx, gy)
    }
}
