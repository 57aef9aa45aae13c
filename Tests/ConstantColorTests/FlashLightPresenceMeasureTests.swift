import Foundation
import TestSupport
import Testing
@testable import ConstantColor

/// `FlashLightPresence.measure` on pairs made by hand, with noise drawn as the frames' noise model
/// says: a flash frame that is the ambient frame × 1.5 reads about 1, one with a flash's light
/// added (falling off from the centre, its own colour) far above.
@Suite("Flash light presence: the structure statistic")
struct FlashLightPresenceMeasureTests {
    /// The pair's reduction (120 × 80: blocks of one pixel): the flash frame `scale` × the ambient
    /// frame plus flash light `flashLight` at the centre, falling off, and `flash(x, y, c, ambient)`.
    /// `modelVariance`: the factor on the noise model the frames carry against the noise drawn (1/9:
    /// a camera profile that understates the noise 3×).
    static func pair(flashLight: Float, seed: UInt64, scale: Float = 1.5, modelVariance: Float = 1,
                     flash extra: (Int, Int, Int, Float) -> Float = { _, _, _, _ in 0 }) -> ReducedFramePair {
        var rng = SplitMix64(seed: seed)
        func gaussian() -> Float {
            let u1 = max(1e-12, Double(rng.next() >> 11) / Double(1 << 53)), u2 = Double(rng.next() >> 11) / Double(1 << 53)
            return Float((-2 * log(u1)).squareRoot() * cos(2 * .pi * u2))
        }
        let w = 120, h = 80, n = w * h
        let noise = FrameNoise(varianceOffset: 1, varianceSlope: 0.01)
        func noisy(_ v: Float) -> Float { v + noise.variance(v).squareRoot() * gaussian() }
        var f = PlanarImage(width: w, height: h, channelCount: 3), a = f
        for c in 0..<3 {
            for y in 0..<h {
                for x in 0..<w {
                    let j = y * w + x, dx = Float(x - w / 2) / Float(w), dy = Float(y - h / 2) / Float(h)
                    // Materials of three levels; the flash's light falls off and differs per channel.
                    let ambient: Float = [400, 900, 1500][(x / 10 + y / 7) % 3]
                    let d = flashLight * (1 - dx * dx - dy * dy) * Float(c + 1) / 2 + extra(x, y, c, ambient)
                    f.samples[c * n + j] = noisy(scale * ambient + d)
                    a.samples[c * n + j] = noisy(ambient)
                }
            }
        }
        let clean = [UInt8](repeating: 0, count: n)
        let exposure = ExposureSettings(exposureTimeSeconds: 1, fNumber: 1, isoSpeed: 100)
        let model = FrameNoise(varianceOffset: noise.varianceOffset * modelVariance, varianceSlope: noise.varianceSlope * modelVariance)
        let flash = LinearFrame(image: f, clipped: clean, noise: model, exposure: exposure)
        let ambient = LinearFrame(image: a, clipped: clean, noise: model, exposure: exposure)
        let d = DarkRoomEstimate(flash: flash, ambient: ambient, registration: NoiseReductionTests.identity)
        return ReducedFramePair(flash: flash, darkRoom: d, interpolationVariance: .zero)
    }

    @Test("a scaled ambient frame with noise reads about 1 and its scale; with a flash's light, far above")
    func structure() throws {
        for seed: UInt64 in [1, 2] {
            let none = try #require(FlashLightPresence.measure(Self.pair(flashLight: 0, seed: seed)))
            let lit = try #require(FlashLightPresence.measure(Self.pair(flashLight: 300, seed: seed)))
            print(String(format: "seed %d: no flash structure %.3f green scale %.4f; flash structure %.1f green scale %.4f",
                         seed, none.structure, none.ambientScale.y, lit.structure, lit.ambientScale.y))
            #expect(abs(none.structure - 1) < 0.1 && abs(none.neighbourStructure - 1) < 0.1)
            #expect(abs(none.ambientScale.x - 1.5) < 0.01 && abs(none.ambientScale.y - 1.5) < 0.01 && abs(none.ambientScale.z - 1.5) < 0.01)
            #expect(none.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
            // Edges measured beside it keep the light, unless their residuals say the noise model
            // understates the noise (noise passing for edges) and the frame's residuals are white.
            #expect(!none.indicatesNoFlashLight(edgesMeasured: true, tagUncertainty: 0.04))
            #expect(none.indicatesNoFlashLight(edgesMeasured: true, edgesOverNoise: true, tagUncertainty: 0.04))
            #expect(!none.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.6))
            // Residuals within the noise but smooth along the lines (a weak flash's fall-off): the
            // edges measured beside them keep the flash frame's light.
            var smooth = none
            smooth.neighbourStructure = 2
            #expect(smooth.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
            #expect(!smooth.indicatesNoFlashLight(edgesMeasured: true, edgesOverNoise: true, tagUncertainty: 0.04))
            #expect(lit.structure > 50 && lit.neighbourStructure > 50)
            #expect(!lit.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
            // The same scale in one channel only is flash light of a colour (a uniform flash on a
            // flat scene leaves F_c ∝ A_c with m_c apart).
            var coloured = none
            coloured.ambientScale.z += 0.1
            #expect(!coloured.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
        }
    }

    /// The frames' noise model 3× below the noise drawn (variance 1/9): `structure` reads about 9,
    /// the comparison with neighbouring blocks' differences still about 1, and the pair is still a
    /// scaled ambient exposure; with a flash's light both are far above.
    @Test("a noise model that understates the noise 3×: structure 9× as high, the neighbours' comparison unmoved")
    func understatedNoiseModel() throws {
        let none = try #require(FlashLightPresence.measure(Self.pair(flashLight: 0, seed: 5, modelVariance: 1.0 / 9)))
        let lit = try #require(FlashLightPresence.measure(Self.pair(flashLight: 300, seed: 5, modelVariance: 1.0 / 9)))
        print(String(format: "noise model 3× low: no flash structure %.3f, against neighbours %.3f; flash %.1f, %.1f",
                     none.structure, none.neighbourStructure, lit.structure, lit.neighbourStructure))
        #expect(abs(none.structure / 9 - 1) < 0.1 && abs(none.neighbourStructure - 1) < 0.1)
        // `structure` alone would keep it; white residuals do not.
        #expect(none.structure > FlashLightPresence.absentStructure)
        #expect(none.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
        #expect(none.indicatesNoFlashLight(edgesMeasured: true, edgesOverNoise: true, tagUncertainty: 0.04))
        #expect(lit.neighbourStructure > 50 && !lit.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
    }

    /// A flash that lights a near subject only (a disc over 8 % of the frame) before a background it
    /// does not reach, the tags 10 % off: the median is the background's, but the subject's blocks
    /// stand out on the bright side. A weak flash (4–6.5 % of the ambient light, per channel) with
    /// the tags right: `F_c ∝ A_c` in every channel, with `m_c − 1` apart by its colour.
    @Test("a flash lighting a minority of the frame, or a weak flash with the tags right, is flash light")
    func minorityAndWeakFlash() throws {
        let subject = try #require(FlashLightPresence.measure(Self.pair(flashLight: 0, seed: 3, scale: 1.1) { x, y, _, _ in
            let dx = Float(x - 60), dy = Float(y - 40)
            return dx * dx + dy * dy < 13 * 13 ? 800 : 0
        }))
        print(String(format: "subject only: structure %.3f, bright excess %.3f, green scale %.4f", subject.structure, subject.brightExcess,
                     subject.ambientScale.y))
        #expect(subject.brightExcess > 0.05)
        #expect(!subject.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
        let weak = try #require(FlashLightPresence.measure(Self.pair(flashLight: 0, seed: 4, scale: 1) { _, _, c, ambient in
            ambient * [0.04, 0.05, 0.065][c]
        }))
        print(String(format: "weak flash, tags right: structure %.3f, scales %.4f %.4f %.4f", weak.structure,
                     weak.ambientScale.x, weak.ambientScale.y, weak.ambientScale.z))
        #expect(weak.structure < FlashLightPresence.absentStructure && abs(weak.ambientScale.y - 1.05) < 0.005)
        #expect(!weak.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
        // The same scale in every channel, the tags 5 % off and no flash: flagged.
        let unfired = try #require(FlashLightPresence.measure(Self.pair(flashLight: 0, seed: 4, scale: 1.05)))
        #expect(unfired.indicatesNoFlashLight(edgesMeasured: false, tagUncertainty: 0.04))
        #expect(abs(unfired.brightExcess) < FlashLightPresence.brightExcessLimit)
    }

    @Test("too few blocks with ambient light to compare: not measured")
    func darkAmbient() {
        let w = 64, h = 40, n = w * h
        var f = PlanarImage(width: w, height: h, channelCount: 3)
        for i in 0..<(3 * n) { f.samples[i] = Float(1000 + i % 37) }
        let a = PlanarImage(width: w, height: h, channelCount: 3)  // all 0
        let clean = [UInt8](repeating: 0, count: n)
        let exposure = ExposureSettings(exposureTimeSeconds: 1, fNumber: 1, isoSpeed: 100)
        let noise = FrameNoise(varianceOffset: 4, varianceSlope: 0.5)
        let flash = LinearFrame(image: f, clipped: clean, noise: noise, exposure: exposure)
        let ambient = LinearFrame(image: a, clipped: clean, noise: noise, exposure: exposure)
        let d = DarkRoomEstimate(flash: flash, ambient: ambient, registration: NoiseReductionTests.identity)
        #expect(FlashLightPresence.measure(ReducedFramePair(flash: flash, darkRoom: d, interpolationVariance: .zero)) == nil)
    }
}
