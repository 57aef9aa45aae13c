import ConstantColor
import ConstantColorIO
import Foundation
import Testing
@testable import ConstantColorCalibration

/// Patch scoring with material label maps: an object over a patch is not taken for the patch.
/// Four 8×8 patches on a 40×10 frame; each condition's images are painted from known L*a*b*.
@Suite struct OccludedPatchTests {
    static let white = ColorScience.whiteD65XYZ
    static let chart = ChartDescription(patches: [
        ChartPatch(name: "red", center: SIMD2(5, 5), halfSize: 4, labD65: SIMD3(45, 50, 30)),
        ChartPatch(name: "green", center: SIMD2(15, 5), halfSize: 4, labD65: SIMD3(55, -40, 30)),
        ChartPatch(name: "grey", center: SIMD2(25, 5), halfSize: 4, labD65: SIMD3(50, 0, 0)),
        ChartPatch(name: "white", center: SIMD2(35, 5), halfSize: 4, labD65: SIMD3(90, 0, 0)),
    ])
    /// Patch i has label i + 2 (1 is the background); the covering object is 99, painted this colour.
    static let patchLabels = [2, 3, 4, 5], coverLabel = 99, coverLab = SIMD3(65.0, 15, 17)

    /// One condition's images. `da`/`db` shift each patch's a*, b* (L* kept, so the neutral patches
    /// give the exposure 1/`scale` exactly); `coverOutput`/`coverAmbient`: patch index → how many of
    /// its 8 columns (from the left) the object covers in the flash / ambient frame.
    struct Condition {
        var linear: PlanarImage, ambient: PlanarImage, confidence: PlanarImage
        var flashLabels: PlanarImage, ambientLabels: PlanarImage
    }

    static func condition(shift: [SIMD2<Double>], ambientShift: [SIMD2<Double>], scale: Double, confidence: [Float],
                          coverOutput: [Int: Int] = [:], coverAmbient: [Int: Int] = [:]) -> Condition {
        let w = 40, h = 10
        var c = Condition(linear: PlanarImage(width: w, height: h, channelCount: 3, repeating: 0.2),
                          ambient: PlanarImage(width: w, height: h, channelCount: 3, repeating: 0.2),
                          confidence: PlanarImage(width: w, height: h, channelCount: 1, repeating: 0.5),
                          flashLabels: PlanarImage(width: w, height: h, channelCount: 1, repeating: 1),
                          ambientLabels: PlanarImage(width: w, height: h, channelCount: 1, repeating: 1))
        let cover = ColorScience.xyz(fromLab: coverLab, white: white)
        for (i, p) in chart.patches.enumerated() {
            let sq = PatchSquare(center: p.center, halfSize: p.halfSize)
            let out = ColorScience.xyz(fromLab: p.labD65 + SIMD3(0, shift[i].x, shift[i].y), white: white) / scale
            let amb = ColorScience.xyz(fromLab: p.labD65 + SIMD3(0, ambientShift[i].x, ambientShift[i].y), white: white)
            for y in sq.rows {
                for (k, x) in sq.columns.enumerated() {
                    let coveredOut = k < coverOutput[i, default: 0], coveredAmb = k < coverAmbient[i, default: 0]
                    let o = coveredOut ? cover : out, a = coveredAmb ? cover : amb
                    for ch in 0..<3 { c.linear[x, y, ch] = Float(o[ch]); c.ambient[x, y, ch] = Float(a[ch]) }
                    c.confidence[x, y, 0] = coveredOut ? 0.99 : confidence[i]
                    c.flashLabels[x, y, 0] = Float(coveredOut ? coverLabel : patchLabels[i])
                    c.ambientLabels[x, y, 0] = Float(coveredAmb ? coverLabel : patchLabels[i])
                }
            }
        }
        return c
    }

    static func score(_ name: String, _ c: Condition, chart: ChartDescription = chart, labelled: Bool) throws -> ConditionScore {
        try ValidationScoring.score(
            name: name, ambientLux: nil, chart: chart, linearXYZ: c.linear, ambientPhotoXYZ: c.ambient,
            confidence: c.confidence, decision: .constantColor, centerWeightedConfidence: 0.9, ambientFromFlash: .identity,
            outputLabels: labelled ? PatchLabelMask(map: c.flashLabels, labels: patchLabels, file: "labels.tif") : nil,
            ambientLabels: labelled ? PatchLabelMask(map: c.ambientLabels, labels: patchLabels, file: "ambient-labels.tif") : nil,
            file: "flash.tif")
    }

    static let shiftA: [SIMD2<Double>] = [SIMD2(1.5, -1), SIMD2(-2, 0.5), SIMD2(0.5, 0.5), SIMD2(-0.5, 1)]
    static let shiftB: [SIMD2<Double>] = [SIMD2(-1, 2), SIMD2(1, -1), SIMD2(-1, 0.5), SIMD2(0.3, -0.7)]
    static let shiftC: [SIMD2<Double>] = [SIMD2(0.2, 0.4), SIMD2(0.5, 1.5), SIMD2(1, -1), SIMD2(0.8, 0.2)]
    static let ambA: [SIMD2<Double>] = [SIMD2(8, -3), SIMD2(-6, 4), SIMD2(5, 9), SIMD2(-4, 6)]
    static let ambB: [SIMD2<Double>] = [SIMD2(-7, 5), SIMD2(3, -8), SIMD2(-5, -4), SIMD2(6, -2)]
    static let ambC: [SIMD2<Double>] = [SIMD2(2, 8), SIMD2(7, 3), SIMD2(-2, 6), SIMD2(-6, -5)]

    /// A covered neutral patch (the object fills its square) and a partly covered one (5 of 8 columns):
    /// the first is occluded and the condition's metrics equal those of the chart without it; the
    /// second is sampled over its own 3 columns only and measures its own colour, not the object's.
    @Test func occludedPatchIsLeftOutOfTheCondition() throws {
        let covered = Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1.7, confidence: [0.9, 0.8, 0.7, 0.6],
                                     coverOutput: [2: 8, 1: 5])
        let clean = Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1.7, confidence: [0.9, 0.8, 0.7, 0.6])
        let s = try Self.score("A", covered, labelled: true)
        #expect(s.occludedInOutput == [false, false, true, false])
        #expect(s.occludedInAmbientPhoto == [false, false, false, false])
        #expect(abs(s.ownLabelFraction[1] - 3.0 / 8) < 1e-12 && s.ownLabelFraction[2] == 0 && s.ownLabelFraction[0] == 1)
        #expect(s.scoredPatches == [0, 1, 3])

        var reduced = Self.chart
        reduced.patches.remove(at: 2)
        let r = try Self.score("A", clean, chart: reduced, labelled: false)
        #expect(abs(s.exposureScale - 1.7) < 1e-5 && abs(s.exposureScale - r.exposureScale) < 1e-12)
        #expect(abs(s.meanDeltaE2000 - r.meanDeltaE2000) < 1e-12)
        #expect(abs(s.maxDeltaE2000 - r.maxDeltaE2000) < 1e-12)
        #expect(abs(s.meanPatchConfidence - r.meanPatchConfidence) < 1e-12 && abs(s.meanPatchConfidence - (0.9 + 0.8 + 0.6) / 3) < 1e-6)
        #expect(((s.measuredLab[1] - r.measuredLab[1]) * (s.measuredLab[1] - r.measuredLab[1])).sum() < 1e-18)
        #expect(s.meanDeltaE2000 > 0.5 && s.meanDeltaE2000 < 3)

        // Without the label maps the object is scored as the patches (the failure this fixes).
        let blind = try Self.score("A", covered, labelled: false)
        #expect(blind.occludedInOutput.isEmpty && blind.scoredPatches == [0, 1, 2, 3])
        #expect(blind.deltaE2000[1] > 20 && blind.deltaE2000[2] > 10)

        // The JSON lists the occluded patch.
        let json = s.json.object
        #expect(json?["occludedPatches"]?.array?.compactMap(\.string) == ["grey"])
    }

    /// Every neutral patch covered: the exposure of SPEC 5's accuracy cannot be fixed, and scoring
    /// says so instead of assuming an exposure of 1.
    @Test func allNeutralPatchesCoveredIsAnError() throws {
        let covered = Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1.7, confidence: [0.9, 0.8, 0.7, 0.6],
                                     coverOutput: [2: 8, 3: 8])
        #expect(throws: PatchSamplingError.noNeutralPatch(file: "flash.tif")) { try Self.score("A", covered, labelled: true) }
        #expect(PatchSamplingError.noNeutralPatch(file: "flash.tif").description.hasPrefix("flash.tif: no neutral patch"))
    }

    /// Three conditions: the grey patch covered in A's output, the red patch covered in B's ambient
    /// photo. Repeatability of grey is over B and C only; the variance reduction of grey uses B, C and
    /// of red uses A, C (both sides); the set lists both left-out samples.
    @Test func occludedSamplesLeaveTheSetMetrics() throws {
        let a = try Self.score("A", Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1.7,
                                                   confidence: [0.9, 0.8, 0.7, 0.6], coverOutput: [2: 8]), labelled: true)
        let b = try Self.score("B", Self.condition(shift: Self.shiftB, ambientShift: Self.ambB, scale: 0.8,
                                                   confidence: [0.5, 0.6, 0.7, 0.8], coverAmbient: [0: 7]), labelled: true)
        let c = try Self.score("C", Self.condition(shift: Self.shiftC, ambientShift: Self.ambC, scale: 1.1,
                                                   confidence: [0.95, 0.85, 0.75, 0.65]), labelled: true)
        let aClean = try Self.score("A", Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1.7,
                                                        confidence: [0.9, 0.8, 0.7, 0.6]), labelled: false)
        #expect(b.occludedInAmbientPhoto == [true, false, false, false] && b.occludedInOutput == [false, false, false, false])
        let set = SetScore([a, b, c])
        #expect(set.occludedOutputSamples.map { "\($0.condition)/\($0.patch)" } == ["A/grey"])
        #expect(set.occludedAmbientSamples.map { "\($0.condition)/\($0.patch)" } == ["B/red"])
        #expect(set.patchesWithoutRepeatability.isEmpty)
        #expect(set.occlusionSummary?.contains("left out 1 patch sample(s)") == true)

        // Repeatability: grey from B and C only; the others from all three (A's clean samples).
        let bc = SetScore([b, c]), full = SetScore([aClean, b, c])
        #expect(abs(set.repeatabilityPerPatch[2] - bc.repeatabilityPerPatch[2]) < 1e-12)
        // (A's exposure fit uses white alone here, grey and white in aClean: equal up to Float storage.)
        for p in [0, 1, 3] { #expect(abs(set.repeatabilityPerPatch[p] - full.repeatabilityPerPatch[p]) < 1e-6) }
        #expect(abs(full.repeatabilityPerPatch[2] - set.repeatabilityPerPatch[2]) > 1e-3)

        // Variance reduction from its definition over each patch's remaining conditions.
        func variance(_ v: [SIMD3<Double>]) -> Double {
            let m = v.reduce(.zero, +) / Double(v.count)
            return v.map { (($0 - m) * ($0 - m)).sum() }.reduce(0, +) / Double(v.count)
        }
        let kept: [[ConditionScore]] = [[a, c], [a, b, c], [b, c], [a, b, c]]
        let cc = (0..<4).map { p in variance(kept[p].map { $0.measuredLab[p] }) }.reduce(0, +)
        let amb = (0..<4).map { p in variance(kept[p].map { $0.ambientPhotoLab[p] }) }.reduce(0, +)
        #expect(abs(set.varianceReduction - (1 - cc / amb)) < 1e-12)
        #expect(set.varianceReduction > 0.8)

        // Accuracy and confidence: A's means are over red, green and white.
        #expect(abs(a.meanDeltaE2000 - (a.deltaE2000[0] + a.deltaE2000[1] + a.deltaE2000[3]) / 3) < 1e-12)
        #expect(abs(set.meanAccuracy - (a.meanDeltaE2000 + b.meanDeltaE2000 + c.meanDeltaE2000) / 3) < 1e-12)
        #expect(abs(set.meanPatchConfidence - ((0.9 + 0.8 + 0.6) / 3 + 0.65 + 0.8) / 3) < 1e-6)
        let json = set.json.object?["occludedPatchSamples"]?.object
        #expect(json?["outputCount"]?.double == 1 && json?["ambientPhotoOnlyCount"]?.double == 1)
    }

    /// Ambient photos that do not vary across the conditions leave nothing to reduce: the variance
    /// reduction is undefined (NaN, null in JSON), not a huge negative percentage.
    @Test func varianceReductionUndefinedWithoutAmbientVariation() throws {
        let a = try Self.score("A", Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1, confidence: [0.9, 0.8, 0.7, 0.6]),
                               labelled: true)
        let b = try Self.score("B", Self.condition(shift: Self.shiftB, ambientShift: Self.ambA, scale: 1, confidence: [0.9, 0.8, 0.7, 0.6]),
                               labelled: true)
        let set = SetScore([a, b])
        #expect(set.varianceReduction.isNaN, "\(set.varianceReduction)")
        if case .null? = set.json.object?["varianceReduction"] {} else { Issue.record("varianceReduction should be null") }
        #expect(set.meanRepeatability.isFinite)
    }

    /// A patch covered in every condition has no repeatability (left out of the mean, null in JSON).
    @Test func patchOccludedEverywhereHasNoRepeatability() throws {
        let a = try Self.score("A", Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1, confidence: [0.9, 0.8, 0.7, 0.6],
                                                   coverOutput: [0: 8]), labelled: true)
        let b = try Self.score("B", Self.condition(shift: Self.shiftB, ambientShift: Self.ambB, scale: 1, confidence: [0.9, 0.8, 0.7, 0.6],
                                                   coverOutput: [0: 7]), labelled: true)
        let set = SetScore([a, b])
        #expect(set.patchesWithoutRepeatability == ["red"])
        #expect(!set.repeatabilityPerPatch[0].isFinite)
        let rest = [1, 2, 3].map { set.repeatabilityPerPatch[$0] }
        #expect(abs(set.meanRepeatability - rest.reduce(0, +) / 3) < 1e-12)
        if case .null? = set.json.object?["repeatabilityPerPatch"]?.array?.first {} else { Issue.record("repeatabilityPerPatch[0] should be null") }
        #expect(set.json.object?["repeatabilityMeanDeltaE2000"]?.double != nil)
    }

    /// A label map of the wrong size is a one-line error naming it.
    @Test func labelMapOfWrongSizeIsAnError() {
        let c = Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1, confidence: [0.9, 0.8, 0.7, 0.6])
        let small = PlanarImage(width: 20, height: 10, channelCount: 1, repeating: 2)
        #expect(throws: PatchSamplingError.self) {
            try PatchSampling.sample(c.linear, chart: Self.chart, labels: PatchLabelMask(map: small, labels: Self.patchLabels, file: "labels.tif"), file: "flash.tif")
        }
        do {
            _ = try PatchSampling.sample(c.linear, chart: Self.chart, labels: PatchLabelMask(map: small, labels: Self.patchLabels, file: "labels.tif"), file: "flash.tif")
        } catch {
            #expect("\(error)".hasPrefix("labels.tif: label map is 20x10") && !"\(error)".contains("\n"))
        }
    }

    /// A chart patch without a material of its name: one line naming truth.json and the patch.
    @Test func patchWithoutMaterialIsAnError() throws {
        let truth = try JSONValue.parse(Data("""
            {"labels": {"flash": "labels.tif", "mixedLabel": 0},
             "materials": [{"label": 2, "name": "red"}, {"label": 3, "name": "green"}, {"label": 5, "name": "white"}]}
            """.utf8), file: "truth.json")
        do {
            _ = try ValidationRun.patchLabelMasks(truth: truth, truthPath: "c/truth.json", folder: "c", chart: Self.chart)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)" == "c/truth.json: chart patch 'grey' has no materials[] entry of the same name, so its label in the label maps is unknown")
        }
        let none = try JSONValue.parse(Data("{}".utf8), file: "truth.json")
        let masks = try ValidationRun.patchLabelMasks(truth: none, truthPath: "t", folder: "c", chart: Self.chart)
        #expect(masks.flash == nil && masks.ambient == nil)
    }

    /// A pixel of the fused output samples its flash-frame material only where the ambient frame saw
    /// the same material on the 3×3 pixels about the pixel's true position there.
    /// Flash labels: 7 everywhere on a 12×10 frame but pixel (0, 9) (0, mixed). Ambient labels: 7, with
    /// a 2×2 block of 9 (a moved object) at columns 6–7, rows 4–5. Geometry: the ambient frame is the
    /// flash frame shifted by (+1.6, −0.4) px, so flash pixel (x, y), centre (x + ½, y + ½), lands at
    /// ambient (x + 2.1, y + 0.1): index (x + 2, y). (Without the half-pixel centres it would be
    /// (x + 1, y − 1): the test tells them apart.)
    @Test func outputPixelsNeedBothFramesToAgree() {
        var flash = PlanarImage(width: 12, height: 10, channelCount: 1, repeating: 7)
        var ambient = flash
        for y in 4...5 { for x in 6...7 { ambient[x, y, 0] = 9 } }
        flash[0, 9, 0] = 0
        let m = Matrix3([1, 0, 1.6, 0, 1, -0.4, 0, 0, 1])
        let mask = PatchLabelMask(map: flash, labels: [7], file: "labels.tif")
            .requiringAgreement(with: PatchLabelMask(map: ambient, labels: [7], file: "ambient-labels.tif"), ambientFromFlash: m)
        let no = PatchLabelMask.disagreementLabel
        for y in 0..<10 {
            for x in 0..<12 {
                let ax = x + 2, ay = y
                // Inside the ambient frame with a one-pixel margin, and no 9 within one pixel.
                let inside = ax >= 1 && ay >= 1 && ax <= 10 && ay <= 8
                let nearObject = (5...8).contains(ax) && (3...6).contains(ay)
                let expected: Float = !inside || nearObject ? no : 7
                #expect(mask.map[x, y, 0] == expected, "(\(x), \(y))")
            }
        }
        #expect(mask.labels == [7] && mask.file == "labels.tif")
        // Identity geometry and equal maps: nothing changes inside the margin.
        let same = PatchLabelMask(map: ambient, labels: [7], file: "a").requiringAgreement(
            with: PatchLabelMask(map: ambient, labels: [7], file: "a"), ambientFromFlash: .identity)
        #expect(same.map[3, 3, 0] == 7 && same.map[6, 4, 0] == no && same.map[0, 0, 0] == no)
        // A geometry that sends pixels nowhere (z ≤ 0) leaves them mixed, without a trap.
        let nowhere = PatchLabelMask(map: flash, labels: [7], file: "a").requiringAgreement(
            with: PatchLabelMask(map: ambient, labels: [7], file: "a"), ambientFromFlash: Matrix3([1, 0, 0, 0, 1, 0, 0, 0, -1]))
        #expect(nowhere.map.samples.allSatisfy { $0 == no })
    }

    /// The set counts the ratio estimate against its stated uncertainty over the conditions that have
    /// both (z = +1, −3, +0.5 here: two within 2σ, RMS √(10.25/3)); a condition without a
    /// stated uncertainty is left out, and a set with none has no RMS.
    @Test func ratioErrorsInStatedUncertaintiesOverTheSet() throws {
        func scored(_ name: String, estimated: Double, uncertainty: Double?) throws -> ConditionScore {
            var s = try Self.score(name, Self.condition(shift: Self.shiftA, ambientShift: Self.ambA, scale: 1.7,
                                                        confidence: [0.9, 0.8, 0.7, 0.6]), labelled: false)
            s.exposureRatio = ExposureRatioScore(nominal: 10, estimated: estimated, trueRatio: 10,
                                                 estimatedRelativeUncertainty: uncertainty)
            return s
        }
        let a = try scored("A", estimated: 10.1, uncertainty: 0.01), b = try scored("B", estimated: 9.4, uncertainty: 0.02)
        let c = try scored("C", estimated: 10.02, uncertainty: 0.004), d = try scored("D", estimated: 10.5, uncertainty: nil)
        let set = SetScore([a, b, c, d])
        #expect(set.ratioZCount == 3 && set.ratioWithinTwoUncertainties == 2)
        let expected: Double = (10.25 / 3.0).squareRoot()
        #expect(abs(try #require(set.ratioErrorZRMS) - expected) < 1e-9)
        let ratio = set.json.object?["ambientToFlashRatio"]?.object
        #expect(ratio?["estimatedWithinTwoUncertainties"]?.double == 2)
        #expect(ratio?["estimatedErrorZConditions"]?.double == 3)
        let none = SetScore([d])
        #expect(none.ratioZCount == 0 && none.ratioErrorZRMS == nil)
    }
}
