import ConstantColor
import ConstantColorIO

/// SPEC 5 metrics over a set of conditions of the same chart.
public struct SetScore: Sendable {
    /// Conditions scored.
    public var conditionCount: Int
    /// Per patch: mean CIEDE2000 of its color in each condition from its mean color over all conditions.
    public var repeatabilityPerPatch: [Double]
    /// Mean of `repeatabilityPerPatch`.
    public var meanRepeatability: Double
    /// 90th percentile of `repeatabilityPerPatch` (linear interpolation between order statistics).
    public var p90Repeatability: Double
    /// 1 − var(constant color) / var(ambient photo): var is a patch's L*a*b* variance across the
    /// conditions (sum over L*, a*, b* of the mean squared deviation), averaged over patches.
    public var varianceReduction: Double
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

    /// Linear-interpolation percentile (`q` in 0...1) of values (Hyndman & Fan 1996, definition 7).
    public static func percentile(_ values: [Double], _ q: Double) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        let h = q * Double(s.count - 1)
        let lo = Int(h.rounded(.down)), hi = min(lo + 1, s.count - 1)
        return s[lo] + (h - Double(lo)) * (s[hi] - s[lo])
    }

    /// Summarizes conditions scored on the same chart (at least one).
    public init(_ conditions: [ConditionScore]) {
        precondition(!conditions.isEmpty, "at least one condition")
        let n = Double(conditions.count), patchCount = conditions[0].referenceLab.count
        var repeatability: [Double] = [], varianceCC = 0.0, varianceAmbient = 0.0
        for p in 0..<patchCount {
            let mean = conditions.map { $0.measuredLab[p] }.reduce(.zero, +) / n
            repeatability.append(conditions.map { ColorScience.ciede2000($0.measuredLab[p], mean) }.reduce(0, +) / n)
            let meanAmbient = conditions.map { $0.ambientPhotoLab[p] }.reduce(.zero, +) / n
            varianceCC += conditions.map { (($0.measuredLab[p] - mean) * ($0.measuredLab[p] - mean)).sum() }.reduce(0, +) / n
            varianceAmbient += conditions.map { (($0.ambientPhotoLab[p] - meanAmbient) * ($0.ambientPhotoLab[p] - meanAmbient)).sum() }.reduce(0, +) / n
        }
        conditionCount = conditions.count
        repeatabilityPerPatch = repeatability
        meanRepeatability = repeatability.reduce(0, +) / Double(patchCount)
        p90Repeatability = Self.percentile(repeatability, 0.9)
        varianceReduction = varianceAmbient > 0 ? 1 - varianceCC / varianceAmbient : 0
        meanAccuracy = conditions.map(\.meanDeltaE2000).reduce(0, +) / n
        maxAccuracy = conditions.map(\.maxDeltaE2000).max() ?? 0
        meanPatchConfidence = conditions.map(\.meanPatchConfidence).reduce(0, +) / n
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
    }

    /// The summary as JSON.
    public var json: JSONValue {
        func o(_ v: Double?) -> JSONValue { v.map(JSONValue.number) ?? .null }
        var j: [String: JSONValue] = ["conditionCount": .number(Double(conditionCount)),
                 "repeatabilityMeanDeltaE2000": .number(meanRepeatability),
                 "repeatabilityP90DeltaE2000": .number(p90Repeatability),
                 "repeatabilityPerPatch": .array(repeatabilityPerPatch.map(JSONValue.number)),
                 "varianceReduction": .number(varianceReduction),
                 "accuracyMeanDeltaE2000": .number(meanAccuracy), "accuracyMaxDeltaE2000": .number(maxAccuracy),
                 "meanPatchConfidence": .number(meanPatchConfidence),
                 "decisions": .object(decisions.mapValues { .number(Double($0)) })]
        if let h = honesty {
            j["confidenceHonesty"] = h.json
            j["confidenceHonestyConditionCount"] = .number(Double(honestyConditionCount))
        }
        j["ambientToFlashRatio"] = .object([
            "estimatedRelativeErrorMean": o(ratioErrorMean), "estimatedRelativeErrorMax": o(ratioErrorMax),
            "nominalRelativeErrorMean": o(nominalRatioErrorMean), "nominalRelativeErrorMax": o(nominalRatioErrorMax)])
        return .object(j)
    }
}
