import Foundation
import Testing
@testable import ConstantColor

/// The adaptive window size of the noise reduction (`Confidence.wideSupport`, `wideSupportSelection`):
/// a wider support where its interval meets all the smaller supports' and it is more certain, the
/// smaller one elsewhere.
@Suite("Noise reduction: wide windows by the intersection of confidence intervals")
struct WideSupportTests {
    let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)
    static let identity = RegistrationResult(model: .translation, ambientFromFlash: .identity, residual: 0, residualByModel: [:])
    let w = 480, h = 240
    /// A flash frame with little noise (variance 4) and an ambient frame with white noise of variance
    /// 160 000 (σ 400 against D of 300–700): D's noise is the ambient's, and a model's noise mostly its windows'.
    let vF: Float = 4, vA: Float = 160_000

    /// Flash and ambient frames whose dark-room truth is `truth(x, c)` (flat ambient 300 in every channel).
    func frames(truth: (Int, Int) -> Float) -> (flash: LinearFrame, ambient: LinearFrame) {
        NoiseReductionTests.whiteNoisePair(width: w, height: h, truth: truth, ambientVariance: vA, flashVariance: vF, seed: 5,
                                           exposure: exposure)
    }

    /// The filtered estimate, its confidence and per-pixel variance (independent + guide) with
    /// `settings`' windows, and the wide ones when `wide`.
    func filtered(_ frames: (flash: LinearFrame, ambient: LinearFrame), settings: NoiseReduction, wide: Bool)
        -> (d: PlanarImage, confidence: PlanarImage, variance: [Float]) {
        var d = DarkRoomEstimate(flash: frames.flash, ambient: frames.ambient, registration: Self.identity)
        let model = settings.model(estimate: d, flash: frames.flash)
        var scratch: [Float] = [], storage: [Float] = []
        let wideModels = wide ? settings.wideModels(estimate: d, flash: frames.flash, reusing: &storage, scratch: &scratch) : []
        let rendering = ColorRendering(flash: SyntheticScene.flashProfile, primaries: .displayP3, scale: 1e-3)
        let r = Confidence.filterAndMap(estimate: &d, model: model, wide: wideModels, flash: frames.flash,
                                        rendering: rendering, recordUncertainty: true)
        let u = r.uncertainty!, n = w * h
        let variance = (0..<(3 * n)).map { i in
            u.variance.samples[i] + u.guideGain.samples[i] * u.guideGain.samples[i] * 3 * vF
        }
        return (d.difference, r.confidence, variance)
    }

    @Test("a flat region takes the widest windows: the median error drops to under 0.4 of the 7×7 windows' (0.28 for the 25×25 window means alone, 0.54 for the 13×13), the confidence rises, and the stated variance stays the error's (mean z² within 15 % of 1)")
    func flatRegionTakesWideWindows() {
        let truth: (Int, Int) -> Float = { _, c in 700 + 100 * Float(c) }
        let pair = frames(truth: truth)
        let narrow = filtered(pair, settings: NoiseReduction(), wide: false)
        let adaptive = filtered(pair, settings: NoiseReduction(), wide: true)
        let n = w * h
        var errors = (narrow: [Double](), adaptive: [Double]()), z2 = 0.0, count = 0.0
        var confidence = (narrow: 0.0, adaptive: 0.0)
        // Away from the border bands where the windows' overlap is not credited (2r blocks of the widest windows).
        let band = 2 * 2 * (NoiseReduction().wideRadii.max() ?? 0)
        for y in band..<(h - band) {
            for x in band..<(w - band) {
                let p = y * w + x
                confidence.narrow += Double(narrow.confidence.samples[p]); confidence.adaptive += Double(adaptive.confidence.samples[p])
                for c in 0..<3 {
                    let i = c * n + p, t = truth(x, c)
                    let e0 = Double(narrow.d.samples[i] - t), e1 = Double(adaptive.d.samples[i] - t)
                    errors.narrow.append(abs(e0)); errors.adaptive.append(abs(e1))
                    z2 += e1 * e1 / Double(adaptive.variance[i]); count += 1
                }
            }
        }
        // The median: a flat field's few pixels that the per-pixel check hands back toward their raw
        // value by chance (z² > 4) carry most of the error energy, alike for both window sizes.
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let meanZ2 = z2 / count, ratio = median(errors.adaptive) / median(errors.narrow)
        print(String(format: "wide windows, flat: median |error| %.3f of the 7×7 windows', mean z² %.3f, mean confidence %.3f -> %.3f",
                     ratio, meanZ2, 3 * confidence.narrow / count, 3 * confidence.adaptive / count))
        // 25 × 25 against 7 × 7 averaged samples: about (7/25)² = 0.078 of the variance for the window
        // means alone, 0.28 of the standard deviation (13 × 13 alone would give 0.54).
        #expect(ratio < 0.4, "median error ratio \(ratio)")
        #expect(confidence.adaptive > confidence.narrow)
        #expect(meanZ2 > 0.85 && meanZ2 < 1.15, "mean z² \(meanZ2)")
    }

    @Test("a stripe of another colour (iso-luminant: the guide does not show it) 20 pixels wide keeps its colour: inside it the 13×13 windows all reach the background and are refused, while the 7×7 windows that fit inside are kept")
    func narrowStripeKeepsModelWindows() {
        // Background (700, 500, 300), the stripe (300, 500, 700): the guide F_r + F_g + F_b is the same.
        let lo = w / 2 - 10, hi = w / 2 + 10
        let truth: (Int, Int) -> Float = { x, c in (lo..<hi).contains(x) ? 300 + 200 * Float(c) : 700 - 200 * Float(c) }
        let pair = frames(truth: truth)
        var wideOnly = NoiseReduction()
        wideOnly.radius = 6; wideOnly.wideRadii = []
        let narrow = filtered(pair, settings: NoiseReduction(), wide: false)
        let adaptive = filtered(pair, settings: NoiseReduction(), wide: true)
        let smeared = filtered(pair, settings: wideOnly, wide: false)
        /// Mean error of the red channel over the stripe's central 8 columns (rows away from the border).
        func centreBias(_ d: PlanarImage) -> Double {
            var sum = 0.0, count = 0.0
            for x in (w / 2 - 4)..<(w / 2 + 4) {
                for y in 28..<(h - 28) { sum += Double(d.samples[y * w + x] - truth(x, 0)); count += 1 }
            }
            return sum / count
        }
        let b = (narrow: centreBias(narrow.d), adaptive: centreBias(adaptive.d), wide: centreBias(smeared.d))
        // Standard error of such a mean of the 7×7 result: its pixel σ over √(rows) (columns correlated).
        let p = (h / 2) * w + w / 2
        let standardError = Double(narrow.variance[p].squareRoot()) / Double(h - 56).squareRoot()
        print(String(format: "wide windows, 20-px stripe: centre bias %.1f (7×7), %.1f (adaptive), %.1f (13×13 only); standard error %.1f; step 400",
                     b.narrow, b.adaptive, b.wide, standardError))
        #expect(abs(b.wide) > 10 * standardError, "the 13×13 windows alone should pull the stripe toward the background: \(b.wide)")
        #expect(abs(b.adaptive - b.narrow) < 3 * standardError, "adaptive \(b.adaptive), 7×7 \(b.narrow)")
    }

    /// The same vector in the three channels.
    static func triple(_ v: Confidence.Lanes) -> (Confidence.Lanes, Confidence.Lanes, Confidence.Lanes) { (v, v, v) }

    @Test("the rule lane by lane: the wide result where it is more confident and within ±2(σ + σ_wide) in every channel; the model's where it is less confident, outside the interval in any one channel, or has no variance")
    func selectionRule() {
        typealias L = Confidence.Lanes
        // Narrow: value 100, variance 4 (σ 2), confidence 0.5 in every lane.
        let narrow: Confidence.KernelResult = (Self.triple(L(repeating: 100)), Self.triple(L(repeating: 4)), Self.triple(L(repeating: 0.1)), L(repeating: 0.5))
        // Wide (σ 1, so the bound is 2·(2 + 1) = 6), lane by lane:
        // 0 agrees and more confident → wide; 1 just inside (105.9) → wide; 2 just outside (106.1) → narrow;
        // 3 less confident → narrow; 4 blue disagrees (−7) → narrow; 5 equal confidence → narrow;
        // 6 agrees below (94.5) → wide; 7 NaN confidence → narrow.
        let value = L(101, 105.9, 106.1, 100, 100, 100, 94.5, 100)
        var blue = L(repeating: 100); blue[4] = 93
        let confidence = L(0.9, 0.9, 0.9, 0.4, 0.9, 0.5, 0.9, .nan)
        let wide: Confidence.KernelResult = ((value, L(repeating: 100), blue), Self.triple(L(repeating: 1)), Self.triple(L(repeating: 0.2)), confidence)
        var intervals = Confidence.SupportIntervals(narrow)
        let r = Confidence.wideSupportSelection(narrow, wide, intervals: &intervals)
        let takesWide = [true, true, false, false, false, false, true, false]
        for lane in 0..<8 {
            let w = takesWide[lane]
            #expect(r.value.0[lane] == (w ? value[lane] : 100), "lane \(lane)")
            #expect(r.value.2[lane] == (w ? blue[lane] : 100), "lane \(lane)")
            #expect(r.independent.1[lane] == (w ? 1 : 4), "lane \(lane)")
            #expect(r.guideGain.0[lane] == (w ? 0.2 : 0.1), "lane \(lane)")
            #expect(r.confidence[lane] == (w ? 0.9 : 0.5), "lane \(lane)")
        }
        // A variance of 0 in both: the bound is 0, and only an equal value agrees.
        let exact: Confidence.KernelResult = (Self.triple(L(repeating: 100)), Self.triple(L(repeating: 0)), Self.triple(L(repeating: 0)), L(repeating: 0.5))
        var shifted = exact; shifted.value.0 = L(100, 100.5, 100, 100, 100, 100, 100, 100); shifted.confidence = L(repeating: 0.9)
        var exactIntervals = Confidence.SupportIntervals(exact)
        let z = Confidence.wideSupportSelection(exact, shifted, intervals: &exactIntervals)
        #expect(z.confidence[0] == 0.9 && z.confidence[1] == 0.5)
    }

    @Test("the ladder of wider supports: each must meet the intersection of all the smaller supports' intervals, not only the model's; a lane refused once is closed to the wider ones")
    func ladderIntersectsAllSmallerIntervals() {
        typealias L = Confidence.Lanes
        // The model's windows: 100 ± 2·2 = [96, 104], confidence 0.5.
        let narrow: Confidence.KernelResult = (Self.triple(L(repeating: 100)), Self.triple(L(repeating: 4)), Self.triple(L(repeating: 0.1)), L(repeating: 0.5))
        var intervals = Confidence.SupportIntervals(narrow)
        // First wide support, ±2 (variance 1): lanes 0–2 at 103 ([101, 105], meets; intersection
        // [101, 104]); lane 3 at 107 ([105, 109], refused: closed).
        let first: Confidence.KernelResult = (Self.triple(L(103, 103, 103, 107, 103, 103, 103, 103)), Self.triple(L(repeating: 1)),
                                              Self.triple(L(repeating: 0.2)), L(repeating: 0.7))
        let afterFirst = Confidence.wideSupportSelection(narrow, first, intervals: &intervals)
        #expect(afterFirst.confidence == L(0.7, 0.7, 0.7, 0.5, 0.7, 0.7, 0.7, 0.7))
        // Second, ±2: lane 0 at 99.5 ([97.5, 101.5] meets [101, 104]) → taken; lane 1 at 98.5
        // ([96.5, 100.5]: inside the model's interval but not the intersection) → refused, keeps the
        // first; lane 2 at 105.5 ([103.5, 107.5]) → taken; lane 3 agrees with the model (100) but was
        // closed → the model's.
        let second: Confidence.KernelResult = (Self.triple(L(99.5, 98.5, 105.5, 100, 103, 103, 103, 103)), Self.triple(L(repeating: 1)),
                                               Self.triple(L(repeating: 0.3)), L(repeating: 0.9))
        let r = Confidence.wideSupportSelection(afterFirst, second, intervals: &intervals)
        #expect(r.value.0[0] == 99.5 && r.confidence[0] == 0.9)
        #expect(r.value.0[1] == 103 && r.confidence[1] == 0.7)
        #expect(r.value.0[2] == 105.5 && r.confidence[2] == 0.9)
        #expect(r.value.0[3] == 100 && r.confidence[3] == 0.5)
        #expect(intervals.open[0] && !intervals.open[1] && intervals.open[2] && !intervals.open[3])
        // Lane 0's intersection is now [101, 101.5], lane 2's [103.5, 104] (σ from a fast inverse
        // square root: to 1e-5).
        func near(_ a: Float, _ b: Float) -> Bool { abs(a - b) < 1e-3 }
        #expect(near(intervals.low.1[0], 101) && near(intervals.high.1[0], 101.5))
        #expect(near(intervals.low.2[2], 103.5) && near(intervals.high.2[2], 104))
    }

    /// The wide models' coefficients are interpolated only where a vector of pixels evaluates them,
    /// 64 columns at a time from where the last request's writing ended, the smaller end of the
    /// two models' (`Confidence.processRow`'s `prepareWide`): a stale column (one left from the row
    /// before, or never written) would give other values. On frames with widths that leave a
    /// partial last vector, the result and its recorded variances equal those of every row
    /// interpolated whole, bit for bit, where most pixels take a wide window and where a quarter do. (Taking the larger of the two models'
    /// ends instead of the smaller fails it.)
    @Test("wide coefficients interpolated on request (64 columns at a time, left to right) give the same bytes as whole rows, with 95 % and with 26 % of the pixels taking a wide window, on odd widths")
    func wideCoefficientsOnRequestEqualWholeRows() {
        for (width, height, seed, noise) in [(203, 61, UInt64(3), Float(40_000)), (480, 40, UInt64(4), Float(40_000)),
                                             (203, 61, UInt64(5), Float(2_000))] {
            // Flat patches and vertical bars (D 400–900) under noise that leaves many pixels unsure.
            let (flash, ambient) = NoiseReductionTests.whiteNoisePair(
                width: width, height: height, truth: { x, c in (x / 37) % 2 == 0 ? 400 + 50 * Float(c) : 900 - 100 * Float(c) },
                ambientVariance: noise, flashVariance: vF, seed: seed, exposure: exposure)
            let estimate = DarkRoomEstimate(flash: flash, ambient: ambient, registration: Self.identity)
            let settings = NoiseReduction()
            let model = settings.model(estimate: estimate, flash: flash)
            var scratch: [Float] = [], storage: [Float] = []
            let wideModels = settings.wideModels(estimate: estimate, flash: flash, reusing: &storage, scratch: &scratch)
            let rendering = ColorRendering(flash: SyntheticScene.flashProfile, primaries: .displayP3, scale: 1e-3)
            func run(eager: Bool) -> (d: [Float], confidence: [Float], variance: [Float], gain: [Float]) {
                var d = estimate
                let r = Confidence.filterAndMap(estimate: &d, model: model, wide: wideModels, flash: flash, rendering: rendering,
                                                exposureRatioUncertainty: 0.04, ambientColourDeviation: .zero, recordUncertainty: true,
                                                reusing: [], interpolatingWideEagerly: eager)
                return (d.difference.samples, r.confidence.samples, r.uncertainty!.variance.samples, r.uncertainty!.guideGain.samples)
            }
            let whole = run(eager: true), onRequest = run(eager: false)
            func same(_ a: [Float], _ b: [Float]) -> Bool { a.elementsEqual(b) { $0.bitPattern == $1.bitPattern } }
            #expect(same(whole.d, onRequest.d) && same(whole.confidence, onRequest.confidence)
                    && same(whole.variance, onRequest.variance) && same(whole.gain, onRequest.gain), "\(width)x\(height)")
            // The wide windows were used: the narrow model alone gives other values in many pixels.
            var narrowOnly = estimate
            let narrow = Confidence.filterAndMap(estimate: &narrowOnly, model: model, flash: flash, rendering: rendering)
            let changed = zip(narrow.confidence.samples, whole.confidence).filter { $0.bitPattern != $1.bitPattern }.count
            // (Most pixels under the strong noise, about 95 %; a quarter under the weak, so that the
            // requests come with gaps between them.)
            let share = Double(changed) / Double(width * height)
            #expect(noise > 10_000 ? share > 0.5 : share > 0.05 && share < 0.5,
                    "\(width)x\(height) noise \(noise): \(changed) of \(width * height) pixels took a wide window")
        }
    }
}
