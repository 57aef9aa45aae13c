#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The illumination-invariant representation registration aligns: the high-passed sum of the
/// three channels' logarithms, `hp(log R + log G + log B)`.
///
/// In each channel `F_c = ρ_c (E_ambient,c + E_flash,c)` and `A_c = ρ_c E_ambient,c`, so
/// `log F_c − log A_c` depends on the light only, which is smooth away from shadow edges; a local
/// mean removes it. The channels are logged separately because the frames' spectra differ: the
/// luminance contrast between two colored surfaces can even change sign between flash and ambient,
/// which breaks any feature built on a sum of channels (log-chromaticity invariance, cf.
/// Finlayson et al. 2006; flash/no-flash in the log domain, Petschnigg et al. 2004).
enum RegistrationFeatures {
    /// Radius of the local mean subtracted at every level, in that level's pixels.
    static let highPassRadius = 4

    /// Pixels this close to a level's border have features biased by the cut-off smoothing windows
    /// (radius 1, then `highPassRadius`, then the central-difference gradient): registration
    /// leaves them out.
    static let borderMargin = highPassRadius + 2

    /// The three planes of a frame as gray images, full resolution.
    static func channels(_ frame: LinearFrame) -> [GrayImage] {
        let img = frame.image
        let n = img.pixelCount
        return (0..<3).map { c in
            GrayImage(width: img.width, height: img.height, pixels: Array(img.samples[(c * n)..<((c + 1) * n)]))
        }
    }

    /// The three planes of a frame reduced by 2×2 means `halvings` times (1 or 2), read straight
    /// from the frame in one pass.
    static func reducedChannels(_ frame: LinearFrame, halvings: Int) -> [GrayImage] {
        precondition(halvings == 1 || halvings == 2)
        let img = frame.image
        let n = img.pixelCount
        return img.samples.withUnsafeBufferPointer { s in
            (0..<3).map { c in
                let plane = UnsafeBufferPointer(rebasing: s[(c * n)..<((c + 1) * n)])
                return halvings == 1 ? GrayImage.downsampled2x(plane, width: img.width, height: img.height)
                                     : GrayImage.downsampled4x(plane, width: img.width, height: img.height)
            }
        }
    }

    /// The feature image of one pyramid level of the three channels.
    ///
    /// Each channel's `ε` keeps the logarithm away from the noise floor: 2% of the channel's mean
    /// plus three times the read-noise standard deviation of a sample at this level.
    static func features(channels: [GrayImage], readNoiseStd: Float) -> GrayImage {
        let w = channels[0].width, h = channels[0].height
        var logSum = GrayImage(width: w, height: h)
        for channel in channels {
            var sum: Double = 0
            for v in channel.pixels { sum += Double(max(0, v)) }
            let mean = Float(sum / Double(max(1, channel.pixels.count)))
            let epsilon = max(0.02 * mean + 3 * readNoiseStd, Float.leastNormalMagnitude)
            for i in logSum.pixels.indices { logSum.pixels[i] += logf(max(0, channel.pixels[i]) + epsilon) }
        }
        let smooth = logSum.boxMean(radius: 1)
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
