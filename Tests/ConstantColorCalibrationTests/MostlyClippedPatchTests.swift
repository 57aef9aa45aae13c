import ConstantColor
import ConstantColorIO
import Testing
@testable import ConstantColorCalibration

/// A patch mostly clipped in a condition's frames (flash frame, or its registered ambient sample) is
/// left out of that condition's metrics (the output there is the gap fill) and listed, as an occluded
/// patch is; a mostly clipped chart is refused. Uses `OccludedPatchTests`' painted conditions.
@Suite struct MostlyClippedPatchTests {
    typealias O = OccludedPatchTests

    /// `PixelFlag` bits (`bit`, the flash frame's by default) over the first `columns[i]` of patch
    /// i's 8 columns (the last ones `fromRight`), added to `mask` when given; the output's unclipped
    /// pixels of those patches are painted a wrong colour (what bleeds into a gap fill), so that
    /// scoring them would show.
    static func clipped(_ c: inout O.Condition, columns: [Int: Int], bit: UInt8 = PixelFlag.flashClipped,
                        fromRight: Bool = false, adding mask: [UInt8]? = nil) -> [UInt8] {
        var mask = mask ?? [UInt8](repeating: 0, count: c.linear.width * c.linear.height)
        let wrong = ColorScience.xyz(fromLab: SIMD3(70, 30, -40), white: O.white)
        for (i, p) in O.chart.patches.enumerated() where columns[i] != nil {
            let sq = PatchSquare(center: p.center, halfSize: p.halfSize)
            for y in sq.rows {
                for (k, x) in sq.columns.enumerated() {
                    if (fromRight ? sq.columns.count - 1 - k : k) < columns[i]! { mask[y * c.linear.width + x] |= bit }
                    for ch in 0..<3 { c.linear[x, y, ch] = Float(wrong[ch]) }
                }
            }
        }
        return mask
    }

    static func score(_ name: String, _ c: O.Condition, clipped: [UInt8]?, chart: ChartDescription = O.chart) throws(PatchSamplingError) -> ConditionScore {
        try ValidationScoring.score(
            name: name, ambientLux: nil, chart: chart, linearXYZ: c.linear, ambientPhotoXYZ: c.ambient,
            confidence: c.confidence, decision: .constantColor, centerWeightedConfidence: 0.9, ambientFromFlash: .identity,
            pixelFlags: clipped, file: "flash.tif", ambientFile: "ambient.tif")
    }

    /// Condition A clean, scored on the chart without grey (`reference`), and with 6 of grey's 8
    /// columns flagged `bit` (`flagged`).
    static func greyFlagged(bit: UInt8) throws -> (clean: O.Condition, reference: ConditionScore, flagged: ConditionScore) {
        let clean = O.condition(shift: O.shiftA, ambientShift: O.ambA, scale: 1.7, confidence: [0.9, 0.8, 0.7, 0.6])
        var reduced = O.chart
        reduced.patches.remove(at: 2)
        var c = clean
        let mask = Self.clipped(&c, columns: [2: 6], bit: bit)  // (painted first: scored, grey's pixels would show)
        return (clean, try Self.score("A", clean, clipped: nil, chart: reduced), try Self.score("A", c, clipped: mask))
    }

    /// Grey (a neutral patch) 6 of 8 columns clipped: left out of accuracy, the exposure fit and the
    /// patch confidence, which equal the chart's without it; 4 of 8 (not more than half) is scored.
    @Test func mostlyClippedPatchIsLeftOutOfTheCondition() throws {
        var c = O.condition(shift: O.shiftA, ambientShift: O.ambA, scale: 1.7, confidence: [0.9, 0.8, 0.7, 0.6])
        let clean = c
        let mask = Self.clipped(&c, columns: [2: 6])
        let s = try Self.score("A", c, clipped: mask)
        #expect(s.clippedFraction == [0, 0, 0.75, 0] && s.flashClippedFraction == s.clippedFraction && s.ambientClippedFraction == [0, 0, 0, 0])
        #expect(s.isMostlyClipped(2) && !s.isOccludedInOutput(2) && s.scoredPatches == [0, 1, 3])
        var reduced = O.chart
        reduced.patches.remove(at: 2)
        let r = try Self.score("A", clean, clipped: nil, chart: reduced)
        #expect(abs(s.exposureScale - 1.7) < 1e-5 && abs(s.exposureScale - r.exposureScale) < 1e-12)
        #expect(abs(s.meanDeltaE2000 - r.meanDeltaE2000) < 1e-12 && abs(s.meanPatchConfidence - r.meanPatchConfidence) < 1e-12)
        #expect(s.json.object?["mostlyClippedPatches"]?.array?.compactMap(\.string) == ["grey"])
        // Scored, the wrong colour would have moved the exposure (grey is neutral) and the accuracy.
        var half = clean
        let halfMask = Self.clipped(&half, columns: [2: 4])
        let h = try Self.score("A", half, clipped: halfMask)
        #expect(!h.isMostlyClipped(2) && h.scoredPatches == [0, 1, 2, 3])
        #expect(abs(h.exposureScale - 1.7) > 0.01 && h.deltaE2000[2] > 20)
    }

    /// A patch whose registered ambient sample is clipped (a bright ambient light on it) or missing is
    /// left out as a flash-clipped one is: grey 6 of 8 columns ambient-clipped, or 3 flash-clipped
    /// and 2 others ambient-clipped (neither frame alone more than half, together 5 of 8); the set
    /// lists each frame's share and advises less ambient exposure.
    @Test func patchClippedInTheAmbientFrameIsLeftOut() throws {
        let (clean, r, s) = try Self.greyFlagged(bit: PixelFlag.ambientClipped)
        #expect(s.clippedFraction == [0, 0, 0.75, 0] && s.ambientClippedFraction == s.clippedFraction && s.flashClippedFraction == [0, 0, 0, 0])
        #expect(s.isMostlyClipped(2) && s.scoredPatches == [0, 1, 3])
        #expect(abs(s.exposureScale - r.exposureScale) < 1e-12 && abs(s.meanDeltaE2000 - r.meanDeltaE2000) < 1e-12)
        var m = clean
        let missing = try Self.score("A", m, clipped: Self.clipped(&m, columns: [2: 6], bit: PixelFlag.noAmbientSample))
        #expect(missing.isMostlyClipped(2) && missing.ambientClippedFraction[2] == 0.75)
        var t = clean
        let together = Self.clipped(&t, columns: [2: 2], bit: PixelFlag.ambientClipped, adding: Self.clipped(&t, columns: [2: 3]))
        // (Columns 0–1 carry both bits, column 2 the flash's: 3 of 8 flash, 2 of 8 ambient, 3 of 8 either.)
        let shared = try Self.score("A", t, clipped: together)
        #expect(shared.clippedFraction[2] == 0.375 && !shared.isMostlyClipped(2))
        var u = clean
        let apart = Self.clipped(&u, columns: [2: 2], bit: PixelFlag.ambientClipped, fromRight: true, adding: Self.clipped(&u, columns: [2: 3]))
        let both = try Self.score("A", u, clipped: apart)
        #expect(both.clippedFraction[2] == 0.625 && both.flashClippedFraction[2] == 0.375 && both.ambientClippedFraction[2] == 0.25)
        #expect(both.isMostlyClipped(2) && both.scoredPatches == [0, 1, 3])
        let set = SetScore([s])
        #expect(set.clippingSummary?.contains("A: 'grey' 75 % (flash frame 0 %, ambient sample clipped or missing 75 %)") == true)
        #expect(set.clippingSummary?.contains("reshoot with less ambient exposure (or, without an ambient sample, frames that overlap there) or move") == true)
        let json = set.json.object?["mostlyClippedPatchSamples"]?.object?["samples"]?.array?.first?.object
        #expect(json?["ambientClippedFraction"]?.double == 0.75 && json?["flashClippedFraction"]?.double == 0)
        let patch = s.json.object?["patches"]?.array?[2].object
        #expect(patch?["mostlyClipped"] == .bool(true) && patch?["ambientClippedFraction"]?.double == 0.75)
    }

    /// Across a set: grey clipped in A has its repeatability from B and C, A's other patches count,
    /// and the set lists the sample with its clipped fraction.
    @Test func mostlyClippedSampleLeavesTheSetMetrics() throws {
        var ca = O.condition(shift: O.shiftA, ambientShift: O.ambA, scale: 1.7, confidence: [0.9, 0.8, 0.7, 0.6])
        let cleanA = ca
        let a = try Self.score("A", ca, clipped: Self.clipped(&ca, columns: [2: 8]))
        let b = try Self.score("B", O.condition(shift: O.shiftB, ambientShift: O.ambB, scale: 0.8, confidence: [0.5, 0.6, 0.7, 0.8]), clipped: nil)
        let c = try Self.score("C", O.condition(shift: O.shiftC, ambientShift: O.ambC, scale: 1.1, confidence: [0.95, 0.85, 0.75, 0.65]), clipped: nil)
        let set = SetScore([a, b, c]), bc = SetScore([b, c]), full = SetScore([try Self.score("A", cleanA, clipped: nil), b, c])
        #expect(abs(set.repeatabilityPerPatch[2] - bc.repeatabilityPerPatch[2]) < 1e-12)
        for p in [0, 1, 3] { #expect(abs(set.repeatabilityPerPatch[p] - full.repeatabilityPerPatch[p]) < 1e-6) }
        #expect(set.mostlyClippedSamples.map { "\($0.condition)/\($0.patch)/\($0.clippedFraction)/\($0.flash)/\($0.ambient)" } == ["A/grey/1.0/1.0/0.0"])
        #expect(set.occludedOutputSamples.isEmpty && set.occlusionSummary == nil && set.patchesWithoutRepeatability.isEmpty)
        #expect(set.clippingSummary?.contains("left out 1 patch sample(s) mostly clipped (A: 'grey' 100 % (flash frame 100 %, ambient sample clipped or missing 0 %)") == true)
        #expect(set.clippingSummary?.contains("reshoot with less flash or move") == true)
        #expect(set.json.object?["mostlyClippedPatchSamples"]?.object?["count"]?.double == 1)
        // Clipped in every condition: no repeatability, said so.
        var cb = O.condition(shift: O.shiftB, ambientShift: O.ambB, scale: 0.8, confidence: [0.5, 0.6, 0.7, 0.8])
        let b2 = try Self.score("B", cb, clipped: Self.clipped(&cb, columns: [2: 8]))
        let both = SetScore([a, b2])
        #expect(both.patchesWithoutRepeatability == ["grey"] && both.withoutRepeatabilitySummary?.hasPrefix("no repeatability for grey") == true)
        #expect(both.json.object?["patchesWithoutRepeatability"]?.array?.compactMap(\.string) == ["grey"])
    }

    /// Three of four patches mostly clipped: the capture is overexposed, refused. `calibrate chart`'s
    /// sampling (`.refused`) still refuses one mostly clipped patch.
    @Test func mostlyClippedChartIsRefused() throws {
        var c = O.condition(shift: O.shiftA, ambientShift: O.ambA, scale: 1, confidence: [0.9, 0.8, 0.7, 0.6])
        let clean = c
        let mask = Self.clipped(&c, columns: [0: 8, 1: 7, 3: 5])
        #expect(throws: PatchSamplingError.mostPatchesClipped(file: "flash.tif", clipped: 3, total: 4, first: "red")) {
            try Self.score("A", c, clipped: mask)
        }
        // The same in the ambient samples names the ambient frame; split between the two, both.
        var d = clean
        #expect(throws: PatchSamplingError.mostPatchesClipped(file: "ambient.tif", clipped: 3, total: 4, first: "red")) {
            try Self.score("A", d, clipped: Self.clipped(&d, columns: [0: 8, 1: 7, 3: 5], bit: PixelFlag.ambientClipped))
        }
        let split = Self.clipped(&d, columns: [0: 3, 1: 3, 3: 3], bit: PixelFlag.ambientClipped, fromRight: true,
                                 adding: Self.clipped(&d, columns: [0: 4, 1: 4, 3: 4]))
        #expect(throws: PatchSamplingError.mostPatchesClipped(file: "flash.tif and ambient.tif", clipped: 3, total: 4, first: "red")) {
            try Self.score("A", d, clipped: split)
        }
        var one = clean
        let oneMask = Self.clipped(&one, columns: [1: 7])
        #expect(throws: PatchSamplingError.mostlyClipped(file: "flash.tif", patch: "green", clippedPercent: 88)) {
            try PatchSampling.sample(one.linear, chart: O.chart, clipped: oneMask, file: "flash.tif")
        }
        #expect(try PatchSampling.sample(one.linear, chart: O.chart, clipped: oneMask, mostlyClippedPatches: .flagged, file: "flash.tif")
            .map(\.mostlyClipped) == [false, true, false, false])
    }

    /// A patch mostly where the frames disagree (stage 4c's `PixelFlag.framesDisagree`: something moved
    /// over it) is left out as a clipped one is, and said as what it is: its share, no clipping, and
    /// advice to keep the scene still (the line had said "reshoot with  or move the highlight"). A
    /// chart mostly so flagged is refused as such, and one mostly flagged for both reasons together
    /// names both.
    @Test func patchWhereTheFramesDisagreeIsLeftOutAndSaidSo() throws {
        let (clean, r, s) = try Self.greyFlagged(bit: PixelFlag.framesDisagree)
        #expect(s.clippedFraction == [0, 0, 0.75, 0] && s.disagreeFraction == s.clippedFraction)
        #expect(s.flashClippedFraction == [0, 0, 0, 0] && s.ambientClippedFraction == [0, 0, 0, 0])
        #expect(s.isMostlyClipped(2) && s.scoredPatches == [0, 1, 3])
        #expect(abs(s.exposureScale - r.exposureScale) < 1e-12 && abs(s.meanDeltaE2000 - r.meanDeltaE2000) < 1e-12)
        let summary = try #require(SetScore([s]).clippingSummary)
        #expect(summary.contains("mostly clipped or where the frames disagree (A: 'grey' 75 % (flash frame 0 %, ambient sample clipped or missing 0 %, frames disagree 75 %)"))
        #expect(summary.contains("keep the chart and what lies over it still between the two frames") && !summary.contains("reshoot with"))
        #expect(!summary.contains("  "))
        let json = SetScore([s]).json.object?["mostlyClippedPatchSamples"]?.object?["samples"]?.array?.first?.object
        #expect(json?["framesDisagreeFraction"]?.double == 0.75 && json?["flashClippedFraction"]?.double == 0)
        #expect(s.json.object?["patches"]?.array?[2].object?["framesDisagreeFraction"]?.double == 0.75)
        // A clipped patch beside it: both remedies, the clipping's first.
        var t = clean
        let mixed = Self.clipped(&t, columns: [1: 6], adding: Self.clipped(&t, columns: [2: 6], bit: PixelFlag.framesDisagree))
        let both = try #require(SetScore([try Self.score("A", t, clipped: mixed)]).clippingSummary)
        #expect(both.contains("reshoot with less flash or move the highlight off the chart, and keep the chart"))
        // Most of the chart: refused, named for what it is.
        var d = clean
        #expect(throws: PatchSamplingError.mostPatchesFramesDisagree(file: "flash.tif", count: 3, total: 4, first: "red")) {
            try Self.score("A", d, clipped: Self.clipped(&d, columns: [0: 8, 1: 7, 3: 5], bit: PixelFlag.framesDisagree))
        }
        var e = clean
        let split = Self.clipped(&e, columns: [0: 3, 1: 3, 3: 3], bit: PixelFlag.framesDisagree, fromRight: true,
                                 adding: Self.clipped(&e, columns: [0: 4, 1: 4, 3: 4]))
        #expect(throws: PatchSamplingError.mostPatchesUnmeasured(file: "flash.tif and ambient.tif", count: 3, total: 4, first: "red")) {
            try Self.score("A", e, clipped: split)
        }
    }
}
