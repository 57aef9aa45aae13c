import ConstantColor
import ConstantColorIO
import Testing
@testable import ConstantColorCalibration

/// A patch mostly clipped in a condition's flash frame is left out of that condition's metrics (the
/// output there is the gap fill) and listed, as an occluded patch is; a mostly clipped chart is
/// refused. Uses `OccludedPatchTests`' painted conditions.
@Suite struct MostlyClippedPatchTests {
    typealias O = OccludedPatchTests

    /// A clip mask over the first `columns[i]` of patch i's 8 columns; the output's unclipped pixels
    /// of those patches are painted a wrong colour (what bleeds into a gap fill), so that scoring
    /// them would show.
    static func clipped(_ c: inout O.Condition, columns: [Int: Int]) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: c.linear.width * c.linear.height)
        let wrong = ColorScience.xyz(fromLab: SIMD3(70, 30, -40), white: O.white)
        for (i, p) in O.chart.patches.enumerated() where columns[i] != nil {
            let sq = PatchSquare(center: p.center, halfSize: p.halfSize)
            for y in sq.rows {
                for (k, x) in sq.columns.enumerated() {
                    if k < columns[i]! { mask[y * c.linear.width + x] = 1 }
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
            flashClipped: clipped, file: "flash.tif")
    }

    /// Grey (a neutral patch) 6 of 8 columns clipped: left out of accuracy, the exposure fit and the
    /// patch confidence, which equal the chart's without it; 4 of 8 (not more than half) is scored.
    @Test func mostlyClippedPatchIsLeftOutOfTheCondition() throws {
        var c = O.condition(shift: O.shiftA, ambientShift: O.ambA, scale: 1.7, confidence: [0.9, 0.8, 0.7, 0.6])
        let clean = c
        let mask = Self.clipped(&c, columns: [2: 6])
        let s = try Self.score("A", c, clipped: mask)
        #expect(s.flashClippedFraction == [0, 0, 0.75, 0])
        #expect(s.isMostlyClippedInFlash(2) && !s.isOccludedInOutput(2) && s.scoredPatches == [0, 1, 3])
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
        #expect(!h.isMostlyClippedInFlash(2) && h.scoredPatches == [0, 1, 2, 3])
        #expect(abs(h.exposureScale - 1.7) > 0.01 && h.deltaE2000[2] > 20)
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
        #expect(set.mostlyClippedSamples.map { "\($0.condition)/\($0.patch)/\($0.clippedFraction)" } == ["A/grey/1.0"])
        #expect(set.occludedOutputSamples.isEmpty && set.occlusionSummary == nil && set.patchesWithoutRepeatability.isEmpty)
        #expect(set.clippingSummary?.contains("left out 1 patch sample(s) mostly clipped in the flash frame (A: 'grey' 100 %") == true)
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
        var one = clean
        let oneMask = Self.clipped(&one, columns: [1: 7])
        #expect(throws: PatchSamplingError.mostlyClipped(file: "flash.tif", patch: "green", clippedPercent: 88)) {
            try PatchSampling.sample(one.linear, chart: O.chart, clipped: oneMask, file: "flash.tif")
        }
        #expect(try PatchSampling.sample(one.linear, chart: O.chart, clipped: oneMask, mostlyClippedPatches: .flagged, file: "flash.tif")
            .map(\.mostlyClipped) == [false, true, false, false])
    }
}
