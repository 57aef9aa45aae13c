import Foundation
import Testing
@testable import ConstantColor
import ConstantColorCalibration
import ConstantColorIO
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
        let agreeing = RandomEffects.mean([(1.0, 0.1), (1.05, 0.1), (0.95, 0.1), (1.0, 0.2)])
        // Q = 100·(0.05² + 0.05²) = 0.5, under its 3 degrees of freedom: τ = 0.
        #expect(abs(RandomEffects.heterogeneity([(1.0, 0.1), (1.05, 0.1), (0.95, 0.1), (1.0, 0.2)]).q - 0.5) < 1e-12)
        #expect(agreeing.tau == 0)
        #expect(abs(agreeing.mean - 1.0) < 1e-12)
        #expect(abs(agreeing.standardError - 1 / (3 / 0.01 + 1 / 0.04).squareRoot()) < 1e-12)
        // Two pairs 1 apart, each reading ±0.1: Q = 4·0.25/0.01 = 100, Σw = 400, Σw² = 40 000,
        // τ² = (100 − 3)/(400 − 100) = 0.3233…; mean 0.5, error √((0.01 + τ²)/4).
        let scattered = RandomEffects.mean([(0.0, 0.1), (0.0, 0.1), (1.0, 0.1), (1.0, 0.1)])
        let tau2 = 97.0 / 300
        #expect(abs(scattered.tau - tau2.squareRoot()) < 1e-12)
        #expect(abs(scattered.mean - 0.5) < 1e-12)
        #expect(abs(scattered.standardError - ((0.01 + tau2) / 4).squareRoot()) < 1e-12)
    }

    /// The contradiction's boundary, in log ratio: `|ln ρ| > 3·√((σ/ρ)² + u²)`, on either side of 1;
    /// beyond it the difference is the ratio's uncertainty and the reading is recorded as the
    /// contradiction, within it only the reading is recorded.
    @Test(arguments: [1.0, -1.0])
    func contradictionBoundary(side: Double) {
        let tags = AmbientRatioEstimate.metadata(height: 10, uncertainty: 0.04)
        let relative = 0.03, limit = 3 * (relative * relative + 0.04 * 0.04).squareRoot()   // 0.15
        for (factor, contradicts) in [(0.99, false), (1.01, true)] {
            let ratio = exp(side * limit * factor)
            let checked = tags.checked(bySurfaceColours: SurfaceColourRatio(ratio: ratio, standardError: relative * ratio, groupCount: 9, cellCount: 900),
                                       metadataUncertainty: 0.04)
            #expect(checked.surfaceColourRatio?.ratio == ratio)
            #expect((checked.surfaceColourContradiction != nil) == contradicts, "ρ = \(ratio)")
            #expect(checked.relativeUncertainty == (contradicts ? abs(ratio - 1) : 0.04))
            #expect(checked.baseRatio == 1 && checked.lineRatios == tags.lineRatios)
        }
        #expect(tags.checked(bySurfaceColours: nil, metadataUncertainty: 0.04) == tags)
    }

    /// The flash frame's shutter 1.4× and 2× its tag, no shadow: before, the ratio rested on the
    /// tags (±4 %), the ambient light left in D read as flash signal, and such pairs fused
    /// `constantColor` (1.3×: 0.88, 2×: 0.90, colours 3.7 and 5.5 ΔE00 off). The surfaces' colours
    /// read the ratio within 3 %, contradict the tags, and the confidence falls. (Without a shading
    /// map a 1.3× tag at this ambient share, 25 %, lies at the edge of what they find.)
    @Test("a flash shutter 1.4× or 2× its tag without a shadow: read, counted, fallback", arguments: [1.4, 2.0])
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
    @Test("tags right, no shadow, 3000 K and 6500 K: the reading agrees, or there is none", arguments: [3000.0, 6500])
    func rightTagsAgree(cct: Double) throws {
        let (result, truth) = try AmbientRatioTests.fuse(Self.shadowless(cct: cct, flashTime: 1), width: 600, height: 400, seed: 1)
        let e = result.ambientRatio
        // Under 6500 K the lights are too alike on most surfaces to read (`minimumLightsApart`).
        guard let reading = e.surfaceColourRatio else {
            #expect(cct == 6500 && e.surfaceColourContradiction == nil && result.report.decision == .constantColor)
            return
        }
        print(String(format: "%.0f K, tags right, no shadow: surfaces read %.4f ± %.4f (truth %.4f, %d surfaces), centre-weighted confidence %.3f",
                     cct, reading.ratio, reading.standardError, truth[0], reading.groupCount, result.report.centerWeightedMeanConfidence))
        #expect(e.surfaceColourContradiction == nil)
        #expect(abs(e.relativeUncertainty - Double(Confidence.defaultExposureRatioUncertainty)) < 1e-6)
        #expect(abs(reading.ratio - truth[0]) < 3 * reading.standardError + 0.02)
        #expect(result.report.decision == .constantColor)
    }

    /// A flash whose colour drifts across the frame (12 % less blue at the edge, as the committed
    /// flat field's): without a shading map the reading is pulled along (1.14 for 1 on a probe's
    /// render) and that is counted as a systematic error, so the tags stand; with the map fitted to
    /// the committed flat-field capture divided out the reading is right to 3 % — and a 1.3× tag is
    /// still found. (An inverted gain doubles the shading's pull.)
    @Test("a flash colour shading: no false contradiction without a map; with the map the reading is right", arguments: [1.0, 1.3])
    func flashColourShading(flashTime: Double) throws {
        var c = Self.shadowless(cct: 3000, flashTime: flashTime)
        c.effects.flashColorShading = FlashColorShading(blueLossAtEdge: 0.12)
        let camera = AmbientRatioTests.camera
        // The map `calibrate flat-field` fits to the committed flat-field capture (the same shading).
        let folder = Fixture.root + "/fixtures/real-hard/flat-field/"
        let capture = try TIFFReader.read(path: folder + "darkroom.tif"), dark = try TIFFReader.read(path: folder + "dark.tif")
        let fit = try FlatFieldCalibration(capture: capture.image, dark: dark.image, blackLevel: camera.blackLevel,
                                           whiteLevel: camera.whiteLevel, noise: camera.noise,
                                           iso: try #require(capture.exposure.settings).isoSpeed, file: "darkroom.tif")
        let mapped = AmbientRatioTests.flash.adding(shading: fit.shading)
        let (plain, truth) = try AmbientRatioTests.fuse(c, width: 600, height: 400, seed: 1)
        let (shaded, _) = try AmbientRatioTests.fuse(c, width: 600, height: 400, seed: 1, flash: mapped)
        let without = try #require(plain.ambientRatio.surfaceColourRatio), with = try #require(shaded.ambientRatio.surfaceColourRatio)
        print(String(format: "flash colour shading 0.12, flash shutter %.1f× its tag: without the map %.4f ± %.4f, with it %.4f ± %.4f (truth %.4f)",
                     flashTime, without.ratio, without.standardError, with.ratio, with.standardError, truth[0]))
        #expect(abs(with.ratio / truth[0] - 1) < 0.03)
        #expect(with.standardError < without.standardError)
        if flashTime == 1 {
            #expect(plain.ambientRatio.surfaceColourContradiction == nil && shaded.ambientRatio.surfaceColourContradiction == nil)
        } else {
            #expect(shaded.ambientRatio.surfaceColourContradiction != nil)
        }
    }

    /// A 100 Hz flicker of depth 0.5 through the rolling shutter, no shadow, tags right. With
    /// `--exposure-ratio metadata` the tags' flat lines leave the banding in the flash frame; read
    /// against them it gave 0.84 and a contradiction. The reading is taken against the measured
    /// lines (the banding removed), and nothing is contradicted in either mode.
    @Test("a flicker without shadow, tags right: no contradiction, estimated or with the tags' ratio", arguments: [true, false])
    func flickerWithoutShadow(estimate: Bool) throws {
        var c = Self.shadowless(cct: 3000, flashTime: 1)
        c.effects.flicker = Flicker(frequencyHz: 100, depth: 0.5, phaseCycles: 0.1)
        let (result, _) = try AmbientRatioTests.fuse(c, width: 600, height: 400, seed: 1, estimate: estimate)
        let e = result.ambientRatio
        let reading = try #require(e.surfaceColourRatio)
        print(String(format: "100 Hz flicker, no shadow, tags right, %@: surfaces read %.4f ± %.4f, uncertainty %.3f",
                     estimate ? "estimated" : "metadata", reading.ratio, reading.standardError, e.relativeUncertainty))
        #expect(e.surfaceColourContradiction == nil)
        #expect(abs(reading.ratio - 1) < 0.1)
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
