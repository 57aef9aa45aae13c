import Testing
@testable import ConstantColor

/// Stage 4's resampling of the ambient frame through the registration (SPEC 2.4): bilinear, exact
/// on a plane, and the flags of the pixels it cannot sample.
@Suite("Dark-room resampling")
struct DarkRoomResamplingTests {
    /// A frame whose channel c holds `offset + 3x + 2y + 100c` at pixel (x, y), `clippedAt` flagged.
    static func planar(width: Int, height: Int, offset: Float, clippedAt: (Int, Int)? = nil) -> LinearFrame {
        var image = PlanarImage(width: width, height: height, channelCount: 3)
        for c in 0..<3 { for y in 0..<height { for x in 0..<width { image[x, y, c] = offset + 3 * Float(x) + 2 * Float(y) + 100 * Float(c) } } }
        var clipped = [UInt8](repeating: 0, count: width * height)
        if let (x, y) = clippedAt { clipped[y * width + x] = LinearFrame.clippedAtWhite }
        return LinearFrame(image: image, clipped: clipped, noise: FrameNoise(varianceOffset: 1, varianceSlope: 0),
                           exposure: ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 100))
    }

    /// A translation of (1.37, −0.62) px: flash pixel (x, y) samples the ambient frame at fractional
    /// index (x + 1.37, y − 0.62), where bilinear interpolation of the plane gives
    /// `500 + 3(x + 1.37) + 2(y − 0.62) + 100c`; the flash frame is the same plane plus 1000, so
    /// `D = 1000 − 4.11 + 1.24 = 997.13` wherever there is a sample. Width 37: chunks of eight and a
    /// scalar tail. Columns 35 and 36 (index beyond 36) and row 0 (index below 0) have none: `D = F`
    /// and `noAmbientSample`. The clipped ambient pixel (10, 4) lies in the cells of flash pixels
    /// x ∈ {8, 9}, y ∈ {4, 5}; the clipped flash pixel (20, 6) is flagged where it is.
    @Test("a translation's bilinear samples are exact on a plane, in the vector chunks and the tail; pixels without an ambient sample keep the flash frame and are flagged, as are those whose cell holds a clipped sample")
    func translatedPlane() {
        let w = 37, h = 9
        let ambient = Self.planar(width: w, height: h, offset: 500, clippedAt: (10, 4))
        let flash = Self.planar(width: w, height: h, offset: 1500, clippedAt: (20, 6))
        let registration = RegistrationResult(model: .translation, ambientFromFlash: Matrix3([1, 0, 1.37, 0, 1, -0.62, 0, 0, 1]),
                                              residual: 0, residualByModel: [:])
        let d = DarkRoomEstimate(flash: flash, ambient: ambient, registration: registration)
        var worst: Float = 0
        for y in 0..<h {
            for x in 0..<w {
                let outside = x >= 35 || y == 0
                let ambientClipped = (x == 8 || x == 9) && (y == 4 || y == 5)
                let expectedFlags = (outside ? PixelFlag.noAmbientSample : 0) | (ambientClipped ? PixelFlag.ambientClipped : 0)
                    | (x == 20 && y == 6 ? PixelFlag.flashClipped : 0)
                #expect(d.flags[y * w + x] == expectedFlags, "flags at (\(x), \(y))")
                for c in 0..<3 {
                    if outside {
                        #expect(d.difference[x, y, c] == flash.image[x, y, c], "(\(x), \(y), \(c))")
                    } else {
                        worst = max(worst, abs(d.difference[x, y, c] - 997.13))
                    }
                }
            }
        }
        #expect(worst < 2e-3, "largest departure from 997.13: \(worst)")
    }
}
