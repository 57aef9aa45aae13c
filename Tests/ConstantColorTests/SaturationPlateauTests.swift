import Testing
@testable import ConstantColor

@Suite("Saturation below the profile's white level (SaturationPlateau)")
struct SaturationPlateauTests {
    let exposure = ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 100)
    /// Black 256, white 65535: clipping counted from 64 230 DN.
    let camera = SyntheticScene.camera

    /// A 200 × 150 frame whose sample of channel c at pixel i is `value(i, c)`, rounded to a code.
    func frame(_ value: (Int, Int) -> Double) -> PlanarImage {
        var image = PlanarImage(width: 200, height: 150, channelCount: 3)
        let n = image.pixelCount
        for c in 0..<3 { for i in 0..<n { image.samples[c * n + i] = Float(value(i, c).rounded()) } }
        return image
    }

    /// Deterministic noise in [−0.5, 0.5) (a linear congruential generator on i and c).
    func noise(_ i: Int, _ c: Int) -> Double {
        let x = UInt64(i &* 3 &+ c) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(x >> 11) / Double(1 << 53) - 0.5
    }

    /// Light across the frame from 2 000 to 2 000 + `span` DN above black, with 300 DN of noise,
    /// clipped at `clip` DN.
    func ramp(span: Double, clip: Double) -> PlanarImage {
        frame { i, c in min(clip, 256 + 2000 + span * Double(i) / 30_000 * (1 - 0.1 * Double(c)) + 300 * noise(i, c)) }
    }

    @Test("a frame saturating at 60 000 DN under a white level of 65 535: the plateau is found in each channel that reaches it, its pixels flagged clipped, and its level and share recorded")
    func plateauBelowWhite() throws {
        let raw = ramp(span: 90_000, clip: 60_000)
        let n = raw.pixelCount
        let atLevel = (0..<3).map { c in (0..<n).filter { raw.samples[c * n + $0] == 60_000 }.count }
        #expect(atLevel.allSatisfy { $0 > 5_000 }, "\(atLevel)")
        let f = ExposureNormalization.normalize(raw: raw, exposure: exposure, camera: camera)
        #expect(f.saturationPlateaus.map(\.channel) == [0, 1, 2])
        for p in f.saturationPlateaus {
            #expect(p.levelDN == 60_000 && p.pixelCount == atLevel[p.channel])
            #expect(abs(p.fraction - Double(atLevel[p.channel]) / Double(n)) < 1e-12)
        }
        // Every pixel with a channel at the level is clipped, and only those.
        for i in 0..<n {
            let saturated = (0..<3).contains { raw.samples[$0 * n + i] == 60_000 }
            #expect((f.clipped[i] & LinearFrame.clippedAtWhite != 0) == saturated)
        }
        // Without the plateau (the same light, not clipped, below the clipping level), nothing is.
        let unclipped = ExposureNormalization.normalize(raw: ramp(span: 50_000, clip: 64_000), exposure: exposure, camera: camera)
        #expect(unclipped.saturationPlateaus.isEmpty && unclipped.clipped.allSatisfy { $0 == 0 })
    }

    @Test("not plateaus: one value everywhere, 12-bit codes scaled to 16 bits, 8-bit-like data with hundreds of pixels per code, a frame clipped at the white level itself")
    func noFalsePlateaus() throws {
        // One value (a synthetic test frame): no continuum below it.
        let flat = ExposureNormalization.normalize(raw: frame { _, _ in 30_000 }, exposure: exposure, camera: camera)
        #expect(flat.saturationPlateaus.isEmpty && flat.clipped.allSatisfy { $0 == 0 })
        // 12-bit codes × 16: every 16th value used, each by about 100 pixels; the top code is no plateau.
        let scaled = ExposureNormalization.normalize(raw: frame { i, c in 16 * (16 + 300 * Double(i) / 30_000 + 2 * noise(i, c)).rounded() },
                                                     exposure: exposure, camera: camera)
        #expect(scaled.saturationPlateaus.isEmpty, "\(scaled.saturationPlateaus)")
        // Coarse codes (250 over the range, 120 pixels each), the top one below the clipping level.
        let coarse = ExposureNormalization.normalize(raw: frame { i, _ in 256 + 250 * Double(i % 250) },
                                                     exposure: exposure, camera: camera)
        #expect(coarse.saturationPlateaus.isEmpty, "\(coarse.saturationPlateaus)")
        // Clipped at the white level: counted by the clipping level as before, not as a plateau.
        let white = ExposureNormalization.normalize(raw: ramp(span: 90_000, clip: 65_535), exposure: exposure, camera: camera)
        #expect(white.saturationPlateaus.isEmpty && white.clipped.contains { $0 & LinearFrame.clippedAtWhite != 0 })
    }
}
