import Foundation
import Testing
@testable import ConstantColor

@Suite("Noise consistency: an ISO tag that is not the capture's shows in the frame's noise")
struct NoiseConsistencyTests {
    let scene = SyntheticScene(width: 320, height: 240)
    let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)
    let ambientLight = SIMD3<Double>(1.5e6, 1.5e6, 1.2e6)

    /// The scene's pair, the ambient frame normalized with `ambientTag` (its true exposure is `exposure`).
    func measure(ambientTag: ExposureSettings) -> NoiseConsistency? {
        let flashRaw = scene.render(flashGain: 1.2e6, ambient: ambientLight, exposure: exposure, seed: 11)
        let ambientRaw = scene.render(flashGain: 0, ambient: ambientLight, exposure: exposure, seed: 12)
        let f = ExposureNormalization.normalize(raw: flashRaw, exposure: exposure, camera: SyntheticScene.camera)
        let a = ExposureNormalization.normalize(raw: ambientRaw, exposure: ambientTag, camera: SyntheticScene.camera)
        return NoiseConsistency.measure(flash: f, ambient: a)
    }

    @Test("right tags: the frames' noise floors over their models agree within 15 %; an ISO 8× too high reads ≤ 1/8 (below the limit), 100× too high ≤ 1/100 and said")
    func isoTag() throws {
        let right = try #require(measure(ambientTag: exposure))
        #expect(abs(log(right.relativeScale)) < log(1.15) && !right.disagrees, "\(right)")
        // On a textured scene the floor is within a factor 2 of the model's (the quantile of
        // noise-only segments is about 0.8; texture raises it).
        #expect(right.flashScale > 0.5 && right.flashScale < 2 && right.ambientScale > 0.5 && right.ambientScale < 2, "\(right)")
        var wrongISO = exposure
        wrongISO.isoSpeed = 800
        let wrong = try #require(measure(ambientTag: wrongISO))
        // Shot noise overstated 8×, read noise 64× (its DN scale with the ISO): at most 1/8.
        #expect(wrong.relativeScale < 1.0 / 8 * 1.15 && wrong.relativeScale > 1.0 / 64 && !wrong.disagrees, "\(wrong)")
        wrongISO.isoSpeed = 10000
        let far = try #require(measure(ambientTag: wrongISO))
        #expect(far.relativeScale < 1.0 / 100 * 1.15 && far.disagrees, "\(far)")
    }

    @Test("an exposure time that is off does not show in the noise (the model scales with the signal)")
    func exposureTimeTag() throws {
        var wrongTime = exposure
        wrongTime.exposureTimeSeconds *= 8
        let m = try #require(measure(ambientTag: wrongTime))
        #expect(abs(log(m.relativeScale)) < log(1.15) && !m.disagrees, "\(m)")
    }

    @Test("stage 4a counts a disagreement only where no edge measured the ratio")
    func counting() {
        let metadata = AmbientRatioEstimate.metadata(height: 4, uncertainty: 0.04)
        let disagreeing = NoiseConsistency(flashScale: 1, ambientScale: 0.01)
        #expect(abs(metadata.counting(disagreeing).relativeUncertainty - 99) < 1e-9)
        #expect(metadata.counting(NoiseConsistency(flashScale: 1, ambientScale: 0.3)).relativeUncertainty == 0.04)
        #expect(metadata.counting(nil).relativeUncertainty == 0.04)
        var measured = metadata
        measured.source = .illuminationEdges
        measured.relativeUncertainty = 0.01
        let kept = measured.counting(disagreeing)
        #expect(kept.relativeUncertainty == 0.01 && kept.noiseConsistency == disagreeing)
    }
}
