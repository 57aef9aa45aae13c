import Foundation
import Testing
@testable import ConstantColor
@testable import ConstantColorSynth

/// Stage 4a (issue 7): the ambient exposure the flash frame really holds, per row, estimated from
/// the images — against the truth the renderer used (true/EXIF exposure factors and the rolling
/// shutter's per-row flicker gains).
@Suite("Ambient ratio and flicker banding estimated from the images", .serialized)
struct AmbientRatioTests {
    static let lib = Fixture.library
    static let camera = try! CameraProfile(path: Fixture.root + "/calibration/synthetic-nikon5100.camera.json")
    static let flash = try! FlashProfile(path: Fixture.root + "/calibration/synthetic-phosphor-led-yag.flash.json")

    /// The true r(y): (flash true/EXIF scale ÷ ambient true/EXIF scale) × G_flash(y) / G_ambient(y).
    static func trueRows(_ cap: SynthCapture) -> [Double] {
        let f = cap.flash, a = cap.ambient!
        let r0 = (f.trueExposure.radiometricScale / f.exposure.radiometricScale)
            / (a.trueExposure.radiometricScale / a.exposure.radiometricScale)
        let h = f.image.height
        let gf = f.faults.rowGains ?? [Double](repeating: 1, count: h)
        let ga = a.faults.rowGains ?? [Double](repeating: 1, count: h)
        return (0..<h).map { r0 * gf[$0] / ga[$0] }
    }

    /// Renders and fuses `c`; with `turned`, both frames are stored turned about their diagonal (the
    /// sensor's rows become the stored columns, as a raw converter stores a portrait capture upright),
    /// and the truth's rows are then the frame's columns, left to right.
    static func fuse(_ c: SynthCondition, width: Int = 360, height: Int = 240, seed: UInt64 = 11,
                     estimate: Bool = true, camera: CameraProfile = camera, turned: Bool = false,
                     renderer: SceneRenderer? = nil, flash: FlashProfile = flash,
                     editAmbient: ((inout PlanarImage) -> Void)? = nil) throws -> (FusionResult, [Double]) {
        let r = try renderer ?? nikonRenderer(lib)
        var cap = try r.render(c, width: width, height: height, seed: seed, options: RenderOptions())
        if let editAmbient { editAmbient(&cap.ambient!.image) }
        var options = FusionOptions()
        options.estimateAmbientRatio = estimate
        options.produceLinear = false
        func stored(_ image: PlanarImage) -> PlanarImage { turned ? transposed(image) : image }
        let result = try FusionPipeline.run(
            flash: RawFrame(image: stored(cap.flash.image), exposure: cap.flash.exposure, name: "flash"),
            ambient: RawFrame(image: stored(cap.ambient!.image), exposure: cap.ambient!.exposure, name: "ambient"),
            camera: camera, flashProfile: flash, options: options)
        return (result, trueRows(cap))
    }

    /// `c` rendered at 600 × 400 (seed 1) on the Sigma SD Merrill with the CIE LED-B4 flash, and fused
    /// with their committed synthetic profiles.
    static func fuseSigma(_ c: SynthCondition) throws -> (FusionResult, [Double]) {
        let renderer = SceneRenderer(library: lib, camera: SynthCamera(name: "Sigma SDMerill (NPL)", sensitivity: try lib.camera(file: SpectralLibrary.File.sigmaSDMerill)),
                                     flash: try lib.distribution(file: SpectralLibrary.File.ledB4))
        return try fuse(c, width: 600, height: 400, seed: 1, camera: try CameraProfile(path: Fixture.root + "/calibration/synthetic-sigma-sdmerill.camera.json"),
                        renderer: renderer, flash: try FlashProfile(path: Fixture.root + "/calibration/synthetic-led-b4.flash.json"))
    }

    /// `image` with rows and columns exchanged.
    static func transposed(_ image: PlanarImage) -> PlanarImage {
        let w = image.width, h = image.height, n = w * h
        var out = PlanarImage(width: h, height: w, channelCount: image.channelCount)
        for c in 0..<image.channelCount {
            for y in 0..<h { for x in 0..<w { out.samples[c * n + x * h + y] = image.samples[c * n + y * w + x] } }
        }
        return out
    }

    /// Root mean square of the estimated r(y) against the truth, relative.
    static func rowError(_ e: AmbientRatioEstimate, _ truth: [Double]) -> (rms: Double, mean: Double) {
        var s = 0.0
        for (a, b) in zip(e.lineRatios, truth) { s += (Double(a) / b - 1) * (Double(a) / b - 1) }
        let meanTruth = truth.reduce(0, +) / Double(truth.count)
        return ((s / Double(truth.count)).squareRoot(), e.meanRatio / meanTruth - 1)
    }

    /// Steady light and exact EXIF: nothing to correct, and nothing invented.
    @Test("exact EXIF, steady light: r = 1 within 1 %, no banding", arguments: [50.0, 200, 800])
    func exactMetadata(lux: Double) throws {
        let (result, truth) = try Self.fuse(SynthCondition.envelope(lux: lux, cctKelvin: 4000, duv: 0))
        let e = result.ambientRatio
        let err = Self.rowError(e, truth)
        print(String(format: "steady %g lux: r0 %.4f (%@, %d edge gradients, ±%.4f), banding %d, row RMS %.4f",
                     lux, e.baseRatio, e.source.rawValue, e.edgeSampleCount, e.relativeUncertainty, e.banding.count, err.rms))
        #expect(e.banding.isEmpty)
        #expect(e.readoutAxis == .rows)  // no banding on either axis: rows, as read
        #expect(e.rowBandExcessVariance == nil)
        // The scene has a shadow: the edges measure r₀ (better than EXIF's 4 %). Within 1 % from 200
        // lux up; at 50 lux, where the ambient is too dim for that, within 2.5 of its own stated σ.
        #expect(e.source == .illuminationEdges)
        #expect(abs(err.mean) < (lux >= 200 ? 0.01 : 2.5 * e.relativeUncertainty))
        // And that σ says something: well under EXIF's 4 % (0.016 at 50 lux, 0.006 and 0.004 above).
        #expect(e.relativeUncertainty < 0.025)
        // The profiles along the rows and across them agree: none is left out.
        #expect(!e.edgeAcrossLinesRefused && e.uncheckedAcrossLinesVariance == nil)
    }

    /// Fast PWM flicker (480 Hz at 25 % duty through a 20 ms readout, the flash exposure three
    /// whole cycles): the ambient frame's rows carry 9.6 stripes a frame that the flash frame does not,
    /// of a square shape the banding model's sinusoids leave in part. Profiles across such a stripe
    /// read it as an illumination edge with g between 0 and r₀: a review's 600 × 400 render read r₀
    /// 0.72–0.83× EXIF's (truth 1.003) at ±0.3 %, `constantColor` 5.5 ΔE00 off. Along a row both frames'
    /// exposure is one: those profiles are kept, the ones across the rows left out.
    @Test("fast PWM flicker: the ambient frame's stripes are not read as illumination edges, r0 within 1.5 % of the truth",
          arguments: [0.91, 0.0])
    func pulsedStripes(phase: Double) throws {
        let (e, err) = try Self.estimate(lux: 800, flicker: Flicker(frequencyHz: 480, depth: 1, pwmHz: 480, pwmDuty: 0.25, phaseCycles: phase),
                                         seed: 1)
        print(String(format: "PWM 480 Hz, phase %.2f: r0 %.4f ±%.4f (along the rows %.4f, across %.4f, %.1f standard errors apart), mean error %.4f",
                     phase, e.baseRatio, e.relativeUncertainty, e.edgeRatioAlongLines ?? .nan, e.edgeRatioAcrossLines ?? .nan,
                     e.edgeLineOrientationSeparation ?? .nan, err.mean))
        #expect(e.source == .illuminationEdges && e.edgeAcrossLinesRefused)
        #expect(abs(err.mean) < 0.015)
    }

    /// Issue 7 at megapixel sizes: steady light and exact EXIF at 3 MP (2016 × 1512). The rows are
    /// so precise there that a misfit of the flash fall-off passed the banding F-test (1.4 cycles,
    /// 0.5 %) and the fall-off's bend over the edge profiles put r₀ 0.5–0.7 % low at 4σ of its
    /// stated uncertainty. Nothing to correct and nothing invented, and r₀ within 2.5 of its own σ
    /// (the 50 lux case's bound), which must stay informative (well under EXIF's 4 %).
    @Test("3 MP, exact EXIF, steady light: no banding, r0 within 2.5 stated σ")
    func exactMetadataAtThreeMegapixels() throws {
        let (result, truth) = try Self.fuse(SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0),
                                            width: 2016, height: 1512)
        let e = result.ambientRatio
        let err = Self.rowError(e, truth)
        print(String(format: "steady 3 MP: r0 %.4f (%@, %d edge profiles, ±%.4f), banding %@, row RMS %.4f",
                     e.baseRatio, e.source.rawValue, e.edgeSampleCount, e.relativeUncertainty,
                     e.banding.map { String(format: "%.2f c/frame %.4f", $0.cyclesPerFrameHeight, $0.amplitude) }.joined(separator: ", "),
                     err.rms))
        #expect(e.banding.isEmpty)
        #expect(e.source == .illuminationEdges)
        #expect(e.relativeUncertainty < 0.005)
        #expect(abs(err.mean) <= 2.5 * e.relativeUncertainty)
        #expect(abs(err.mean) < 0.01)
    }

    /// EXIF off by a few percent in each frame: r₀ is measured on the shadow's penumbra.
    @Test("EXIF off: r0 within 1 % of the truth", arguments: [
        ExposureFactors(flashTime: 1.03, flashGain: 0.98, ambientTime: 0.96, ambientGain: 1.02),
        ExposureFactors(flashTime: 0.97, flashGain: 0.965, ambientTime: 1.04, ambientGain: 1.03),
    ])
    func exposureError(factors: ExposureFactors) throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 3000, duv: 0)
        c.effects.exposureError = .given(factors)
        let (result, truth) = try Self.fuse(c)
        let e = result.ambientRatio
        let err = Self.rowError(e, truth)
        print(String(format: "EXIF off: true r0 %.4f, estimate %.4f ± %.4f (%d gradients), error %.2f %%",
                     truth[0], e.baseRatio, e.relativeUncertainty, e.edgeSampleCount, 100 * err.mean))
        #expect(e.source == .illuminationEdges)
        #expect(abs(err.mean) < 0.01)
        // The edges' σ is a fraction of EXIF's 4 %: they carry nearly all the weight, and the report says so.
        let edgeWeight = try #require(result.report.exposure.ambientRatio?.edgeWeight)
        #expect(edgeWeight > 0.9 && edgeWeight == e.edgeWeight)
        #expect(try #require(e.edgeRelativeUncertainty) < 0.01)
        // The metadata alone is off by more than that, so the test measures the estimate.
        #expect(abs(truth[0] - 1) > 0.02)
    }

    /// EXIF off by more than the ±40 % the edges search (tags of another capture): the edges' robust
    /// location lies beyond the range; r₀ stays EXIF's but its uncertainty becomes the discrepancy,
    /// so the confidence falls; within the range (25 % off) nothing of that is claimed.
    @Test("EXIF far off (the ambient exposure 2× or ½× EXIF's): said, and counted in the uncertainty; 25 % off: measured as usual",
          arguments: [(2.0, true), (0.5, true), (1.25, false)])
    func exposureFarOff(factor: Double, beyond: Bool) throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0)
        c.effects.exposureError = .given(ExposureFactors(flashTime: 1, flashGain: 1, ambientTime: factor, ambientGain: 1))
        let (result, truth) = try Self.fuse(c)
        let e = result.ambientRatio
        print(String(format: "EXIF ×%.2f: true r0 %.4f, beyond the range %@ (%d profiles), r0 %.4f ± %.4f, confidence %.3f",
                     factor, truth[0], e.edgeRatioBeyondRange.map { String(format: "%.3f", $0) } ?? "-", e.edgeSampleCountBeyondRange,
                     e.baseRatio, e.relativeUncertainty, result.report.centerWeightedMeanConfidence))
        if beyond {
            let far = try #require(e.edgeRatioBeyondRange)
            #expect(abs(far / truth[0] - 1) < 0.02, "the edges' location \(far) against the true r0 \(truth[0])")
            #expect(e.edgeSampleCountBeyondRange >= 40 && e.relativeUncertainty >= abs(far - 1) * 0.99)
            #expect(result.report.exposure.ambientRatio?.edgeRatioBeyondRange == far)
            #expect(result.report.decision == .fallback)
        } else {
            #expect(e.edgeRatioBeyondRange == nil && e.edgeSampleCountBeyondRange == 0)
            #expect(e.source == .illuminationEdges && abs(e.baseRatio / truth[0] - 1) < 0.01)
        }
    }

    /// A 10 lux 2700 K lamp without a cast shadow, EXIF right: borders between materials whose
    /// channels' g agree by chance lie beyond the range in numbers, far above it (a probe's render:
    /// 123 profiles put r₀ at 21.8× EXIF's; five seeds 18.5–21.8×), and before session 50 they were
    /// read as EXIF far off: `fallback` at 0.01–0.04 where EXIF was right and the colours too. Their
    /// ambient channels do not change in proportion, as across a shadow on one material, so they
    /// are left out (and counted); EXIF's ratio stands and the pair is `constantColor`.
    @Test("a 10 lux lamp without a cast shadow, EXIF right: borders between materials are not read as EXIF far off")
    func bordersAreNotEXIFFarOff() throws {
        let c = SynthCondition(name: "no-shadow-10lux", description: "10 lux 2700 K, no cast shadow",
                               lights: [AmbientLight(spectrum: .planckian(cctKelvin: 2700, duv: 0), lux: 10, placement: .uniform)],
                               shadow: false)
        let (result, _) = try Self.fuse(c, width: 600, height: 400, seed: 1)
        let e = result.ambientRatio
        print(String(format: "10 lux 2700 K, no shadow, EXIF right: beyond the range %@ (%d profiles), borders left out %d, uncertainty %.3f, centre-weighted confidence %.3f, %@",
                     e.edgeRatioBeyondRange.map { String(format: "%.2f", $0) } ?? "-", e.edgeSampleCountBeyondRange,
                     e.edgeSampleCountBeyondRangeAtMaterialBorders, e.relativeUncertainty, result.report.centerWeightedMeanConfidence,
                     result.report.decision.rawValue))
        #expect(e.edgeRatioBeyondRange == nil && e.edgeSampleCountBeyondRange == 0)
        #expect(e.edgeSampleCountBeyondRangeAtMaterialBorders >= IlluminationEdgeRatio.minimumSamples)
        #expect(result.report.exposure.ambientRatio?.edgeSampleCountBeyondRangeAtMaterialBorders == e.edgeSampleCountBeyondRangeAtMaterialBorders)
        #expect(abs(e.relativeUncertainty - Double(Confidence.defaultExposureRatioUncertainty)) < 1e-6)
        #expect(result.report.decision == .constantColor)
    }

    /// At 10 lux each illumination-edge profile reads r₀ to 30–45 %. Cut at the searched range one by
    /// one, their distribution was truncated about EXIF's 1 and r₀ came out pulled toward it, by two
    /// thirds of the deviation (EXIF 25 % high or low: 0.92–0.96 for 0.80, 1.01–1.02 for 1.25, at
    /// ±4–8 % stated; noise-free renders 0.79 and 1.22). The profiles now reach into the range by
    /// their own σ (`IlluminationEdgeRatio.withinRange`).
    @Test("10 lux, EXIF 25 % off either way: the edges' r0 is not pulled toward EXIF",
          arguments: [(1.25, UInt64(11)), (1.25, UInt64(12)), (0.8, UInt64(11)), (0.8, UInt64(12))])
    func dimAmbientEdgesAreNotPulledTowardMetadata(factor: Double, seed: UInt64) throws {
        var c = SynthCondition.envelope(lux: 10, cctKelvin: 3000, duv: 0)
        c.effects.exposureError = .given(ExposureFactors(flashTime: 1, flashGain: 1, ambientTime: factor, ambientGain: 1))
        let (result, truth) = try Self.fuse(c, width: 600, height: 400, seed: seed)
        let e = result.ambientRatio
        let edges = try #require(e.edgeRatio), sigma = try #require(e.edgeRelativeUncertainty) * edges
        print(String(format: "10 lux, ambient exposure ×%.2f, seed %d: true r0 %.4f, edges %.4f ± %.4f (%d profiles), r0 %.4f ± %.4f",
                     factor, Int(seed), truth[0], edges, sigma, e.edgeSampleCount, e.baseRatio, e.relativeUncertainty * e.baseRatio))
        #expect(abs(edges - truth[0]) < 2.5 * sigma)
        #expect(abs(edges / truth[0] - 1) < 0.08)
        // What is subtracted says how far it may be off: EXIF taken against the edges that contradict
        // it (the edges' σ above its ±4 %) is as uncertain as the discrepancy.
        #expect(abs(e.baseRatio - truth[0]) < 2.5 * e.relativeUncertainty * e.baseRatio)
    }

    /// Mains flicker through a rolling shutter: the banding is found and removed row by row.
    @Test("flicker banding: the mean ratio within 1 %, the rows' error cut to under 0.4 of EXIF's", arguments: [
        Flicker(frequencyHz: 100, depth: 0.3, phaseCycles: 0.1),
        Flicker(frequencyHz: 120, depth: 0.2, phaseCycles: 0.6),
        Flicker(frequencyHz: 120, depth: 0.25, pwmHz: 1700, pwmDuty: 0.5, phaseCycles: 0.35),
    ])
    func flicker(flicker: Flicker) throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 5000, duv: 0)
        c.effects.flicker = flicker
        let (result, truth) = try Self.fuse(c)
        let (off, _) = try Self.fuse(c, estimate: false)
        let e = result.ambientRatio
        let err = Self.rowError(e, truth), nominal = Self.rowError(off.ambientRatio, truth)
        print(String(format: "flicker %g Hz depth %.2f: %d components %@, row RMS %.4f (EXIF only: %.4f), mean %.4f, stated σ %.4f",
                     flicker.frequencyHz, flicker.depth, e.banding.count,
                     e.banding.map { String(format: "%.2f c/frame %.4f", $0.cyclesPerFrameHeight, $0.amplitude) }.joined(separator: ", "),
                     err.rms, nominal.rms, err.mean, e.relativeUncertainty))
        #expect(!e.banding.isEmpty)
        #expect(e.readoutAxis == .rows)
        #expect(abs(err.mean) < 0.01)
        #expect(err.rms < 0.4 * nominal.rms)
        #expect(err.rms < 2.5 * e.relativeUncertainty)      // the confidence is told about what is left
        #expect(nominal.rms > 0.02)
        #expect(e.rowBandExcessVariance == nil)
        // EXIF's ratio asked for: the banding is left in, but found and counted (it was not: the
        // stated σ was EXIF's 4 % against row errors of up to 20 %).
        #expect(!off.ambientRatio.uncompensatedBanding.isEmpty && off.ambientRatio.lineRatios.allSatisfy { $0 == 1 })
        #expect(nominal.rms < 1.5 * off.ambientRatio.relativeUncertainty, "\(nominal.rms) against \(off.ambientRatio.relativeUncertainty)")
    }

    /// PWM at 100 Hz and 10 % duty through a 20 ms readout: each row of the 12.5 ms flash exposure
    /// catches one pulse or two, so r jumps between about 0.8 and 1.65 of its mean in square bands.
    /// The banding fit's robust weights threw out the few rows where it jumps (all their pixels
    /// misfit at once) and found nothing, or a 2.5 % component at 9.9 cycles; r₀ then came from one
    /// band of rows, 27–31 % off at 0.9 % stated (a review's renders, `constantColor` 3.5–5.2 ΔE00
    /// off). The row-centred second look (`RowBandingFit.fit`) finds the banding, and the stated σ
    /// covers the rows' error that its sinusoids leave.
    @Test("PWM at 100 Hz and 10 % duty: the square banding is found, and the stated σ covers the rows' error", arguments: [0.85, 0.3])
    func squarePulses(phase: Double) throws {
        let (e, err) = try Self.estimate(lux: 200, flicker: Flicker(frequencyHz: 100, depth: 1, pwmHz: 100, pwmDuty: 0.1, phaseCycles: phase),
                                         seed: 4)
        print(String(format: "PWM 100 Hz 10 %%, phase %.2f: %@, row RMS %.4f, stated σ %.4f", phase,
                     e.banding.map { String(format: "%.2f c/frame %.4f", $0.cyclesPerFrameHeight, $0.amplitude) }.joined(separator: ", "),
                     err.rms, e.relativeUncertainty))
        #expect(e.banding.contains { $0.amplitude >= 0.02 })  // (RowBandingFit.rowCentredMinimumAmplitude)
        #expect(err.rms < 2 * e.relativeUncertainty)
    }

    /// Stage 4a's estimate on a 600 × 400 render of the envelope's 5000 K condition at `lux` under
    /// `flicker`, and its rows' error against the truth (`rowError`).
    static func estimate(lux: Double, flicker: Flicker, seed: UInt64) throws -> (AmbientRatioEstimate, (rms: Double, mean: Double)) {
        var c = SynthCondition.envelope(lux: lux, cctKelvin: 5000, duv: 0)
        c.effects.flicker = flicker
        let (result, truth) = try fuse(c, width: 600, height: 400, seed: seed)
        return (result.ambientRatio, rowError(result.ambientRatio, truth))
    }

    /// The same flicker in frames stored turned (a portrait capture that the raw converter turned
    /// upright): the rolling shutter's lines are the stored columns, and a fit of the rows alone
    /// found nothing to remove (on the hard fixtures' Nikon set turned by 90°: repeatability 0.135 →
    /// 1.52 ΔE00, variance reduction 99.9 → 73 %). The banding is found along the columns and
    /// removed column by column, as well as along the rows of the frame as read out (the bounds of
    /// the test above); the report says which axis.
    @Test("flicker banding in frames stored turned: found along the columns and removed column by column", arguments: [
        Flicker(frequencyHz: 100, depth: 0.3, phaseCycles: 0.1),
        Flicker(frequencyHz: 120, depth: 0.25, pwmHz: 1700, pwmDuty: 0.5, phaseCycles: 0.35),
    ])
    func flickerAlongColumns(flicker: Flicker) throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 5000, duv: 0)
        c.effects.flicker = flicker
        let (result, truth) = try Self.fuse(c, turned: true)
        let (off, _) = try Self.fuse(c, estimate: false, turned: true)
        let e = result.ambientRatio
        let err = Self.rowError(e, truth), nominal = Self.rowError(off.ambientRatio, truth)
        print(String(format: "flicker %g Hz depth %.2f, frames turned: %@ readout, %d components %@, column RMS %.4f (EXIF only: %.4f), mean %.4f, stated σ %.4f",
                     flicker.frequencyHz, flicker.depth, e.readoutAxis.rawValue, e.banding.count,
                     e.banding.map { String(format: "%.2f c/frame %.4f", $0.cyclesPerFrameHeight, $0.amplitude) }.joined(separator: ", "),
                     err.rms, nominal.rms, err.mean, e.relativeUncertainty))
        #expect(e.readoutAxis == .columns)
        #expect(result.report.exposure.ambientRatio?.readoutAxis == .columns)
        #expect(e.lineRatios.count == 240)  // the stored frame's width, the sensor's rows
        #expect(!e.banding.isEmpty)
        #expect(abs(err.mean) < 0.01)
        #expect(err.rms < 0.4 * nominal.rms)
        #expect(err.rms < 2.5 * e.relativeUncertainty)
        #expect(nominal.rms > 0.02)
        #expect(e.rowBandExcessVariance == nil)
    }

    /// Planckian light of `white` K and `lux`, and an LED spot (`peakNm`, `halfWidthNm`) of `spotLux`
    /// centred at (`x`, `y`) of the frame, σ `sigma`.
    static func spotCondition(white: Double, lux: Double, peakNm: Double, halfWidthNm: Double, spotLux: Double,
                              x: Double, y: Double, sigma: Double) -> SynthCondition {
        SynthCondition(name: "spot", description: "\(lux) lux \(white) K plus a \(peakNm) nm LED spot of \(spotLux) lux.",
                       lights: [AmbientLight(spectrum: .planckian(cctKelvin: white, duv: 0), lux: lux),
                                AmbientLight(spectrum: .narrowBand(peakNm: peakNm, halfWidthNm: halfWidthNm), lux: spotLux,
                                             placement: .spot(centerX: x, centerY: y, sigma: sigma))])
    }

    /// A coloured spot light beside steady white light (a lamp's pool, a coloured LED): the ambient
    /// light varies across the frame in a way no smooth field fits, and it is not banding. The fit
    /// of Q = F/A's changes read the spot as a 1.4-cycle banding of about 12 % (r₀ 11–16 % off with
    /// about 1 % stated; 3–6 % of the confident pixels more than 3 ΔE00 off), and with EXIF's ratio
    /// 15–20 % off as well the changes of F − r̄·A kept that structure until r̄ was the edges' r₀.
    @Test("a coloured spot light, steady, EXIF exact or off: no banding invented, r0 within 1 %",
          arguments: [1.0, 1.15, 0.87])
    func colouredSpotIsNotBanding(ambientTimeFactor: Double) throws {
        var c = Self.spotCondition(white: 4000, lux: 150, peakNm: 525, halfWidthNm: 15, spotLux: 120, x: 0.3, y: 0.5, sigma: 0.18)
        c.effects.exposureError = .given(ExposureFactors(flashTime: 1, flashGain: 1, ambientTime: ambientTimeFactor, ambientGain: 1))
        let (result, truth) = try Self.fuse(c)
        let e = result.ambientRatio
        let err = Self.rowError(e, truth)
        print(String(format: "green spot, ambient time ×%.2f: r0 %.4f (truth %.4f, %@, ±%.4f), banding %d, row RMS %.4f",
                     ambientTimeFactor, e.baseRatio, truth[0], e.source.rawValue, e.relativeUncertainty, e.banding.count, err.rms))
        #expect(e.banding.isEmpty)
        #expect(e.source == .illuminationEdges)
        #expect(abs(err.mean) < 0.01)
        #expect(err.rms < 0.01)
    }

    /// A saturated blue spot near the top of the frame under 100 Hz flicker: the ambient light
    /// changes down the frame, and the banding times that change is part of the rows' changes
    /// (`RowBandingFit.fit`'s correction of d). Without the correction the rows' RMS error was
    /// 0.20–0.24 of EXIF's (2.04–2.09 cycles for 2.00; 8–11 % of the confident pixels more than
    /// 3 ΔE00 off), with it 0.10–0.15 (1–4 %; what is left is not explained yet).
    @Test("a blue spot near the top under 100 Hz flicker: the rows' error under 0.18 of EXIF's (RMS over three renders)")
    func spotNearTheTopUnderFlicker() throws {
        var c = Self.spotCondition(white: 3000, lux: 60, peakNm: 450, halfWidthNm: 12, spotLux: 150, x: 0.5, y: 0.2, sigma: 0.3)
        c.effects.flicker = Flicker(frequencyHz: 100, depth: 0.4, phaseCycles: 0.6)
        var ratio2 = 0.0
        for seed: UInt64 in [11, 12, 13] {
            let (result, truth) = try Self.fuse(c, seed: seed)
            let (off, _) = try Self.fuse(c, seed: seed, estimate: false)
            let e = result.ambientRatio
            let err = Self.rowError(e, truth), nominal = Self.rowError(off.ambientRatio, truth)
            print(String(format: "blue spot at the top, 100 Hz, seed %d: %@, row RMS %.4f (EXIF only %.4f), mean %.4f, stated σ %.4f",
                         seed, e.banding.map { String(format: "%.2f c/frame %.4f", $0.cyclesPerFrameHeight, $0.amplitude) }.joined(separator: ", "),
                         err.rms, nominal.rms, err.mean, e.relativeUncertainty))
            #expect(!e.banding.isEmpty && e.channelScale == SIMD3(1, 1, 1))
            ratio2 += (err.rms / nominal.rms) * (err.rms / nominal.rms)
        }
        #expect((ratio2 / 3).squareRoot() < 0.18)
    }

    /// Under 100 Hz through an 8 ms readout the banding is 0.8 cycles per frame, and beside a blue
    /// spot near the top the fitted sinusoid left the rows 0.8–1.3 % RMS off (up to 3.3 % at the
    /// frame's ends) with 0.3–0.4 % stated; 1–15 % of the confident pixels were more than 3 ΔE00
    /// off. The illumination edges, measured band by band of rows, disagree there
    /// (`AmbientRatioEstimate.rowBandExcess`), and the disagreement is counted in the stated σ.
    /// Before it the rows' error was 1.9–3.8 stated σ on these renders (RMS 2.8).
    @Test("slow flicker beside a spot near the top: the bands of edges disagree, and the stated σ covers the rows' error")
    func slowFlickerBesideASpot() throws {
        var c = Self.spotCondition(white: 3000, lux: 60, peakNm: 450, halfWidthNm: 12, spotLux: 150, x: 0.5, y: 0.2, sigma: 0.3)
        c.effects.flicker = Flicker(frequencyHz: 100, depth: 0.4, frameReadoutSeconds: 0.008)
        var z2 = 0.0
        let seeds: [UInt64] = [1, 2, 3]
        for seed in seeds {
            let (result, truth) = try Self.fuse(c, width: 600, height: 400, seed: seed)
            let e = result.ambientRatio
            let err = Self.rowError(e, truth)
            let z = err.rms / e.relativeUncertainty
            z2 += z * z
            print(String(format: "slow flicker, spot at the top, seed %d: %@, bands %@, row RMS %.4f, stated σ %.4f (%.2f σ), band excess %@",
                         seed, e.banding.map { String(format: "%.2f c/frame %.4f", $0.cyclesPerFrameHeight, $0.amplitude) }.joined(separator: ", "),
                         e.edgeRatioByRowBand.map { $0.map { String(format: "%.4f", $0) } ?? "-" }.joined(separator: " "),
                         err.rms, e.relativeUncertainty, z, e.rowBandExcessVariance.map { String(format: "%.4f", $0.squareRoot()) } ?? "none"))
            #expect(e.rowBandExcessVariance != nil)
        }
        #expect((z2 / Double(seeds.count)).squareRoot() < 1.5)
    }

    /// The green spot of `colouredSpotIsNotBanding` under 100 Hz flicker with the ambient exposure
    /// 15 % longer than EXIF's, at 600 × 400: the edges read a channel scale (1.73, 1, 4.97) from
    /// 40 profiles, with which no illumination edge agreed any more (326 without it); it was
    /// applied, EXIF's ratio was kept (13 % off) and `fuse` warned of a white balance mismatch.
    @Test("a spot under flicker with EXIF off: no channel scale the edges do not bear out, r0 within 1 %")
    func channelScaleMustKeepTheEdges() throws {
        var c = Self.spotCondition(white: 4000, lux: 150, peakNm: 525, halfWidthNm: 15, spotLux: 120, x: 0.3, y: 0.5, sigma: 0.18)
        c.effects.flicker = Flicker(frequencyHz: 100, depth: 0.3)
        c.effects.exposureError = .given(ExposureFactors(flashTime: 1, flashGain: 1, ambientTime: 1.15, ambientGain: 1))
        let (result, truth) = try Self.fuse(c, width: 600, height: 400, seed: 1)
        let e = result.ambientRatio
        let err = Self.rowError(e, truth)
        print(String(format: "spot, flicker, EXIF off: channel scale (%.3f, %.3f, %.3f), measured %@, %@, mean error %.4f, stated σ %.4f",
                     e.channelScale.x, e.channelScale.y, e.channelScale.z, e.measuredChannelScale.map { "\($0)" } ?? "none",
                     e.source.rawValue, err.mean, e.relativeUncertainty))
        #expect(e.channelScale == SIMD3(1, 1, 1))
        #expect(e.source == .illuminationEdges)
        #expect(abs(err.mean) < 0.01)
    }

    /// Flicker at megapixel sizes: the rows are precise enough there that what the banding model
    /// leaves out dominates. The fall-off regressor P = F/A − 1 held the banding itself, the
    /// frequency's own uncertainty was not in the stated σ, and the fall-off's dependence on the
    /// column leaked into the banding (all fixed). The stated σ is checked as a calibration, over five
    /// renders that differ in their noise: the rows' error in units of σ must have an RMS within 2
    /// (it was 2.8 on one render at 3 MP, 0.27 % of it r₀'s from the illumination edges), and σ must
    /// stay informative (well under EXIF's 4 %).
    @Test("megapixel flicker: the rows' error within 2 stated σ (RMS over five renders)", arguments: [[1200, 800], [2016, 1512]])
    func flickerAtMegapixelSizes(size: [Int]) throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 5000, duv: 0)
        c.effects.flicker = Flicker(frequencyHz: 100, depth: 0.3, phaseCycles: 0.1)
        var z2 = 0.0
        let seeds: [UInt64] = [11, 12, 13, 14, 15]
        for seed in seeds {
            let (result, truth) = try Self.fuse(c, width: size[0], height: size[1], seed: seed)
            let e = result.ambientRatio
            let err = Self.rowError(e, truth)
            let z = err.rms / e.relativeUncertainty
            z2 += z * z
            print(String(format: "flicker 100 Hz %dx%d seed %d: %@, row RMS %.4f, mean %.4f, stated σ %.4f (RMS/σ %.2f)",
                         size[0], size[1], seed,
                         e.banding.map { String(format: "%.3f c/frame %.4f", $0.cyclesPerFrameHeight, $0.amplitude) }.joined(separator: ", "),
                         err.rms, err.mean, e.relativeUncertainty, z))
            #expect(e.banding.count == 1)
            #expect(abs(err.mean) < 0.01)
            #expect(e.relativeUncertainty < 0.005)
        }
        let rmsZ = (z2 / Double(seeds.count)).squareRoot()
        print(String(format: "flicker 100 Hz %dx%d: RMS of row error / stated σ over %d renders %.2f", size[0], size[1], seeds.count, rmsZ))
        #expect(rmsZ <= 2)
    }

    /// Hand shake blurs the long ambient exposure and not the flash frame: across a penumbra the
    /// flash frame's ambient part is sharper than `A`, and the regression of its bend on `A`'s
    /// overshoots as the blur's variance (r₀ +1.4 % at L = 4, +2.5 % at 6 px before the blur was
    /// matched). The extra blur is measured on the pair's edges (`RelativeBlur`) and given to the flash
    /// frame first. Steady light and exact EXIF, so only r₀ is measured; the path's variance along
    /// its axis is L²/12·17/15 (16 equally spaced samples), on the other axis 0, plus the resampling's.
    @Test("hand shake in the ambient frame: r0 within 1 % of the truth, the blur measured", arguments: [(4.0, 0.0), (6.0, 0.0), (6.0, 90.0)])
    func handShake(lengthPx: Double, angleDegrees: Double) throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0)
        c.effects.handShake = HandShake(lengthPx: lengthPx, angleDegrees: angleDegrees)
        let (result, truth) = try Self.fuse(c, width: 600, height: 400)
        let e = result.ambientRatio
        let err = Self.rowError(e, truth)
        let blur = try #require(e.ambientBlurVariance)
        let along = angleDegrees == 0 ? blur.x : blur.y, across = angleDegrees == 0 ? blur.y : blur.x
        let path = lengthPx * lengthPx / 12 * 17 / 15
        print(String(format: "shake %.0f px at %.0f°: r0 %.4f (%@, %d edge profiles, ±%.4f), error %.2f %%, blur %.2f px² along (path %.2f), %.2f across",
                     lengthPx, angleDegrees, e.baseRatio, e.source.rawValue, e.edgeSampleCount, e.relativeUncertainty,
                     100 * err.mean, along, path, across))
        #expect(e.source == .illuminationEdges)
        #expect(abs(err.mean) < 0.01)
        // The blur along the path is found within 35 % (the resampling adds up to 0.25 px²), across it stays small.
        #expect(abs(along - path) < 0.35 * path)
        #expect(abs(across) < 0.5)
    }

    /// No ambient edge to measure on (no shadow, no gradient): the metadata is kept and said to be.
    @Test func withoutIlluminationEdgesTheMetadataIsKept() throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0)
        c.shadow = false; c.gradient = 0
        let (result, _) = try Self.fuse(c)
        let e = result.ambientRatio
        print("no ambient edge: source \(e.source.rawValue), \(e.edgeSampleCount) profiles, r0 \(e.baseRatio)")
        #expect(e.source == .metadata)
        #expect(e.baseRatio == 1 && e.edgeSampleCount == 0)
        #expect(e.edgeRatio == nil && e.edgeRelativeUncertainty == nil && e.edgeWeight == 0)
        #expect(abs(e.relativeUncertainty - Double(Confidence.defaultExposureRatioUncertainty)) < 1e-6)
        #expect(result.report.exposure.ambientRatio?.source == .metadata)
        #expect(result.report.exposure.estimatedAmbientToFlashRatio == result.report.exposure.ambientToFlashRatio)
        #expect(e.edgeMisfitScale == nil && result.report.exposure.ambientRatio?.edgeMisfitScale == nil)
    }

    /// A lamp that casts no shadow on the chart (diffuse light, a flat product or document): no
    /// illumination edge, only reflectance edges. Read by green alone, those between patches of one
    /// green passed as edges whose channels disagree: "only 0–2 % of the ambient shadow edges
    /// vanish" (a lamp switched, every channel's ratio counted 50–690 % off, confidence 0.003–0.1,
    /// a probe's 600 × 400 renders 0.002–0.006), and from a lamp on the left a coarse channel scale
    /// (2.9, 1, 8.4) that turned the neutral background green at confidence 0.8–0.9 (16 % of the
    /// confident pixels > 3 ΔE00 off). Now no profile counts, EXIF's ratio stands and nothing is
    /// scaled.
    @Test("a lamp without a cast shadow, uniform or from the left: its reflectance edges are neither an ambient light that changed colour nor a channel scale",
          arguments: [LightPlacement.uniform, .left])
    func lampWithoutCastShadow(placement: LightPlacement) throws {
        let c = SynthCondition(name: "no-shadow", description: "200 lux 3000 K, no cast shadow",
                               lights: [AmbientLight(spectrum: .planckian(cctKelvin: 3000, duv: 0), lux: 200, placement: placement)],
                               shadow: false)
        let (result, truth) = try Self.fuse(c, width: 600, height: 400, seed: 1)
        let e = result.ambientRatio
        print(String(format: "no cast shadow, %@: source %@, agreement %@, colour change %@, scale %@, coarse %@, centre-weighted confidence %.3f",
                     "\(placement)", e.source.rawValue, "\(e.edgeChannelAgreement.map { String($0) } ?? "-")", "\(e.ambientColourChangeError.map { "\($0)" } ?? "-")",
                     "\(e.channelScale)", "\(e.coarseChannelScale.map { "\($0)" } ?? "-")", result.report.centerWeightedMeanConfidence))
        #expect(e.ambientColourChangeError == nil)
        #expect(e.channelScale == SIMD3(1, 1, 1) && e.coarseChannelScale == nil)
        #expect(abs(e.meanRatio / truth[0] - 1) < 0.01)
        #expect(result.report.centerWeightedMeanConfidence > 0.8)
    }

    /// A blue LED's light (460 nm, 300 lux) with its cast shadow, on the Sigma. Blue, the ambient
    /// light's own channel, has Q near the ratio (1.3–1.5), so a shadow edge reads in blue as a
    /// reflectance edge nearly would; red tells. Asking blue alone took 442 of the 826 profiles,
    /// all shadow edges that agree, and what was left read red's weak, biased g as a colour change
    /// (confidence 0.453 → 0.033). (The Nikon render of the same light still reads one, as it did
    /// before session 36: 0.30 of its profiles agree; findings, session 36.)
    @Test("a 460 nm LED's light with its cast shadow, Sigma: no colour change is read")
    func blueLEDLightIsNotAColourChange() throws {
        let c = SynthCondition(name: "led-460", description: "300 lux of a 460 nm LED",
                               lights: [AmbientLight(spectrum: .narrowBand(peakNm: 460, halfWidthNm: 25), lux: 300)])
        let (result, truth) = try Self.fuseSigma(c)
        let e = result.ambientRatio
        print(String(format: "460 nm LED, Sigma: agreement %@, colour change %@, r0 %.4f (truth %.4f), centre-weighted confidence %.3f",
                     "\(e.edgeChannelAgreement.map { String(format: "%.3f", $0) } ?? "-")", "\(e.ambientColourChangeError.map { "\($0)" } ?? "-")",
                     e.meanRatio, truth[0], result.report.centerWeightedMeanConfidence))
        #expect(e.ambientColourChangeError == nil && (e.edgeChannelAgreement ?? 0) > 0.5)
        #expect(abs(e.meanRatio / truth[0] - 1) < 0.01)
    }

    /// A 2700 K lamp without a cast shadow, on the Sigma, EXIF right, the frames' light unchanged: the
    /// borders between materials that pass green's edge test read each channel's own ratio, and
    /// before session 50 only 5–18 % of them "agreed": a colour change of the ambient light was read
    /// (red and blue 34–152 % off) and the confidence was 0.000 on three seeds where the colours
    /// were right. Across a border the ambient frame's channels do not change in proportion, so
    /// such profiles say nothing of the channels' ratios: no change is read (confidence 0.72).
    @Test("a warm lamp without a cast shadow, Sigma: borders between materials are no colour change of the ambient light")
    func bordersAreNoColourChange() throws {
        let c = SynthCondition(name: "no-shadow", description: "200 lux 2700 K, no cast shadow",
                               lights: [AmbientLight(spectrum: .planckian(cctKelvin: 2700, duv: 0), lux: 200, placement: .uniform)],
                               shadow: false)
        let (result, _) = try Self.fuseSigma(c)
        let e = result.ambientRatio
        print(String(format: "2700 K, no shadow, Sigma: agreement %@, colour change %@, centre-weighted confidence %.3f",
                     "\(e.edgeChannelAgreement.map { String(format: "%.3f", $0) } ?? "-")", "\(e.ambientColourChangeError.map { "\($0)" } ?? "-")",
                     result.report.centerWeightedMeanConfidence))
        #expect(e.ambientColourChangeError == nil)
        #expect(e.channelScale == SIMD3(1, 1, 1))
        #expect(result.report.centerWeightedMeanConfidence > 0.5)
    }

    /// The same light on the Nikon with the ambient frame's blue developed at 0.625 of the flash
    /// frame's (blue × 1.6 between the frames): the shadow edges measure the scale. A review found a
    /// test of each channel's Q against green's g (not scale-free) leave every shadow edge out here:
    /// no scale, 63 ΔE00 at confidence 0.76, nothing said.
    @Test("a 460 nm LED's light, the ambient frame's blue developed ×0.625: the channel scale is measured")
    func channelScaleUnderBlueLight() throws {
        let c = SynthCondition(name: "led-460", description: "300 lux of a 460 nm LED",
                               lights: [AmbientLight(spectrum: .narrowBand(peakNm: 460, halfWidthNm: 25), lux: 300)])
        let black = Float(Self.camera.blackLevel)
        let (result, _) = try Self.fuse(c, width: 600, height: 400, seed: 1) { image in
            let n = image.width * image.height
            for i in (2 * n)..<(3 * n) { image.samples[i] = (black + (image.samples[i] - black) * 0.625).rounded() }
        }
        let e = result.ambientRatio
        let blue = e.channelScale.z != 1 ? e.channelScale.z : e.coarseChannelScale?.z ?? 1
        print(String(format: "460 nm LED, blue ×0.625: scale %@, coarse %@, centre-weighted confidence %.3f",
                     "\(e.channelScale)", "\(e.coarseChannelScale.map { "\($0)" } ?? "-")", result.report.centerWeightedMeanConfidence))
        #expect(abs(blue / 1.6 - 1) < 0.05)
    }

    /// The edge profiles' misfit tells a noise model that fits the frames from one that understates
    /// their noise: the renderer's own model gives a median misfit near 1, the same model with a
    /// quarter of the variance (the gain ×4, the read noise ÷2) about 4, past the limit at which
    /// `fuse` warns.
    @Test("edge misfit scale: about 1 with the true noise model, about 4 with a quarter of its variance")
    func misfitScaleReadsTheNoiseModel() throws {
        let c = SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0)
        var understated = Self.camera
        understated.noise.gainElectronsPerDN *= 4; understated.noise.readNoiseDN /= 2
        let (right, _) = try Self.fuse(c)
        let (wrong, _) = try Self.fuse(c, camera: understated)
        let a = try #require(right.ambientRatio.edgeMisfitScale), b = try #require(wrong.ambientRatio.edgeMisfitScale)
        print(String(format: "edge misfit scale: true noise model %.3f, a quarter of its variance %.3f", a, b))
        #expect(a > 0.7 && a < 1.35)
        #expect(b > 3 && b < 5.5)
        #expect(a < AmbientRatioEstimate.understatedNoiseMisfitScale && b > AmbientRatioEstimate.understatedNoiseMisfitScale)
        #expect(right.report.exposure.ambientRatio?.edgeMisfitScale == a)
    }

    /// The reduced pair's block: `targetRows` across the short side, and for a long strip larger
    /// blocks until the cells fit in `maximumCells`, keeping at least 32 across the short side.
    @Test("the reduced pair's block side: the frames the pipeline was measured on keep theirs; a long strip's cells stay within the bound (8000 × 256 kept 2 million: stage 4a took 18 s and 1.5 GB)")
    func reducedPairBlockSide() {
        for (w, h, k) in [(4032, 3024, 15), (2016, 1512, 7), (600, 400, 2), (324, 216, 1), (1200, 800, 4), (12000, 2000, 10),
                          (3024, 4032, 15), (8000, 256, 3), (256, 8000, 3), (20000, 320, 6), (16000, 64, 2), (40, 12000, 1), (8000, 1024, 6)] {
            let side = ReducedFramePair.blockSide(width: w, height: h)
            #expect(side == k, "\(w)x\(h): \(side)")
            #expect((w / side) * (h / side) <= ReducedFramePair.maximumCells || min(w, h) / side < 2 * ReducedFramePair.minimumShortSideCells,
                    "\(w)x\(h): \((w / side) * (h / side)) cells")
        }
    }

    /// A strip cut from a well-measured scene (a 2016 × 192 slice of a 3 MP render, whose reduced
    /// pair held 387 072 cells and now 96 768): the ratio from its edges within its stated
    /// uncertainty of the truth, and not read beyond the searched range. (The same cut from a 48 MP
    /// render, 8000 × 256, read 143 edges at 2.15× EXIF's, said the tags were far off and took 14 s.)
    @Test("a strip cut from a scene: the edges' ratio within its stated uncertainty, none beyond the searched range")
    func stripOfAScene() throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0)
        c.effects.exposureError = .given(ExposureFactors(flashTime: 1.02, flashGain: 1.01, ambientTime: 0.97, ambientGain: 0.99))
        let cap = try nikonRenderer(Self.lib).render(c, width: 2016, height: 1512, seed: 5, options: RenderOptions())
        func slice(_ image: PlanarImage) -> PlanarImage {
            var out = PlanarImage(width: image.width, height: 192, channelCount: 3)
            for ch in 0..<3 { for y in 0..<192 { for x in 0..<image.width { out[x, y, ch] = image[x, 660 + y, ch] } } }
            return out
        }
        let result = try FusionPipeline.run(
            flash: RawFrame(image: slice(cap.flash.image), exposure: cap.flash.exposure, name: "flash"),
            ambient: RawFrame(image: slice(cap.ambient!.image), exposure: cap.ambient!.exposure, name: "ambient"),
            camera: Self.camera, flashProfile: Self.flash)
        let e = result.ambientRatio
        let truth = Self.trueRows(cap)[660 + 96]
        print(String(format: "2016 x 192 slice: r0 %.4f ± %.4f (%@, %d edges), truth %.4f", e.baseRatio, e.relativeUncertainty,
                     e.source.rawValue, e.edgeSampleCount, truth))
        #expect(e.source == .illuminationEdges && e.edgeRatioBeyondRange == nil)
        #expect(abs(e.baseRatio / truth - 1) <= 2 * e.relativeUncertainty, "\(e.baseRatio) against \(truth), ± \(e.relativeUncertainty)")
    }

    /// A frame far longer than wide (a receipt, a document strip: 40 × 12 000 pixels, 12 000
    /// reduced rows) under 100 Hz flicker. The banding scan tried every frequency up to one cycle per
    /// six rows over every row, so its cost grew with the square of the frame's length (a 32 × 12 000
    /// pair took 87 s in `fuse`); up to `RowBandingFit.highestCycles` it grows linearly (4.7 s).
    @Test("a 40 × 12 000 frame under flicker is fused in seconds, not minutes: the banding scan's cost grows with the frame's length, not with its square")
    func longFrameIsScannedInLinearTime() throws {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 5000, duv: 0)
        c.effects.flicker = Flicker(frequencyHz: 100, depth: 0.3, phaseCycles: 0.1)
        let start = ContinuousClock.now
        let (result, truth) = try Self.fuse(c, width: 40, height: 12_000)
        let elapsed = (ContinuousClock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let e = result.ambientRatio
        print(String(format: "40 x 12000: %.1f s, r0 %.4f (%@), banding %d along %@, truth's r0 %.4f", seconds, e.baseRatio,
                     e.source.rawValue, e.banding.count, e.readoutAxis.rawValue, truth.reduce(0, +) / Double(truth.count)))
        #expect(seconds < 30, "\(seconds) s")
        // (The banding is read along the 40 columns here, not the 12 000 rows it is in: a frame this
        // narrow is not one the readout-axis comparison was made for; the findings, session 41.)
        #expect(e.source == .illuminationEdges && !e.banding.isEmpty && e.lineRatios.allSatisfy { $0.isFinite && $0 > 0 })
    }
}
