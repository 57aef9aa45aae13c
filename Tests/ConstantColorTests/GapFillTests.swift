import TestSupport
import Testing
@testable import ConstantColor

@Suite("Gap fill and encoding in one pass")
struct GapFillTests {
    @Test("render16 equals the blend of the two renderings followed by the tone curve's encode16, tails and NaN included")
    func fusedPassMatchesTheStages() {
        var rng = SplitMix(seed: 42)
        let w = 13, h = 5  // 65 pixels: not a multiple of the vector width
        func image(_ planes: Int, _ lo: Double, _ hi: Double) -> PlanarImage {
            PlanarImage(width: w, height: h, channelCount: planes,
                        samples: (0..<(w * h * planes)).map { _ in Float(lo + (hi - lo) * rng.uniform()) })
        }
        var dark = image(3, -0.1, 3), flash = image(3, 0, 2), confidence = image(1, -0.2, 1.2)
        dark.samples[7] = .nan; dark.samples[20] = 50; confidence.samples[3] = .nan
        flash.samples[30] = -1
        let m = Matrix3([1.2, -0.1, 0.05, -0.2, 1.1, 0.1, 0.0, -0.3, 1.4]), mf = Matrix3([0.9, 0, 0, 0, 0.8, 0, 0, 0, 0.7])
        let curve = ToneCurve()
        let fused = GapFill.render16(darkRoom: dark, flashFrame: flash, confidence: confidence,
                                     darkRoomMatrix: m, flashMatrix: mf, curve: curve)
        // The stages one at a time: both renderings, the blend pixel by pixel, then the encoding.
        var blended = ColorRendering.apply(m, to: dark)
        let flashRendered = ColorRendering.apply(mf, to: flash)
        let n = w * h
        for i in 0..<n {
            let a = GapFill.weight(confidence: confidence.samples[i])
            for c in 0..<3 { blended.samples[c * n + i] = a * blended.samples[c * n + i] + (1 - a) * flashRendered.samples[c * n + i] }
        }
        let staged = curve.encode16(blended)
        for i in fused.samples.indices {
            #expect(abs(fused.samples[i] - staged.samples[i]) <= 1, "sample \(i): \(fused.samples[i]) vs \(staged.samples[i])")
        }
    }
}
