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

    /// Whether the condition's ambient illuminance is at most `lux` (unknown: not), within a
    /// millionth: truth.json holds the illuminance computed from the light's spectrum, and a 200 lux
    /// condition's reads 200.00000000000023 (`--accuracy-max-lux 200` left two of them out).
    public func ambientLux(atMost lux: Double) -> Bool { Self.illuminance(ambientLux, atMost: lux) }
    /// The same test of an illuminance read from a truth file (nil: unknown, not at most anything).
    public static func illuminance(_ ambientLux: Double?, atMost lux: Double) -> Bool { (ambientLux ?? .infinity) <= lux * (1 + 1e-6) }
    /// Per patch: covered by another material in the fused output (flash label map — with an ambient
    /// one and the true geometry, only where both frames saw the patch: `requiringAgreement` — fewer
    /// than `PatchLabelMask.minimumOwnFraction` own-label pixels in its square). Left out of this
    /// condition's accuracy, exposure fit and patch confidence, and of the set's repeatability and
    /// variance reduction. Empty: no label map (nothing occluded).
    public var occludedInOutput: [Bool] = []
    /// Per patch: covered by another material in the ambient photo (ambient label map). Left out of
    /// the set's variance reduction. Empty: no ambient label map.
    public var occludedInAmbientPhoto: [Bool] = []
    /// Per patch: fraction of its square carrying its own label in the flash label map (empty: no map).
    public var ownLabelFraction: [Double] = []
    /// Per patch: the same in the ambient label map (empty: no map).
    public var ambientOwnLabelFraction: [Double] = []

    /// Per patch: fraction of its sampled pixels where the output measured nothing — the flash frame
    /// clipped, the registered ambient sample clipped, no ambient sample, or the frames disagree
    /// (`PixelFlag`; empty: no flags). Those pixels are left out of the patch's sample.
    public var clippedFraction: [Double] = []
    /// Per patch: the part of `clippedFraction` clipped in the flash frame (empty: no flags).
    public var flashClippedFraction: [Double] = []
    /// Per patch: the part of `clippedFraction` whose ambient sample is clipped or missing (empty: no flags).
    public var ambientClippedFraction: [Double] = []
    /// Per patch: the part of `clippedFraction` where the frames disagree (`PixelFlag.framesDisagree`,
    /// stage 4c: something moved between them; confidence 0 and the gap fill there), empty: no flags.
    public var disagreeFraction: [Double] = []
    /// What the fusion of the pair measured that `fuse` would warn about (`FusionWarnings`: exposure
    /// tags the images contradict, a noise model that understates the frames' noise, …), one line each.
    public var fusionWarnings: [String] = []

    /// Whether patch `i` is covered by another material in the output.
    public func isOccludedInOutput(_ i: Int) -> Bool { i < occludedInOutput.count && occludedInOutput[i] }
    /// Whether patch `i` is mostly clipped (not occluded, more than `PatchSampling.mostlyClippedFraction`
    /// of its pixels clipped in the flash frame or in their ambient sample, or where the frames
    /// disagree, together): the output there is the gap fill, not a measurement.
    public func isMostlyClipped(_ i: Int) -> Bool {
        i < clippedFraction.count && PatchSampling.isMostlyClipped(clippedFraction: clippedFraction[i], occluded: isOccludedInOutput(i))
    }
    /// Patch `i`'s `disagreeFraction` (0 without flags).
    public func disagree(_ i: Int) -> Double { i < disagreeFraction.count ? disagreeFraction[i] : 0 }
    /// Whether patch `i` is left out of the output-side metrics (occluded or mostly clipped).
    public func isLeftOutOfOutput(_ i: Int) -> Bool { isOccludedInOutput(i) || isMostlyClipped(i) }
    /// Whether patch `i`'s ambient-photo sample is left out.
    public func isOccludedInAmbientPhoto(_ i: Int) -> Bool { i < occludedInAmbientPhoto.count && occludedInAmbientPhoto[i] }
    /// The patches scored in this condition (not left out of the output), in chart order.
    public var scoredPatches: [Int] { patchNames.indices.filter { !isLeftOutOfOutput($0) } }

    /// Mean CIEDE2000 over the scored patches (NaN when none is).
    public var meanDeltaE2000: Double {
        let e = scoredPatches.map { deltaE2000[$0] }
        return e.reduce(0, +) / Double(e.count)
    }
    /// Max CIEDE2000 over the scored patches (0 when none is).
    public var maxDeltaE2000: Double { scoredPatches.map { deltaE2000[$0] }.max() ?? 0 }
    /// Mean of the scored patches' confidences (NaN when none is).
    public var meanPatchConfidence: Double {
        let c = scoredPatches.map { patchConfidence[$0] }
        return c.reduce(0, +) / Double(c.count)
    }

    /// The score as JSON (per patch: name, reference and measured L*a*b*, ΔE00, confidence).
    public var json: JSONValue {
        func num(_ v: Double) -> JSONValue { v.isFinite ? .number(v) : .null }
        func lab(_ v: SIMD3<Double>) -> JSONValue { .array([v.x, v.y, v.z].map(num)) }
        var o: [String: JSONValue] = [
            "name": .string(name),
            "accuracyMeanDeltaE2000": num(meanDeltaE2000), "accuracyMaxDeltaE2000": num(maxDeltaE2000),
            "exposureScale": num(exposureScale),
            "meanPatchConfidence": num(meanPatchConfidence),
            "centerWeightedMeanConfidence": num(centerWeightedConfidence),
            "decision": .string(decision.rawValue),
            "patches": .array(patchNames.indices.map { i in
                var p: [String: JSONValue] = [
                    "name": .string(patchNames[i]), "referenceLabD65": lab(referenceLab[i]),
                    "measuredLabD65": lab(measuredLab[i]), "ambientPhotoLabD65": lab(ambientPhotoLab[i]),
                    "deltaE2000": num(deltaE2000[i]), "confidence": num(patchConfidence[i])]
                if i < ownLabelFraction.count {
                    p["ownLabelFraction"] = num(ownLabelFraction[i])
                    p["occluded"] = .bool(isOccludedInOutput(i))
                }
                if i < clippedFraction.count {
                    p["clippedFraction"] = num(clippedFraction[i])
                    p["flashClippedFraction"] = num(flashClippedFraction[i])
                    p["ambientClippedFraction"] = num(ambientClippedFraction[i])
                    p["framesDisagreeFraction"] = num(disagree(i))
                    p["mostlyClipped"] = .bool(isMostlyClipped(i))
                }
                if i < ambientOwnLabelFraction.count {
                    p["ambientOwnLabelFraction"] = num(ambientOwnLabelFraction[i])
                    p["ambientPhotoOccluded"] = .bool(isOccludedInAmbientPhoto(i))
                }
                return .object(p)
            }),
        ]
        if !occludedInOutput.isEmpty || !occludedInAmbientPhoto.isEmpty {
            o["occludedPatches"] = .array(patchNames.indices.filter(isOccludedInOutput).map { .string(patchNames[$0]) })
            o["ambientPhotoOccludedPatches"] = .array(patchNames.indices.filter(isOccludedInAmbientPhoto).map { .string(patchNames[$0]) })
        }
        if patchNames.indices.contains(where: isMostlyClipped) {
            o["mostlyClippedPatches"] = .array(patchNames.indices.filter(isMostlyClipped).map { .string(patchNames[$0]) })
        }
        if let lux = ambientLux { o["ambientLux"] = .number(lux) }
        if let h = honesty { o["confidenceHonesty"] = h.json }
        if let r = exposureRatio { o["ambientToFlashRatio"] = r.json }
        o["warnings"] = .array(fusionWarnings.map { .string($0) })
        return .object(o)
    }
}

/// Scoring of fused charts (SPEC 5).
public enum ValidationScoring {
    /// The scalar exposure of SPEC 5's accuracy: the median over the neutral patches of
    /// Y_reference / Y_measured (one number for the whole frame; robust to one bad patch); nil when
    /// no neutral patch gives a finite, positive ratio (no guess of 1 in its place).
    public static func exposureScale(measuredXYZ: [SIMD3<Double>], referenceXYZ: [SIMD3<Double>], neutral: [Int]) -> Double? {
        var ratios = neutral.map { referenceXYZ[$0].y / measuredXYZ[$0].y }.filter { $0.isFinite && $0 > 0 }
        guard !ratios.isEmpty else { return nil }
        return PatchSampling.median(&ratios)
    }

    /// Scores one condition.
    ///
    /// - Parameters:
    ///   - linearXYZ: the pipeline's linear XYZ output (flash-frame geometry).
    ///   - ambientPhotoXYZ: the ambient frame rendered as a normal photo, in XYZ.
    ///   - confidence: the confidence map (one plane).
    ///   - file: named in errors (a patch outside the image).
    ///   - outputLabels: the flash-frame label map (geometry of `linearXYZ` and `confidence`): each
    ///     patch is sampled over its own material's pixels; occluded patches are flagged and left out
    ///     of the exposure fit and the condition's means. Nil: the whole square (SPEC 5).
    ///   - ambientLabels: the ambient-frame label map (geometry of `ambientPhotoXYZ`), likewise.
    ///   - pixelFlags: `PixelFlag` bits per output pixel (`FusionResult.pixelFlags`: the flash frame
    ///     clipped, the registered ambient sample clipped or missing, the frames disagreeing), left
    ///     out of the output's samples; a patch mostly so flagged is left out of the condition's
    ///     metrics as an occluded one is (`ConditionScore.isMostlyClipped`): the output there is the
    ///     gap fill, not a measurement. A chart mostly clipped is refused
    ///     (`PatchSamplingError.mostPatchesClipped`, naming `file` when the flash frame alone clips
    ///     it, `ambientFile` when the ambient frame alone does, else both); one mostly where the
    ///     frames disagree, or so flagged for reasons that include it, is refused as such
    ///     (`mostPatchesFramesDisagree`, `mostPatchesUnmeasured`). The ambient photo is scored as it
    ///     is, clipped or not: it is what a photo in that light gives (the committed blue LED spot
    ///     clips 'blue flower' in it).
    ///   - ambientFile: the ambient frame's path, named in that refusal (nil: `file`).
    public static func score(name: String, ambientLux: Double?, chart: ChartDescription, linearXYZ: PlanarImage,
                             ambientPhotoXYZ: PlanarImage, confidence: PlanarImage, decision: FusionDecision,
                             centerWeightedConfidence: Double, ambientFromFlash: Matrix3,
                             outputLabels: PatchLabelMask? = nil, ambientLabels: PatchLabelMask? = nil,
                             pixelFlags: [UInt8]? = nil, file: String, ambientFile: String? = nil) throws(PatchSamplingError) -> ConditionScore {
        let white = ColorScience.whiteD65XYZ
        // Each frame's share first (sampled on the one-plane confidence), so that a chart one frame
        // alone clips is refused naming that frame; a subset of the flags clips no more than all.
        var byFrame: (flash: [PatchSample], ambient: [PatchSample], disagree: [PatchSample])? = nil
        if let pixelFlags {
            func share(_ bits: UInt8, _ name: String) throws(PatchSamplingError) -> [PatchSample] {
                try PatchSampling.sample(confidence, chart: chart, clipped: pixelFlags.map { $0 & bits }, labels: outputLabels,
                                         mostlyClippedPatches: .flagged, file: name)
            }
            let flash = try share(PixelFlag.flashClipped, file)
            let ambient = try share(PixelFlag.ambientClipped | PixelFlag.noAmbientSample, ambientFile ?? file)
            // Where the frames disagree nothing is clipped: said as what it is. (A `switch` on the
            // error, not a typed `catch` pattern, which crashed the 6.3 compiler's ownership verifier.)
            do {
                byFrame = (flash, ambient, try share(PixelFlag.framesDisagree, file))
            } catch {
                switch error {
                case .mostPatchesClipped(let f, let n, let t, let first):
                    throw .mostPatchesFramesDisagree(file: f, count: n, total: t, first: first)
                default: throw error
                }
            }
        }
        let bothFiles = ambientFile.map { "\(file) and \($0)" } ?? file
        let measuredSamples: [PatchSample]
        do {
            measuredSamples = try PatchSampling.sample(linearXYZ, chart: chart, clipped: pixelFlags, labels: outputLabels,
                                                       mostlyClippedPatches: .flagged, file: bothFiles)
        } catch {
            switch error {
            case .mostPatchesClipped(let f, let n, let t, let first) where byFrame?.disagree.contains { $0.clippedFraction > 0 } == true:
                throw .mostPatchesUnmeasured(file: f, count: n, total: t, first: first)
            default: throw error
            }
        }
        let ambientSamples = try PatchSampling.sample(ambientPhotoXYZ, chart: chart, labels: ambientLabels, file: file)
        let conf = try PatchSampling.sample(confidence, chart: chart, clipped: pixelFlags, labels: outputLabels,
                                            mostlyClippedPatches: .flagged, file: bothFiles).map(\.median.x)
        let measured = measuredSamples.map(\.median)
        let occluded = measuredSamples.map(\.occluded)
        let neutral = chart.neutralIndices.filter { !occluded[$0] && !measuredSamples[$0].mostlyClipped }
        guard let k = exposureScale(measuredXYZ: measured, referenceXYZ: chart.patches.map(\.xyzD65), neutral: neutral) else {
            throw .noNeutralPatch(file: file)
        }
        let lab = measured.map { ColorScience.lab(fromXYZ: $0 * k, white: white) }
        let reference = chart.patches.map(\.labD65)
        var score = ConditionScore(
            name: name, ambientLux: ambientLux, patchNames: chart.patches.map(\.name), referenceLab: reference,
            measuredLab: lab, ambientPhotoLab: ambientSamples.map { ColorScience.lab(fromXYZ: $0.median, white: white) },
            deltaE2000: zip(lab, reference).map { ColorScience.ciede2000($0, $1) }, exposureScale: k,
            patchConfidence: conf, decision: decision, centerWeightedConfidence: centerWeightedConfidence,
            ambientFromFlash: ambientFromFlash)
        if outputLabels != nil {
            score.occludedInOutput = occluded
            score.ownLabelFraction = measuredSamples.map { $0.ownLabelFraction ?? 1 }
        }
        if let byFrame {
            score.clippedFraction = measuredSamples.map(\.clippedFraction)
            score.flashClippedFraction = byFrame.flash.map(\.clippedFraction)
            score.ambientClippedFraction = byFrame.ambient.map(\.clippedFraction)
            score.disagreeFraction = byFrame.disagree.map(\.clippedFraction)
        }
        if ambientLabels != nil {
            score.occludedInAmbientPhoto = ambientSamples.map(\.occluded)
            score.ambientOwnLabelFraction = ambientSamples.map { $0.ownLabelFraction ?? 1 }
        }
        return score
    }
}
