import ConstantColor
import ConstantColorIO

/// SPEC 5 metrics over a set of conditions of the same chart.
public struct SetScore: Sendable {
    /// Conditions scored.
    public var conditionCount: Int
    /// Per patch: mean CIEDE2000 of its color in each condition from its mean color over all conditions.
    public var repeatabilityPerPatch: [Double]
    /// Mean of `repeatabilityPerPatch`. Repeatability and variance reduction are NaN (JSON `null`)
    /// for a set of one condition.
    public var meanRepeatability: Double
    /// 90th percentile of `repeatabilityPerPatch` (linear interpolation between order statistics).
    public var p90Repeatability: Double
    /// 1 − var(constant color) / var(ambient photo): var is a patch's L*a*b* variance across the
    /// conditions (sum over L*, a*, b* of the mean squared deviation), averaged over patches. NaN
    /// where the ambient photos' variance is under `leastAmbientVariance` a patch.
    public var varianceReduction: Double
    /// The ambient photos' per-patch L*a*b* variance under which the variance reduction is
    /// undefined (0.25: an RMS spread of half a unit).
    public static let leastAmbientVariance = 0.25
    /// The ambient photos' L*a*b* variance across the conditions, averaged over patches (NaN for
    /// one condition): `varianceReduction` is undefined where it is under `leastAmbientVariance`.
    public var meanAmbientPhotoVariance: Double
    /// Mean over conditions of each condition's mean CIEDE2000.
    public var meanAccuracy: Double
    /// Max CIEDE2000 over all patches and conditions.
    public var maxAccuracy: Double
    /// Mean over conditions of the mean patch confidence.
    public var meanPatchConfidence: Double
    /// Conditions per decision ("constantColor", "fallback").
    public var decisions: [String: Int]
    /// Confidence honesty pooled over the pixels of every condition that has a label map (nil: none has).
    public var honesty: ConfidenceHonesty?
    /// Conditions with a label map.
    public var honestyConditionCount: Int
    /// Over the conditions whose report has an estimate and whose truth has a ratio: mean and max
    /// |estimated / true − 1| of the ambient-to-flash ratio, and the same for the EXIF ratio.
    public var ratioErrorMean: Double?, ratioErrorMax: Double?, nominalRatioErrorMean: Double?, nominalRatioErrorMax: Double?
    /// Over the conditions whose estimate has an error and a stated uncertainty
    /// (`ExposureRatioScore.estimatedErrorZ`): how many there are, how many lie within two stated
    /// standard uncertainties, and the RMS of z (about 1 where the stated uncertainty is honest).
    public var ratioZCount = 0, ratioWithinTwoUncertainties = 0, ratioErrorZRMS: Double?
    /// Patch samples left out because another material covers the patch in the fused output
    /// (condition name, patch name), in condition then chart order.
    public var occludedOutputSamples: [(condition: String, patch: String)]
    /// Patch samples left out of the variance reduction because another material covers the patch
    /// in the ambient photo (and not already in `occludedOutputSamples`).
    public var occludedAmbientSamples: [(condition: String, patch: String)]
    /// Patch samples left out because the patch is mostly clipped in the condition's frames
    /// (`ConditionScore.isMostlyClipped`; not already in `occludedOutputSamples`), with the clipped
    /// fraction and its flash-frame, ambient-sample and frames-disagree shares, in condition then chart order.
    public var mostlyClippedSamples: [(condition: String, patch: String, clippedFraction: Double, flash: Double, ambient: Double,
                                       disagree: Double)]
    /// Patches left out of the repeatability because they are left out (occluded or mostly
    /// clipped) in every condition.
    public var patchesWithoutRepeatability: [String]

    /// Linear-interpolation percentile (`q` in 0...1) of values (Hyndman & Fan 1996, definition 7).
    public static func percentile(_ values: [Double], _ q: Double) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        let h = q * Double(s.count - 1)
        let lo = Int(h.rounded(.down)), hi = min(lo + 1, s.count - 1)
        return s[lo] + (h - Double(lo)) * (s[hi] - s[lo])
    }

    /// Summarizes conditions scored on the same chart (at least one).
    ///
    /// A patch sample left out of a condition's output (`ConditionScore.isLeftOutOfOutput`: occluded
    /// or mostly clipped in a frame) is left out of that patch's repeatability; the variance
    /// reduction of a patch uses the conditions where it is left out of neither the output nor the
    /// ambient photo (the same conditions on both sides). A patch left out everywhere has no
    /// repeatability (NaN, left out of the mean and p90). Set means
    /// of accuracy and confidence are over the conditions with at least one scored patch.
    public init(_ conditions: [ConditionScore]) {
        precondition(!conditions.isEmpty, "at least one condition")
        let patchCount = conditions[0].referenceLab.count
        var repeatability: [Double] = [], varianceCC = 0.0, varianceAmbient = 0.0
        for p in 0..<patchCount {
            let scored = conditions.filter { !$0.isLeftOutOfOutput(p) }
            if scored.isEmpty {
                repeatability.append(.nan)
            } else {
                let n = Double(scored.count)
                let mean = scored.map { $0.measuredLab[p] }.reduce(.zero, +) / n
                repeatability.append(scored.map { ColorScience.ciede2000($0.measuredLab[p], mean) }.reduce(0, +) / n)
            }
            let both = scored.filter { !$0.isOccludedInAmbientPhoto(p) }
            if !both.isEmpty {
                let n = Double(both.count)
                let mean = both.map { $0.measuredLab[p] }.reduce(.zero, +) / n
                let meanAmbient = both.map { $0.ambientPhotoLab[p] }.reduce(.zero, +) / n
                varianceCC += both.map { (($0.measuredLab[p] - mean) * ($0.measuredLab[p] - mean)).sum() }.reduce(0, +) / n
                varianceAmbient += both.map { (($0.ambientPhotoLab[p] - meanAmbient) * ($0.ambientPhotoLab[p] - meanAmbient)).sum() }.reduce(0, +) / n
            }
        }
        conditionCount = conditions.count
        repeatabilityPerPatch = repeatability
        let finiteRepeatability = repeatability.filter(\.isFinite)
        meanRepeatability = finiteRepeatability.reduce(0, +) / Double(finiteRepeatability.count)
        p90Repeatability = Self.percentile(finiteRepeatability, 0.9)
        patchesWithoutRepeatability = repeatability.indices.filter { !repeatability[$0].isFinite }.map { conditions[0].patchNames[$0] }
        // Undefined where the ambient photos do not vary across the conditions (RMS spread under
        // half a CIELAB unit a patch: nothing to reduce): NaN, not −4.5·10⁹ % (a review's set of one
        // ambient frame under two white balances).
        let patchesCounted = Double(max(1, patchCount))
        meanAmbientPhotoVariance = varianceAmbient / patchesCounted
        varianceReduction = meanAmbientPhotoVariance > Self.leastAmbientVariance ? 1 - varianceCC / varianceAmbient : .nan
        if conditions.count < 2 {
            // Spread across conditions is undefined for one condition (not 0, which would pass).
            repeatabilityPerPatch = repeatability.map { _ in .nan }
            meanRepeatability = .nan; p90Repeatability = .nan; varianceReduction = .nan; meanAmbientPhotoVariance = .nan
            patchesWithoutRepeatability = []
        }
        let withScored = conditions.filter { !$0.scoredPatches.isEmpty }
        let m = Double(withScored.count)
        meanAccuracy = withScored.map(\.meanDeltaE2000).reduce(0, +) / m
        maxAccuracy = withScored.map(\.maxDeltaE2000).max() ?? 0
        meanPatchConfidence = withScored.map(\.meanPatchConfidence).reduce(0, +) / m
        occludedOutputSamples = conditions.flatMap { c in c.patchNames.indices.filter(c.isOccludedInOutput).map { (condition: c.name, patch: c.patchNames[$0]) } }
        occludedAmbientSamples = conditions.flatMap { c in
            c.patchNames.indices.filter { c.isOccludedInAmbientPhoto($0) && !c.isLeftOutOfOutput($0) }.map { (condition: c.name, patch: c.patchNames[$0]) }
        }
        mostlyClippedSamples = conditions.flatMap { c in
            c.patchNames.indices.filter(c.isMostlyClipped).map {
                (condition: c.name, patch: c.patchNames[$0], clippedFraction: c.clippedFraction[$0],
                 flash: c.flashClippedFraction[$0], ambient: c.ambientClippedFraction[$0],
                 disagree: c.disagree($0))
            }
        }
        decisions = Dictionary(grouping: conditions, by: { $0.decision.rawValue }).mapValues(\.count)
        let tallies = conditions.compactMap(\.honesty)
        honesty = tallies.isEmpty ? nil : tallies.dropFirst().reduce(tallies[0], +)
        honestyConditionCount = tallies.count
        let estimated = conditions.compactMap { $0.exposureRatio.flatMap { $0.relativeError($0.estimated) } }.map(abs)
        let nominal = conditions.compactMap { $0.exposureRatio.flatMap { $0.relativeError($0.nominal) } }.map(abs)
        ratioErrorMean = estimated.isEmpty ? nil : estimated.reduce(0, +) / Double(estimated.count)
        ratioErrorMax = estimated.max()
        nominalRatioErrorMean = nominal.isEmpty ? nil : nominal.reduce(0, +) / Double(nominal.count)
        nominalRatioErrorMax = nominal.max()
        let z = conditions.compactMap { $0.exposureRatio?.estimatedErrorZ }
        ratioZCount = z.count
        ratioWithinTwoUncertainties = z.filter { abs($0) <= 2 }.count
        ratioErrorZRMS = z.isEmpty ? nil : (z.map { $0 * $0 }.reduce(0, +) / Double(z.count)).squareRoot()
    }

    /// Why patch samples are left out, in words (reports).
    public static let occlusionRule = String(
        format: "a patch sample is left out when fewer than %.0f %% of its square's pixels carry the patch's own label in the condition's label map (another material, e.g. a moving object, covers it): output-occluded samples leave accuracy, the exposure fit, patch confidence, repeatability and variance reduction; ambient-photo-occluded samples leave the variance reduction",
        100 * PatchLabelMask.minimumOwnFraction)

    /// One line for text reports: how many patch samples were left out and which (nil: none).
    public var occlusionSummary: String? {
        guard !occludedOutputSamples.isEmpty || !occludedAmbientSamples.isEmpty else { return nil }
        func list(_ l: [(condition: String, patch: String)]) -> String {
            l.isEmpty ? "none" : l.map { "\($0.condition): '\($0.patch)'" }.joined(separator: ", ")
        }
        return "left out \(occludedOutputSamples.count) patch sample(s) covered by another material in the fused output (\(list(occludedOutputSamples)))"
            + " and \(occludedAmbientSamples.count) more from the variance reduction, covered in the ambient photo (\(list(occludedAmbientSamples)))"
            + String(format: " (rule: fewer than %.0f %% own-label pixels in the square; an output pixel is its patch's where the flash frame saw the patch and the ambient frame saw it all around the pixel's true position there)", 100 * PatchLabelMask.minimumOwnFraction)
    }

    /// Why mostly clipped patch samples are left out, in words (reports).
    public static let clippingRule = String(
        format: "a patch sample is left out when more than %.0f %% of its pixels are clipped in the condition's flash frame, have a clipped (or no) registered ambient sample, or lie where the frames disagree (stage 4c: something moved between them): the fused output there is the gap fill, not a measurement (accuracy, the exposure fit, patch confidence, repeatability and variance reduction); a condition with more than half of its patches so clipped is refused (overexposed, or a camera profile whose levels are not the files'), and one with more than half where the frames disagree is refused as such",
        100 * PatchSampling.mostlyClippedFraction)

    /// One line for text reports: the patch samples left out as mostly clipped, with each frame's
    /// share (nil: none).
    public var clippingSummary: String? {
        guard !mostlyClippedSamples.isEmpty else { return nil }
        let list = mostlyClippedSamples.map {
            String(format: "%@: '%@' %.0f %% (flash frame %.0f %%, ambient sample clipped or missing %.0f %%", $0.condition, $0.patch,
                   100 * $0.clippedFraction, 100 * $0.flash, 100 * $0.ambient)
                + ($0.disagree > 0 ? String(format: ", frames disagree %.0f %%)", 100 * $0.disagree) : ")")
        }
        let flash = mostlyClippedSamples.contains { $0.flash > 0 }, ambient = mostlyClippedSamples.contains { $0.ambient > 0 }
        let disagree = mostlyClippedSamples.contains { $0.disagree > 0 }
        let exposure = [flash ? "less flash" : nil, ambient ? "less ambient exposure (or, without an ambient sample, frames that overlap there)" : nil]
            .compactMap { $0 }.joined(separator: " or ")
        let advice = [exposure.isEmpty ? nil : "reshoot with \(exposure) or move the highlight off the chart",
                      disagree ? "keep the chart and what lies over it still between the two frames (stage 4c found them disagreeing there: something moved)" : nil]
            .compactMap { $0 }.joined(separator: ", and ")
        return "left out \(mostlyClippedSamples.count) patch sample(s) mostly clipped\(disagree ? " or where the frames disagree" : "") (\(list.joined(separator: ", ")) of the pixels clipped\(disagree ? " or disagreeing" : "")): the output there is the gap fill, not a measurement; \(advice) to score them"
    }

    /// One line for text reports: the patches with no repeatability, left out in every condition (nil: none).
    public var withoutRepeatabilitySummary: String? {
        patchesWithoutRepeatability.isEmpty ? nil
            : "no repeatability for \(patchesWithoutRepeatability.joined(separator: ", ")): left out (occluded or mostly clipped) in every condition"
    }

    /// The summary as JSON.
    public var json: JSONValue {
        func o(_ v: Double?) -> JSONValue { v.flatMap { $0.isFinite ? JSONValue.number($0) : nil } ?? .null }
        func pairs(_ list: [(condition: String, patch: String)]) -> JSONValue {
            .array(list.map { .object(["condition": .string($0.condition), "patch": .string($0.patch)]) })
        }
        var j: [String: JSONValue] = ["conditionCount": .number(Double(conditionCount)),
                 "repeatabilityMeanDeltaE2000": o(meanRepeatability),
                 "repeatabilityP90DeltaE2000": o(p90Repeatability),
                 "repeatabilityPerPatch": .array(repeatabilityPerPatch.map(o)),
                 "varianceReduction": o(varianceReduction),
                 "accuracyMeanDeltaE2000": o(meanAccuracy), "accuracyMaxDeltaE2000": o(maxAccuracy),
                 "meanPatchConfidence": o(meanPatchConfidence),
                 "decisions": .object(decisions.mapValues { .number(Double($0)) }),
                 "occludedPatchSamples": .object([
                    "rule": .string(Self.occlusionRule),
                    "outputCount": .number(Double(occludedOutputSamples.count)), "output": pairs(occludedOutputSamples),
                    "ambientPhotoOnlyCount": .number(Double(occludedAmbientSamples.count)), "ambientPhotoOnly": pairs(occludedAmbientSamples),
                    "patchesWithoutRepeatability": .array(patchesWithoutRepeatability.map(JSONValue.string))])]
        // (Also under occludedPatchSamples, where it was first written; occluded or mostly clipped.)
        j["patchesWithoutRepeatability"] = .array(patchesWithoutRepeatability.map(JSONValue.string))
        j["mostlyClippedPatchSamples"] = .object([
            "rule": .string(Self.clippingRule), "count": .number(Double(mostlyClippedSamples.count)),
            "samples": .array(mostlyClippedSamples.map {
                .object(["condition": .string($0.condition), "patch": .string($0.patch), "clippedFraction": .number($0.clippedFraction),
                         "flashClippedFraction": .number($0.flash), "ambientClippedFraction": .number($0.ambient),
                         "framesDisagreeFraction": .number($0.disagree)])
            })])
        if let h = honesty {
            j["confidenceHonesty"] = h.json
            j["confidenceHonestyConditionCount"] = .number(Double(honestyConditionCount))
        }
        j["ambientToFlashRatio"] = .object([
            "estimatedRelativeErrorMean": o(ratioErrorMean), "estimatedRelativeErrorMax": o(ratioErrorMax),
            "nominalRelativeErrorMean": o(nominalRatioErrorMean), "nominalRelativeErrorMax": o(nominalRatioErrorMax),
            "estimatedErrorZRMS": o(ratioErrorZRMS), "estimatedErrorZConditions": .number(Double(ratioZCount)),
            "estimatedWithinTwoUncertainties": .number(Double(ratioWithinTwoUncertainties))])
        return .object(j)
    }
}
