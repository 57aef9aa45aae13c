import ConstantColor
import ConstantColorIO

/// SPEC 5 metrics of one lighting condition: the fused chart against its reference.
public struct ConditionScore: Sendable {
    /// The condition's name (its folder's name).
    public var name: String
    /// Ambient illuminance at the chart center, lux, when the truth file gives it.
    public var ambientLux: Double?
    /// Patch names, in chart order.
    public var patchNames: [String]
    /// Reference L*a*b* (D65).
    public var referenceLab: [SIMD3<Double>]
    /// Measured L*a*b* (D65) of the constant-color output, after the scalar exposure fit.
    public var measuredLab: [SIMD3<Double>]
    /// L*a*b* (D65) of the ambient frame rendered as a normal photo (gray world), its own exposure.
    public var ambientPhotoLab: [SIMD3<Double>]
    /// Per-patch CIEDE2000 against the reference (accuracy).
    public var deltaE2000: [Double]
    /// The scalar exposure fitted on the neutral patches (multiplies the measured XYZ).
    public var exposureScale: Double
    /// Per-patch median confidence.
    public var patchConfidence: [Double]
    /// The pipeline's decision.
    public var decision: FusionDecision
    /// The pipeline's center-weighted mean confidence.
    public var centerWeightedConfidence: Double
    /// The registration found (ambient-from-flash homography, rows).
    public var ambientFromFlash: Matrix3
    /// Per-pixel confidence honesty (issue 7), when the condition has a label map (`synth --truth-maps`).
    public var honesty: ConfidenceHonesty? = nil
    /// Nominal, estimated and true ambient-to-flash exposure ratio.
    public var exposureRatio: ExposureRatioScore? = nil

    /// Mean CIEDE2000 over the patches.
    public var meanDeltaE2000: Double { deltaE2000.reduce(0, +) / Double(deltaE2000.count) }
    /// Max CIEDE2000 over the patches.
    public var maxDeltaE2000: Double { deltaE2000.max() ?? 0 }
    /// Mean of the patches' confidences.
    public var meanPatchConfidence: Double { patchConfidence.reduce(0, +) / Double(patchConfidence.count) }

    /// The score as JSON (per patch: name, reference and measured L*a*b*, ΔE00, confidence).
    public var json: JSONValue {
        func lab(_ v: SIMD3<Double>) -> JSONValue { .array([v.x, v.y, v.z].map(JSONValue.number)) }
        var o: [String: JSONValue] = [
            "name": .string(name),
            "accuracyMeanDeltaE2000": .number(meanDeltaE2000), "accuracyMaxDeltaE2000": .number(maxDeltaE2000),
            "exposureScale": .number(exposureScale),
            "meanPatchConfidence": .number(meanPatchConfidence),
            "centerWeightedMeanConfidence": .number(centerWeightedConfidence),
            "decision": .string(decision.rawValue),
            "patches": .array(patchNames.indices.map { i in
                .object(["name": .string(patchNames[i]), "referenceLabD65": lab(referenceLab[i]),
                         "measuredLabD65": lab(measuredLab[i]), "ambientPhotoLabD65": lab(ambientPhotoLab[i]),
                         "deltaE2000": .number(deltaE2000[i]), "confidence": .number(patchConfidence[i])])
            }),
        ]
        if let lux = ambientLux { o["ambientLux"] = .number(lux) }
        if let h = honesty { o["confidenceHonesty"] = h.json }
        if let r = exposureRatio { o["ambientToFlashRatio"] = r.json }
        return .object(o)
    }
}

/// Scoring of fused charts (SPEC 5).
public enum ValidationScoring {
    /// The scalar exposure of SPEC 5's accuracy: the median over the neutral patches of
    /// Y_reference / Y_measured (one number for the whole frame; robust to one bad patch).
    public static func exposureScale(measuredXYZ: [SIMD3<Double>], referenceXYZ: [SIMD3<Double>], neutral: [Int]) -> Double {
        var ratios = neutral.map { referenceXYZ[$0].y / measuredXYZ[$0].y }.filter(\.isFinite)
        let k = PatchSampling.median(&ratios)
        return k.isFinite && k > 0 ? k : 1
    }

    /// Scores one condition.
    ///
    /// - Parameters:
    ///   - linearXYZ: the pipeline's linear XYZ output (flash-frame geometry).
    ///   - ambientPhotoXYZ: the ambient frame rendered as a normal photo, in XYZ.
    ///   - confidence: the confidence map (one plane).
    ///   - file: named in errors (a patch outside the image).
    public static func score(name: String, ambientLux: Double?, chart: ChartDescription, linearXYZ: PlanarImage,
                             ambientPhotoXYZ: PlanarImage, confidence: PlanarImage, decision: FusionDecision,
                             centerWeightedConfidence: Double, ambientFromFlash: Matrix3,
                             file: String) throws(PatchSamplingError) -> ConditionScore {
        let white = ColorScience.whiteD65XYZ
        let measured = try PatchSampling.sample(linearXYZ, chart: chart, file: file).map(\.median)
        let ambient = try PatchSampling.sample(ambientPhotoXYZ, chart: chart, file: file).map(\.median)
        let conf = try PatchSampling.sample(confidence, chart: chart, file: file).map(\.median.x)
        let k = exposureScale(measuredXYZ: measured, referenceXYZ: chart.patches.map(\.xyzD65), neutral: chart.neutralIndices)
        let lab = measured.map { ColorScience.lab(fromXYZ: $0 * k, white: white) }
        let reference = chart.patches.map(\.labD65)
        return ConditionScore(
            name: name, ambientLux: ambientLux, patchNames: chart.patches.map(\.name), referenceLab: reference,
            measuredLab: lab, ambientPhotoLab: ambient.map { ColorScience.lab(fromXYZ: $0, white: white) },
            deltaE2000: zip(lab, reference).map { ColorScience.ciede2000($0, $1) }, exposureScale: k,
            patchConfidence: conf, decision: decision, centerWeightedConfidence: centerWeightedConfidence,
            ambientFromFlash: ambientFromFlash)
    }
}
