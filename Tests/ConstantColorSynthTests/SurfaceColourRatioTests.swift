import Foundation
import Testing
@testable import ConstantColor
@testable import ConstantColorSynth

/// Stage 4a's check of the exposure tags by the surfaces' colours, where no shadow edge can read
/// the ratio (`SurfaceColourRatio`): against renders whose true ratio is known.
@Suite("The exposure ratio read from the surfaces' colours where there is no shadow edge", .serialized)
struct SurfaceColourRatioTests {
    /// A 200 lux scene without a cast shadow or gradient, under `cct`, the flash frame's shutter
    /// `flashTime` times its tag.
    static func shadowless(cct: Double, flashTime: Double) -> SynthCondition {
        var c = SynthCondition(name: "no-shadow", description: "200 lux, no cast shadow",
                               lights: [AmbientLight(spectrum: .planckian(cctKelvin: cct, duv: 0), lux: 200, placement: .uniform)],
                               shadow: false)
        c.effects.exposureError = .given(ExposureFactors(flashTime: flashTime, flashGain: 1, ambientTime: 1, ambientGain: 1))
        return c
    }

    /// Smith's trigonometric solution against matrices whose eigenvalues are known.
    @Test func largestEigenvalueOfKnownMatrices() {
        // diag(3, 1, 2).
        #expect(abs(SurfaceColourRatio.largestEigenvalue(3, 1, 2, 0, 0, 0) - 3) < 1e-12)
        // [[2,1,0],[1,2,0],[0,0,1]]: 3, 1, 1.
        #expect(abs(SurfaceColourRatio.largestEigenvalue(2, 2, 1, 1, 0, 0) - 3) < 1e-12)
        // [[4,1,2],[1,3,0],[2,0,5]] rotated diag: its trace 12, largest root of λ³ − 12λ² + 42λ − 43.
        let l = SurfaceColourRatio.largestEigenvalue(4, 3, 5, 1, 2, 0)
        #expect(abs(l * l * l - 12 * l * l + 42 * l - 43) < 1e-9 && l > 5 && l < 7)
        // A rank-one matrix v vᵀ: |v|².
        let v = SIMD3<Double>(0.3, 1.2, -0.7)
        #expect(abs(SurfaceColourRatio.largestEigenvalue(v.x * v.x, v.y * v.y, v.z * v.z, v.x * v.y, v.x * v.z, v.y * v.z)
                    - (v * v).sum()) < 1e-12)
        // Equal eigenvalues.
        #expect(SurfaceColourRatio.largestEigenvalue(2, 2, 2, 0, 0, 0) == 2)
    }

    /// DerSimonian–Laird against hand-worked cases: readings that agree within their errors keep the
    /// inverse-variance mean and its error (τ = 0); readings that scatter beyond them get τ from
    /// Cochran's Q and an error that counts it.
    @Test func randomEffectsMeanOfKnownSamples() {
        let agreeing = SurfaceColourRatio.randomEffectsMean([(1.0, 0.1), (1.05, 0.1), (0.95, 0.1), (1.0, 0.2)])
        // Q = 100·(0.05² + 0.05²) = 0.5, under its 3 degrees of freedom: τ = 0.
        #expect(agreeing.spread == 0)
        #expect(abs(agreeing.mean - 1.0) < 1e-12)
        #expect(abs(agreeing.standardError - 1 / (3 / 0.01 + 1 / 0.04).squareRoot()) < 1e-12)
        // Two pairs 1 apart, each reading ±0.1: Q = 4·0.25/0.01 = 100, Σw = 400, Σw² = 40 000,
        // τ² = (100 − 3)/(400 − 100) = 0.3233…; mean 0.5, error √((0.01 + τ²)/4).
        let scattered = SurfaceColourRatio.randomEffectsMean([(0.0, 0.1), (0.0, 0.1), (1.0, 0.1), (1.0, 0.1)])
        let tau2 = 97.0 / 300
        #expect(abs(scattered.spread - tau2.squareRoot()) < 1e-12)
        #expect(abs(scattered.mean - 0.5) < 1e-12)
        #expect(abs(scattered.standardError - ((0.01 + tau2) / 4).squareRoot()) < 1e-12)
    }

    /// The flash frame's shutter 1.3× and 2× its tag, no shadow: before, the ratio rested on the
    /// tags (±4 %), the ambient light left in D read as flash signal, and the pair fused
    /// `constantColor` at 0.88 (1.3×) and 0.90 (2×) with colours 3.7 and 5.5 ΔE00 off. The surfaces'
    /// colours read the ratio within 3 %, contradict the tags, and the confidence falls.
    @Test("a flash shutter 1.3× or 2× its tag without a shadow: read, counted, fallback", arguments: [1.3, 2.0])
    func wrongTagIsRead(flashTime: Double) throws {
        let (result, truth) = try AmbientRatioTests.fuse(Self.shadowless(cct: 3000, flashTime: flashTime), width: 600, height: 400, seed: 1)
        let e = result.ambientRatio
        let reading = try #require(e.surfaceColourRatio)
        print(String(format: "flash shutter %.1f× its tag, no shadow: surfaces read %.4f ± %.4f (truth %.4f, %d surfaces), uncertainty %.3f, centre-weighted confidence %.3f, %@",
                     flashTime, reading.ratio, reading.standardError, truth[0], reading.groupCount, e.relativeUncertainty,
                     result.report.centerWeightedMeanConfidence, result.report.decision.rawValue))
        #expect(e.source == .metadata && e.edgeRatio == nil)
        #expect(abs(reading.ratio / truth[0] - 1) < 0.03)
        #expect(try #require(e.surfaceColourContradiction) == reading.ratio)
        #expect(e.relativeUncertainty >= abs(reading.ratio - 1))
        // The subtracted ratio is still the tags'.
        #expect(e.baseRatio == 1)
        #expect(result.report.decision == .fallback)
        #expect(result.report.exposure.ambientRatio?.surfaceColourContradiction == reading.ratio)
    }

    /// The same scenes with the tags right, under a warm lamp and under light near the flash's colour
    /// (where the surfaces' colours hardly tell the lights apart): the reading agrees with the tags,
    /// nothing is counted, and the confidence is what it was.
    @Test("tags right, no shadow, 3000 K and 6500 K: the reading agrees", arguments: [3000.0, 6500])
    func rightTagsAgree(cct: Double) throws {
        let (result, truth) = try AmbientRatioTests.fuse(Self.shadowless(cct: cct, flashTime: 1), width: 600, height: 400, seed: 1)
        let e = result.ambientRatio
        let reading = try #require(e.surfaceColourRatio)
        print(String(format: "%.0f K, tags right, no shadow: surfaces read %.4f ± %.4f (truth %.4f, %d surfaces), centre-weighted confidence %.3f",
                     cct, reading.ratio, reading.standardError, truth[0], reading.groupCount, result.report.centerWeightedMeanConfidence))
        #expect(e.surfaceColourContradiction == nil)
        #expect(abs(e.relativeUncertainty - Double(Confidence.defaultExposureRatioUncertainty)) < 1e-6)
        #expect(abs(reading.ratio - truth[0]) < 3 * reading.standardError + 0.02)
        #expect(result.report.decision == .constantColor)
    }

    /// Where the shadow edges measured the ratio the surfaces' reading is not taken: the edges are
    /// the measurement, and the report has no reading.
    @Test func notTakenWhereTheEdgesMeasure() throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 3000, duv: 0)
        c.effects.exposureError = .given(ExposureFactors(flashTime: 1.1, flashGain: 1, ambientTime: 1, ambientGain: 1))
        let (result, _) = try AmbientRatioTests.fuse(c)
        #expect(result.ambientRatio.source == .illuminationEdges)
        #expect(result.ambientRatio.surfaceColourRatio == nil && result.ambientRatio.surfaceColourContradiction == nil)
        #expect(result.report.exposure.ambientRatio?.surfaceColourRatio == nil)
    }
}
