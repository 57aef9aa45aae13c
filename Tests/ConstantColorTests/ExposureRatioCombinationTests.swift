import Foundation
import Testing
import TestSupport
@testable import ConstantColor

/// Stage 4a's `r₀` from EXIF and the illumination edges, two independent measurements, weighted by
/// their precisions (`AmbientRatioEstimate.combined`).
@Suite("Exposure ratio: EXIF and the edges weighted by their precisions")
struct ExposureRatioCombinationTests {
    /// Hand-computed: variances 0.04² and 0.03², weights 0.64 / 0.36.
    @Test func knownAnswer() {
        let c = AmbientRatioEstimate.combined(metadataUncertainty: 0.04, edgeRatio: 1.03, edgeStandardError: 0.03)
        #expect(abs(c.edgeWeight - 0.64) < 1e-12)
        #expect(abs(c.ratio - 1.0192) < 1e-12)
        #expect(abs(c.relativeUncertainty - 0.024 / 1.0192) < 1e-12)
    }

    /// An exact EXIF keeps all the weight, exact edges take it all; nothing divides by zero.
    @Test func exactSourcesTakeAllTheWeight() {
        let exif = AmbientRatioEstimate.combined(metadataUncertainty: 0, edgeRatio: 1.1, edgeStandardError: 0.01)
        #expect(exif.ratio == 1 && exif.edgeWeight == 0 && exif.relativeUncertainty == 0)
        let edges = AmbientRatioEstimate.combined(metadataUncertainty: 0.04, edgeRatio: 1.1, edgeStandardError: 0)
        #expect(abs(edges.ratio - 1.1) < 1e-12 && edges.edgeWeight == 1 && edges.relativeUncertainty == 0)
        let both = AmbientRatioEstimate.combined(metadataUncertainty: 0, edgeRatio: 1.1, edgeStandardError: 0)
        // Both exact (no variance to weigh by): EXIF's, as stated, with nothing uncertain.
        #expect(both.ratio == 1 && both.relativeUncertainty == 0 && both.edgeWeight == 0)
    }

    /// EXIF and edges that disagree beyond the 99 % level are not averaged: the more precise is taken;
    /// EXIF taken so is as uncertain as the discrepancy at least.
    @Test func disagreeingSourcesAreNotAveraged() {
        // 12 % apart, 0.04 and 0.006 standard errors: 3.0 σ of the difference.
        let edges = AmbientRatioEstimate.combined(metadataUncertainty: 0.04, edgeRatio: 0.88, edgeStandardError: 0.006)
        #expect(edges.ratio == 0.88 && edges.edgeWeight == 1 && abs(edges.relativeUncertainty - 0.006 / 0.88) < 1e-15)
        let exif = AmbientRatioEstimate.combined(metadataUncertainty: 0.04, edgeRatio: 1.3, edgeStandardError: 0.08)
        #expect(exif.ratio == 1 && exif.edgeWeight == 0 && abs(exif.relativeUncertainty - 0.3) < 1e-12)
        // Just inside the level: averaged.
        let inside = AmbientRatioEstimate.combined(metadataUncertainty: 0.04, edgeRatio: 0.9, edgeStandardError: 0.006)
        #expect(inside.edgeWeight > 0.97 && inside.edgeWeight < 1 && inside.ratio > 0.9)
    }

    /// Monte Carlo: the true r₀ scatters about EXIF's 1 by σ_m, the edges measure it with σ_e. Where
    /// the two agree (99 % of draws, by construction of the test), the weighted mean's stated
    /// uncertainty is its RMS error (a wrong weight would give a larger error than stated; for
    /// normal errors the weighted mean's error is independent of the difference, so selecting on
    /// agreement does not bias it); over all draws, the 1 % that disagree included, the error is
    /// below either source's.
    @Test("the combination's error is below either source's and, where they agree, equals its stated σ",
          arguments: [(0.04, 0.01), (0.04, 0.04), (0.02, 0.06)])
    func combinationIsTheBetterEstimate(exif: Double, edges: Double) {
        var rng = SplitMix64(seed: 7)
        func uniform() -> Double { (Double(rng.next() >> 11) + 0.5) * 0x1.0p-53 }
        func normal() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform()) }
        let draws = 200_000, limit = AmbientRatioEstimate.compatibilityLimit * (exif * exif + edges * edges).squareRoot()
        var squared = 0.0, edgeSquared = 0.0, agreeingSquared = 0.0, stated = 0.0, agreeing = 0
        for _ in 0..<draws {
            let truth = 1 + exif * normal(), measured = truth + edges * normal()
            let c = AmbientRatioEstimate.combined(metadataUncertainty: exif, edgeRatio: measured, edgeStandardError: edges)
            let e2 = (c.ratio - truth) * (c.ratio - truth)
            squared += e2
            edgeSquared += (measured - truth) * (measured - truth)
            if abs(measured - 1) <= limit {
                agreeing += 1; agreeingSquared += e2; stated += c.relativeUncertainty * c.ratio
            }
        }
        let rms = (squared / Double(draws)).squareRoot(), edgeRMS = (edgeSquared / Double(draws)).squareRoot()
        let agreeingRMS = (agreeingSquared / Double(agreeing)).squareRoot(), sigma = stated / Double(agreeing)
        let disagreeing = 1 - Double(agreeing) / Double(draws)
        print(String(format: "EXIF ±%.2f, edges ±%.2f: %.2f %% disagree; where they agree RMS error %.5f, stated %.5f; all draws %.5f; edges alone %.5f",
                     exif, edges, 100 * disagreeing, agreeingRMS, sigma, rms, edgeRMS))
        #expect(abs(disagreeing - 0.01) < 0.001)
        #expect(abs(agreeingRMS / sigma - 1) < 0.01)
        #expect(rms < 0.99 * min(exif, edgeRMS))
    }
}

/// A library caller's exposure-ratio uncertainty is checked before any work: a negative or NaN one
/// would make the weights meaningless (a NaN made EXIF look exact).
@Suite("Exposure ratio uncertainty option")
struct ExposureRatioUncertaintyOptionTests {
    @Test("negative, NaN or infinite: FusionError, said in one line", arguments: [Float(-0.01), .nan, .infinity])
    func invalidUncertaintyIsRefused(value: Float) {
        let exposure = ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2.8, isoSpeed: 100)
        let image = PlanarImage(width: 32, height: 32, channelCount: 3, repeating: 1000)
        var options = FusionOptions()
        options.exposureRatioUncertainty = value
        do {
            _ = try FusionPipeline.run(flash: RawFrame(image: image, exposure: exposure, name: "flash"),
                                       ambient: RawFrame(image: image, exposure: exposure, name: "ambient"),
                                       camera: SyntheticScene.camera, flashProfile: SyntheticScene.flashProfile, options: options)
            Issue.record("an uncertainty of \(value) was accepted")
        } catch let FusionError.invalidExposureRatioUncertainty(v) {
            #expect(v.isNaN ? value.isNaN : v == value)
        } catch {
            Issue.record("unexpected error \(error)")
        }
        let message = FusionError.invalidExposureRatioUncertainty(value).description
        #expect(!message.contains("\n") && message.contains(">= 0"))
    }

    /// `rowBandExcess` on given band measurements, with a fitted banding of 5 % amplitude: bands
    /// that agree within their errors add nothing; one band 2 % off at 0.2 % adds (0.02² − 0.002²) /
    /// r₀²; bands with too few profiles (nil) do not count; the excess is at most twice the banding's
    /// amplitude. Without a fitted banding, bands must lie apart on both sides of r₀. (The bands here
    /// lie on as many rows as z needs to be normal; `rowBandExcessCountsRows` has bands on few.)
    @Test func rowBandExcessKnownAnswers() {
        func result(_ bands: [(Double, Double)?]) -> IlluminationEdgeRatio.Result {
            var r = IlluminationEdgeRatio.Result(ratio: 1.0, standardError: 0.003, sampleCount: 400, misfitScale: 1)
            r.rowBands = bands.map {
                $0.map { .init(location: TukeyBiweight.Location(centre: $0.0, standardError: $0.1, count: 100), rowCount: .max) }
            }
            return r
        }
        let banding = [RowBanding(cyclesPerFrameHeight: 0.9, cosineAmplitude: 0.03, sineAmplitude: 0.04)]
        func excess(_ bands: [(Double, Double)?], _ b: [RowBanding]? = nil) -> Double? {
            AmbientRatioEstimate.rowBandExcess(result(bands), banding: b ?? banding)
        }
        #expect(excess([nil, (1.001, 0.002), (0.999, 0.002), (1.002, 0.003)]) == nil)
        let off = excess([nil, (1.0, 0.002), (1.0, 0.002), (0.98, 0.002)])
        #expect(off != nil && abs(off! - (0.02 * 0.02 - 0.002 * 0.002)) < 1e-9)
        // One band left: nothing to compare.
        #expect(excess([nil, nil, nil, (0.9, 0.002)]) == nil)
        // χ² just under its 99 % point with 1 degree of freedom (6.635): 1.8² + 1.8² = 6.48.
        #expect(excess([(1.0036, 0.002), (0.9964, 0.002)]) == nil)
        #expect(excess([(1.004, 0.002), (0.996, 0.002)]) != nil)
        // No banding fitted: one band apart while the others agree is not the rows; bands apart on
        // both sides of r₀ (beyond 2 σ each) are, and count in full.
        #expect(excess([nil, (1.0, 0.002), (1.0, 0.002), (0.98, 0.002)], []) == nil)
        let twoSided = excess([nil, nil, (0.95, 0.004), (1.05, 0.004)], [])
        #expect(twoSided != nil && abs(twoSided! - (0.05 * 0.05 - 0.004 * 0.004)) < 1e-12)
        // A band 25 % off with a 5 % banding: at most (2 · 0.05)².
        let far = excess([(1.25, 0.01), nil, (1.0, 0.002), (1.0, 0.002)])
        #expect(far != nil && abs(far! - 0.1 * 0.1) < 1e-12)
    }

    /// Student's t against its tables' two-sided 5 % and 1 % points (ν = 1, 2, 3, 5, 7, 9, 10, 30), the
    /// Cauchy closed form for ν = 1, and the normal deviates of the same tails.
    @Test func studentTKnownAnswers() {
        let points: [(Int, Double, Double)] = [(1, 12.706, 63.657), (2, 4.303, 9.925), (3, 3.182, 5.841), (5, 2.571, 4.032),
                                               (7, 2.365, 3.499), (9, 2.262, 3.250), (10, 2.228, 3.169), (30, 2.042, 2.750)]
        for (nu, t05, t01) in points {
            #expect(abs(StudentT.twoSidedTail(t05, degreesOfFreedom: nu) - 0.05) < 2e-4, "ν = \(nu)")
            #expect(abs(StudentT.twoSidedTail(-t01, degreesOfFreedom: nu) - 0.01) < 5e-5, "ν = \(nu)")
            #expect(abs(StudentT.normalEquivalent(t05, degreesOfFreedom: nu) - 1.95996) < 0.01)
            #expect(abs(StudentT.normalEquivalent(-t01, degreesOfFreedom: nu) + 2.57583) < 0.01)
        }
        // ν = 1: P(|T| ≥ t) = 1 − (2/π)·atan(t).
        #expect(abs(StudentT.twoSidedTail(10, degreesOfFreedom: 1) - (1 - 2 / Double.pi * atan(10))) < 1e-12)
        #expect(StudentT.twoSidedTail(0, degreesOfFreedom: 4) == 1)
        #expect(abs(StudentT.normalTwoSidedQuantile(0.05) - 1.959964) < 1e-6)
        #expect(abs(StudentT.normalTwoSidedQuantile(1e-9) - 6.109410) < 1e-5)
        // No degrees of freedom: no evidence; very many: z itself.
        #expect(StudentT.normalEquivalent(40, degreesOfFreedom: 0) == 0)
        #expect(StudentT.normalEquivalent(-3.5, degreesOfFreedom: .max) == -3.5)
    }

    /// Bands on few rows: a band 10 standard errors from r₀ on two rows (t with one degree of
    /// freedom: p = 0.063, z 1.86) does not make the bands disagree; the same band on 30 rows does,
    /// with its excess (r_k − r₀)²·(1 − 1/z²) below the normal one; on one row it says nothing.
    @Test func rowBandExcessCountsRows() {
        func excess(rows: Int) -> Double? {
            var r = IlluminationEdgeRatio.Result(ratio: 1.0, standardError: 0.003, sampleCount: 400, misfitScale: 1)
            let located = { (centre: Double, rows: Int) in
                IlluminationEdgeRatio.RowBandLocation(location: TukeyBiweight.Location(centre: centre, standardError: 0.01, count: 58),
                                                      rowCount: rows)
            }
            r.rowBands = [located(1.1, rows), located(1.0, 40), located(1.0, 40), located(1.0, 40)]
            return AmbientRatioEstimate.rowBandExcess(r, banding: [RowBanding(cyclesPerFrameHeight: 0.9, cosineAmplitude: 0.1, sineAmplitude: 0)])
        }
        #expect(excess(rows: 1) == nil)
        #expect(excess(rows: 2) == nil)
        let many = excess(rows: 30)
        let z = StudentT.normalEquivalent(10, degreesOfFreedom: 29)
        #expect(z > 5 && z < 10)
        #expect(many != nil && abs(many! - 0.01 * (1 - 1 / (z * z))) < 1e-9, "\(String(describing: many)) z \(z)")
    }

    /// The edges' profiles along the lines and across them (`checkedAcrossLines`): where those across
    /// read r₀ far from those along and outnumber them (a banding's stripes in the ambient frame, read
    /// as edges), they are left out and r₀ is the along-line profiles'; where the two agree, or those
    /// across are not many more (a scene's edges in rows whose r₀ differs), every profile counts; with none
    /// along the lines the check is unchecked, and under a fitted banding the estimate counts the
    /// banding's size (`uncheckedAcrossLines`).
    @Test func profilesAcrossTheLinesAreCheckedAgainstThoseAlong() throws {
        var rng = SplitMix64(seed: 9)
        func profiles(_ count: Int, g: Double, along: Bool) -> [IlluminationEdgeRatio.EdgeProfile] {
            (0..<count).map { i in
                let v = g + 0.02 * rng.gaussian()
                return IlluminationEdgeRatio.EdgeProfile(gs: SIMD3(v, v, v), weights: SIMD3(repeating: 1 / (0.03 * 0.03)), q: 3, misfit: 0,
                                                         row: i % 100, of: 100, alongLine: along)
            }
        }
        let along = profiles(120, g: 1.0, along: true)
        let stripes = IlluminationEdgeRatio.checkedAcrossLines(candidates: along + profiles(1200, g: 0.75, along: false), beyond: [], threeChannel: [])
        let lines = try #require(stripes.lines)
        #expect(lines.acrossRefused && abs(lines.across! - 0.75) < 0.01 && (lines.separation ?? 0) > 20)
        #expect(abs(try #require(stripes.result).ratio - 1) < 0.01 && stripes.result?.sampleCount == 120)
        #expect(lines.alongCount == 120 && lines.acrossCount == 1200)
        let agreeing = IlluminationEdgeRatio.checkedAcrossLines(candidates: along + profiles(200, g: 1.0, along: false), beyond: [], threeChannel: [])
        #expect(agreeing.lines?.acrossRefused == false && agreeing.result?.sampleCount == 320)
        let few = IlluminationEdgeRatio.checkedAcrossLines(candidates: along + profiles(300, g: 0.9, along: false), beyond: [], threeChannel: [])
        #expect(few.lines?.acrossRefused == false && (few.lines?.separation ?? 0) > 10 && few.result?.sampleCount ?? 0 > 120)
        let acrossOnly = IlluminationEdgeRatio.checkedAcrossLines(candidates: profiles(200, g: 1.0, along: false), beyond: [], threeChannel: [])
        #expect(acrossOnly.lines?.unchecked == true && acrossOnly.lines?.acrossRefused == false && acrossOnly.result?.sampleCount == 200)
        // Counted only under a fitted banding: (Σ amplitudes / r₀)², here ((0.05 + 0.1) / 1.5)².
        let banding = [RowBanding(cyclesPerFrameHeight: 9.6, cosineAmplitude: 0.03, sineAmplitude: 0.04),
                       RowBanding(cyclesPerFrameHeight: 28.8, cosineAmplitude: 0, sineAmplitude: -0.1)]
        let counted = try #require(AmbientRatioEstimate.uncheckedAcrossLines(acrossOnly.lines, banding: banding, ratio: 1.5))
        #expect(abs(counted - 0.01) < 1e-12)
        #expect(AmbientRatioEstimate.uncheckedAcrossLines(acrossOnly.lines, banding: [], ratio: 1.5) == nil)
        #expect(AmbientRatioEstimate.uncheckedAcrossLines(stripes.lines, banding: banding, ratio: 1.5) == nil)
    }

    /// A band's location with its profiles clustered by row: 60 profiles on two rows whose means
    /// agree keep their biweight's location and count two rows; rows that disagree beyond the stated
    /// noise widen its standard error to the rows' scatter.
    @Test func rowBandLocationClustersByRow() throws {
        func profile(_ g: Double, row: Int) -> IlluminationEdgeRatio.EdgeProfile {
            IlluminationEdgeRatio.EdgeProfile(gs: SIMD3(g, g, g), weights: SIMD3(repeating: 1 / (0.03 * 0.03)), q: 3, misfit: 0,
                                              row: row, of: 100)
        }
        var rng = SplitMix64(seed: 5)
        let agreeing = (0..<60).map { i in profile(1.2 + 0.0173 * rng.gaussian(), row: 10 + i % 2) }
        let a = try #require(IlluminationEdgeRatio.rowBandLocation(agreeing))
        let plain = try #require(IlluminationEdgeRatio.robustLocation(agreeing.map { ($0.g, $0.sigma) }))
        #expect(a.rowCount == 2 && a.centre == plain.centre)
        // Ten rows, 30 profiles each without noise, alternately 1.0 and 1.02 (σ 0.017 each): every
        // profile keeps one biweight weight, the stated error is the noise's (0.002), the rows'
        // scatter says 0.01·√(10/9)/√10 = 0.01/3.
        let spread = (0..<300).map { i in profile(i % 2 == 0 ? 1.0 : 1.02, row: i % 10) }
        let s = try #require(IlluminationEdgeRatio.rowBandLocation(spread))
        let stated = try #require(IlluminationEdgeRatio.robustLocation(spread.map { ($0.g, $0.sigma) })).standardError
        #expect(s.rowCount == 10 && abs(s.centre - 1.01) < 1e-7, "\(s.centre) \(s.standardError)")
        #expect(stated < 0.0021)
        #expect(abs(s.standardError - 0.01 / 3) < 1e-9)
    }

    /// The channels' heterogeneity (DerSimonian & Laird): two channels' τ² is (d² − s₁² − s₂²)/2 for
    /// a difference d and standard errors s₁, s₂; channels within their 99 % χ² point give nil.
    @Test func channelHeterogeneityKnownAnswers() {
        func tau2(_ channels: [(Double, Double)?]) -> Double? {
            IlluminationEdgeRatio.channelHeterogeneity(channels.map { $0.map { TukeyBiweight.Location(centre: $0.0, standardError: $0.1, count: 100) } })
        }
        // 1.0 and 1.1 at 0.01: Q = 0.1²/(2·0.01²) = 50; τ² = (0.1² − 2·0.01²)/2 = 0.0049.
        let two = tau2([nil, (1.0, 0.01), (1.1, 0.01)])
        #expect(two != nil && abs(two! - 0.0049) < 1e-12)
        // Agreeing within their errors (Q = 0.5), or one channel alone: nothing.
        #expect(tau2([nil, (1.0, 0.01), (1.01, 0.01)]) == nil)
        #expect(tau2([nil, (1.0, 0.01), nil]) == nil)
        // Q just under and over 6.635 with one degree of freedom: differences 0.0364 and 0.0366 at 0.01.
        #expect(tau2([(1.0, 0.01), nil, (1.0364, 0.01)]) == nil)
        #expect(tau2([(1.0, 0.01), nil, (1.0366, 0.01)]) != nil)
        // Three channels, unequal errors, by hand: weights 40 000, 62 500, 10 000; mean 1.008889;
        // Q = 31.111 (above 9.21, two degrees of freedom); τ² = (Q − 2)/(112 500 − 5 140 625 000/112 500).
        let three = tau2([(1.03, 0.005), (1.00, 0.004), (0.98, 0.01)])
        #expect(three != nil && abs(three! - 4.6454e-4) < 1e-8)
        // Three channels at 0.01 against two degrees of freedom's 9.21: Q = 8.17 (1.0, 1.035, 1.0) is
        // within it (one degree of freedom's 6.635 would count it), Q = 10.67 (1.0, 1.04, 1.0) beyond
        // it (three degrees of freedom's 11.345 would not).
        #expect(tau2([(1.0, 0.01), (1.035, 0.01), (1.0, 0.01)]) == nil)
        #expect(tau2([(1.0, 0.01), (1.04, 0.01), (1.0, 0.01)]) != nil)
    }

    /// The relative variance the estimate adds: (weight·τ/r₀)²; none with weight 0 (EXIF alone) or
    /// where the channels agree.
    @Test func channelExcessKnownAnswers() {
        var r = IlluminationEdgeRatio.Result(ratio: 1.05, standardError: 0.003, sampleCount: 400, misfitScale: 1)
        #expect(AmbientRatioEstimate.channelExcess(r, edgeWeight: 0.8, ratio: 1.04) == nil)
        r.channelExcessVariance = 0.0004
        let excess = AmbientRatioEstimate.channelExcess(r, edgeWeight: 0.8, ratio: 1.04)
        #expect(excess != nil && abs(excess! - 0.64 * 0.0004 / (1.04 * 1.04)) < 1e-15)
        #expect(AmbientRatioEstimate.channelExcess(r, edgeWeight: 0, ratio: 1.0) == nil)
    }

    /// The edges' selection measures the channels' disagreement: profiles whose green reads 1.10 and
    /// blue 0.90 (a mixture of edges between materials) give τ² of about their spread; profiles
    /// whose channels agree give none. Each channel's location is reported; r₀'s standard error does
    /// not hold τ² (the estimate counts it, `AmbientRatioEstimate.channelExcess`).
    @Test func selectionCountsChannelDisagreement() throws {
        var rng = SplitMix64(seed: 11)
        func samples(green: Double, blue: Double) -> [IlluminationEdgeRatio.EdgeProfile] {
            (0..<200).map { i in
                let s = 0.02
                let gg = green + s * rng.gaussian(), gb = blue + s * rng.gaussian()
                let weights = SIMD3<Double>(0, 1 / (s * s), 1 / (s * s))
                return IlluminationEdgeRatio.EdgeProfile(gs: SIMD3(0, gg, gb), weights: weights, q: 3.0, misfit: 0,
                                                         row: i, of: 200)
            }
        }
        let agreeing = try #require(IlluminationEdgeRatio.selection(samples(green: 1.0, blue: 1.0), misfitScale: 1))
        #expect(agreeing.channelExcessVariance == nil)
        #expect(agreeing.channels[0] == nil && agreeing.channels[1] != nil && agreeing.channels[2] != nil)
        #expect(agreeing.standardError < 0.005)
        let parted = try #require(IlluminationEdgeRatio.selection(samples(green: 1.10, blue: 0.90), misfitScale: 1))
        let green = try #require(parted.channels[1]).centre, blue = try #require(parted.channels[2]).centre
        #expect(abs(green - 1.10) < 0.01 && abs(blue - 0.90) < 0.01)
        let tau2 = try #require(parted.channelExcessVariance)
        // τ² ≈ (0.2² − the locations' variances)/2 = 0.02.
        #expect(abs(tau2 - 0.02) < 0.002)
        #expect(abs(parted.ratio - 1) < 0.005 && parted.standardError < 0.005)
    }

    /// Shadow edges the flash frame holds far weaker (g near 0.05 in every channel: the ambient light
    /// in it 20× dimmer than the tags predict) are read as a ratio beyond the range when nothing else
    /// measured one (`IlluminationEdgeRatio.vanishedEdges`); too few of them, g within
    /// `plausibleRatios`, g of 0 or borders between materials read nothing.
    @Test func vanishedShadowEdgesReadAsARatioBelowTheRange() throws {
        var rng = SplitMix64(seed: 5)
        func samples(_ g: Double, count: Int) -> [IlluminationEdgeRatio.EdgeProfile] {
            (0..<count).map { i in
                let s = 0.01
                let weights = SIMD3<Double>(repeating: 1 / (s * s))
                return IlluminationEdgeRatio.EdgeProfile(gs: SIMD3(repeating: g) + s * SIMD3(rng.gaussian(), rng.gaussian(), rng.gaussian()),
                                                         weights: weights, q: 3.0, misfit: 0, row: i, of: count)
            }
        }
        let dimmed = try #require(IlluminationEdgeRatio.vanishedEdges(samples(0.05, count: 200)))
        #expect(abs(dimmed.ratio - 0.05) < 0.005 && dimmed.sampleCount == 200, "\(dimmed)")
        #expect(IlluminationEdgeRatio.vanishedEdges(samples(0.05, count: IlluminationEdgeRatio.minimumSamples - 1)) == nil)
        #expect(IlluminationEdgeRatio.vanishedEdges(samples(0.3, count: 200)) == nil)
        // Edges gone entirely (g 0: an object that moved, or a lamp switched off) read nothing.
        #expect(IlluminationEdgeRatio.vanishedEdges(samples(0, count: 200)) == nil)
        // Borders between materials (an object that moved) do not count.
        let borders = samples(0.05, count: 200).map {
            IlluminationEdgeRatio.EdgeProfile(gs: $0.gs, weights: $0.weights, q: $0.q, misfit: 0, row: $0.row, of: 200, ambientInProportion: false)
        }
        #expect(IlluminationEdgeRatio.vanishedEdges(borders) == nil)
    }

    /// A penumbra under one light changes every channel of the ambient frame in proportion; a border
    /// between a red and a grey material does not; noise alone (of the stated variance) is no departure.
    @Test func ambientChannelsChangeInProportionAcrossAShadowOnly() {
        let n = 11
        let shading = (0..<n).map { 0.3 * tanh(Double($0 - n / 2) / 2) }  // a penumbra's relative change
        func relative(_ r: [Double], _ g: [Double], _ b: [Double]) -> [Double] { r + g + b }
        #expect(IlluminationEdgeRatio.ambientChangesInProportion(relative(shading, shading, shading), variance: .zero))
        // Red 15 % stronger than green, blue 10 % weaker: within 0.2 of green's change.
        #expect(IlluminationEdgeRatio.ambientChangesInProportion(relative(shading.map { 1.15 * $0 }, shading, shading.map { 0.9 * $0 }),
                                                                 variance: .zero))
        // A red square's border on grey: red up, green and blue down.
        #expect(!IlluminationEdgeRatio.ambientChangesInProportion(relative(shading, shading.map { -0.6 * $0 }, shading.map { -0.6 * $0 }),
                                                                  variance: .zero))
        // The same shadow, detrended as `measure` does, with noise of standard deviation 0.02 per sample
        // in each channel, stated: the noise's share is taken off at its 99 % point, so nearly every
        // such profile passes (taken off at its mean, before session 50, 76 % did), and a border
        // with the same noise still departs beyond it (with twice the noise 83 % of borders do: the
        // price of not losing noisy shadow edges).
        var rng = SplitMix64(seed: 3)
        var passed = 0, borders = 0
        for _ in 0..<2000 {
            func noisy(_ channels: [[Double]], _ sigma: Double) -> [Double] {
                channels.flatMap { channel in
                    var v = channel.map { $0 + sigma * rng.gaussian() }
                    IlluminationEdgeRatio.detrended(&v)
                    return v
                }
            }
            if IlluminationEdgeRatio.ambientChangesInProportion(noisy([shading, shading, shading], 0.02), variance: SIMD3(repeating: 0.0004)) {
                passed += 1
            }
            let border = noisy([shading, shading.map { -0.6 * $0 }, shading.map { -0.6 * $0 }], 0.02)
            if !IlluminationEdgeRatio.ambientChangesInProportion(border, variance: SIMD3(repeating: 0.0004)) { borders += 1 }
        }
        #expect(passed > 1980, "\(passed) of 2000")
        #expect(borders == 2000, "\(borders) of 2000")
        // A channel the profile did not measure (weight 0: its ambient bend was noise) is not compared:
        // blue's change here would make a border of the profile were it.
        let blueNoise = relative(shading, shading, shading.map { -3 * $0 })
        #expect(!IlluminationEdgeRatio.ambientChangesInProportion(blueNoise, variance: .zero))
        #expect(IlluminationEdgeRatio.ambientChangesInProportion(blueNoise, variance: .zero, measured: SIMD3(1, 1, 0)))
        // Without green, red is the reference: blue follows it, or does not.
        #expect(IlluminationEdgeRatio.ambientChangesInProportion(relative(shading, shading.map { -3 * $0 }, shading.map { 1.1 * $0 }),
                                                                 variance: .zero, measured: SIMD3(1, 0, 1)))
        #expect(!IlluminationEdgeRatio.ambientChangesInProportion(relative(shading, shading, shading.map { -0.6 * $0 }),
                                                                  variance: .zero, measured: SIMD3(1, 0, 1)))
        // One channel measured: nothing to compare, no shadow shown.
        #expect(!IlluminationEdgeRatio.ambientChangesInProportion(relative(shading, shading, shading), variance: .zero,
                                                                  measured: SIMD3(0, 1, 0)))
    }

    /// Wilson & Hilferty's 99 % points of χ² against the tables' (9, 18 and 2 degrees of freedom:
    /// 21.666, 34.805, 9.210).
    @Test func chiSquare99AgainstTables() {
        #expect(abs(IlluminationEdgeRatio.chiSquare99(degreesOfFreedom: 9) - 21.666) < 0.05)
        #expect(abs(IlluminationEdgeRatio.chiSquare99(degreesOfFreedom: 18) - 34.805) < 0.05)
        #expect(abs(IlluminationEdgeRatio.chiSquare99(degreesOfFreedom: 2) - 9.210) < 0.1)
    }

    /// Birge's ratio on the edges' error: the profiles' own misfit beyond what their scatter already
    /// counted (known answers), never below 1.
    @Test func misfitInflatesTheEdgesErrorBeyondTheirScatter() {
        #expect(IlluminationEdgeRatio.misfitInflation(misfitScale: 100, scatterInflation: 1) == 10)
        #expect(IlluminationEdgeRatio.misfitInflation(misfitScale: 100, scatterInflation: 4) == 2.5)
        #expect(IlluminationEdgeRatio.misfitInflation(misfitScale: 100, scatterInflation: 12) == 1)
        #expect(IlluminationEdgeRatio.misfitInflation(misfitScale: 0.8, scatterInflation: 1) == 1)
        #expect(IlluminationEdgeRatio.misfitInflation(misfitScale: 2.25, scatterInflation: 0.5) == 1.5)
    }
}
