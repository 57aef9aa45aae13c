import ConstantColor
import ConstantColorIO
import Foundation

/// Does the confidence map tell the truth? (issue 7) Measured per pixel on a synthetic scene whose
/// every pixel's true colour is known from a material label map (`synth --truth-maps`).
///
/// The colour difference is CIEDE2000 with the lightness term removed ("ΔE00 chroma"): the measured
/// XYZ of a pixel is scaled so that its Y equals the reference's Y, then CIEDE2000 (CIE 142:2001,
/// Sharma et al. 2005) is taken against the reference L*a*b* (D65). Equal Y gives equal L*, so only
/// the chroma and hue terms remain, evaluated at the reference lightness. Scaling XYZ (rather than
/// replacing L* in L*a*b*) keeps the pixel's chromaticity: the flash fall-off and the scene's
/// distance make a pixel darker, not differently coloured, and a constant-color image keeps those
/// lightness differences by design (SPEC 2.5). The one global exposure fit of SPEC 5 is a scalar
/// on XYZ, so under this per-pixel match it changes nothing. A pixel whose measured Y is not
/// positive (or not finite) has no chromaticity: it counts as infinitely far from the truth.
///
/// Figures (pixels with a material label, i.e. not mixed):
/// - `confidentWrongFraction`: among pixels with confidence ≥ 0.8, the fraction more than 3 ΔE00
///   chroma from the truth (issue 7: at most 1 %);
/// - `accurateLowConfidenceFraction`: among pixels within 1.5 ΔE00 chroma of the truth, the fraction
///   with confidence < 0.5 (issue 7: at most 10 %);
/// - `reliability`: the two figures above are thresholds; this table says why. The confidence map is
///   `1 / (1 + σ²/σ₀²)` (`Confidence`), so each pixel's confidence names the σ the pipeline claims
///   for it, `σ = σ₀·√(1/c − 1)`, the root of its expected squared ΔE00 chroma error. Pixels are
///   binned by that σ; in each bin the RMS of the true errors should match the RMS of the claimed σ
///   (a reliability diagram: larger means over-confident, smaller under-confident), and the share
///   within 1.5 shows how many accurate pixels a bin holds. Pixels of confidence 0 claim nothing
///   and are left out (counted in `unclaimedPixelCount`); a pixel without positive luminance has no
///   colour and no finite error: it stays in its bin's count and share, out of both RMS.
public struct ConfidenceHonesty: Sendable, Equatable {
    /// Confidence at or above which a pixel claims to be right.
    public static let confidentThreshold = 0.8
    /// ΔE00 chroma above which a pixel is wrong.
    public static let wrongDeltaE = 3.0
    /// ΔE00 chroma at or below which a pixel is right.
    public static let accurateDeltaE = 1.5
    /// Confidence below which a pixel claims to be unsure.
    public static let lowConfidenceThreshold = 0.5

    /// Pixels with a material label (not mixed, inside the frame).
    public var labelledPixelCount: Int
    /// Labelled pixels with confidence ≥ 0.8.
    public var confidentPixelCount: Int
    /// Of those, pixels more than 3 ΔE00 chroma from the truth.
    public var confidentWrongCount: Int
    /// Labelled pixels within 1.5 ΔE00 chroma of the truth.
    public var accuratePixelCount: Int
    /// Of those, pixels with confidence < 0.5.
    public var accurateLowConfidenceCount: Int
    /// The reliability table: one bin per interval of `reliabilityEdges`.
    public var reliability: [ReliabilityBin]
    /// Labelled pixels whose confidence claims no σ (0, or not a number in (0, 1]).
    public var unclaimedPixelCount: Int

    /// Bin edges of the reliability table in claimed σ (ΔE00 chroma): 1.5 and 3 are the σ of
    /// confidence 0.8 and 0.5.
    public static let reliabilityEdges: [Double] = [0, 0.5, 1, 1.5, 2, 3, 4, 6, .infinity]

    /// One bin of the reliability table: the pixels whose confidence claims a σ in `[lower, upper)`.
    public struct ReliabilityBin: Sendable, Equatable {
        /// The bin's σ interval, ΔE00 chroma.
        public var lower: Double, upper: Double
        /// Pixels in the bin.
        public var pixelCount = 0
        /// Of those, pixels with a finite error (a pixel without positive luminance has none).
        public var finiteCount = 0
        /// Over the pixels with a finite error: the sum of their squared errors and of their claimed σ².
        public var squaredErrorSum = 0.0, squaredSigmaSum = 0.0
        /// Pixels within 1.5 ΔE00 chroma of the truth.
        public var accurateCount = 0

        /// An empty bin.
        public init(lower: Double, upper: Double) { self.lower = lower; self.upper = upper }

        /// RMS of the finite errors (nil: none).
        public var rmsError: Double? { finiteCount > 0 ? (squaredErrorSum / Double(finiteCount)).squareRoot() : nil }
        /// RMS of the claimed σ over the same pixels as `rmsError` (nil: none).
        public var rmsSigma: Double? { finiteCount > 0 ? (squaredSigmaSum / Double(finiteCount)).squareRoot() : nil }
        /// Share of the bin's pixels within 1.5 (nil: empty bin).
        public var accurateFraction: Double? { pixelCount > 0 ? Double(accurateCount) / Double(pixelCount) : nil }

        /// The interval as printed: "1.5–2.0", or "≥ 6.0" for the open one.
        public var rangeLabel: String {
            upper.isFinite ? String(format: "%.1f–%.1f", lower, upper) : String(format: "≥ %.1f", lower)
        }

        /// Pools two bins of the same interval.
        static func + (a: Self, b: Self) -> Self {
            precondition(a.lower == b.lower && a.upper == b.upper, "pooling bins of different intervals")
            var r = a
            r.pixelCount += b.pixelCount; r.finiteCount += b.finiteCount
            r.squaredErrorSum += b.squaredErrorSum; r.squaredSigmaSum += b.squaredSigmaSum
            r.accurateCount += b.accurateCount
            return r
        }
    }

    /// Empty bins over `reliabilityEdges`.
    public static var emptyReliability: [ReliabilityBin] {
        (0..<(reliabilityEdges.count - 1)).map { ReliabilityBin(lower: reliabilityEdges[$0], upper: reliabilityEdges[$0 + 1]) }
    }

    /// The σ (ΔE00 chroma) a confidence claims, the inverse of `Confidence`'s map; nil for 0 (or not
    /// a confidence).
    public static func claimedSigma(confidence c: Double) -> Double? {
        guard c > 0, c <= 1 else { return nil }
        return Double(Confidence.noiseScaleDeltaE) * max(0, 1 / c - 1).squareRoot()
    }

    /// Creates a tally.
    public init(labelledPixelCount: Int = 0, confidentPixelCount: Int = 0, confidentWrongCount: Int = 0,
                accuratePixelCount: Int = 0, accurateLowConfidenceCount: Int = 0,
                reliability: [ReliabilityBin] = ConfidenceHonesty.emptyReliability, unclaimedPixelCount: Int = 0) {
        self.labelledPixelCount = labelledPixelCount; self.confidentPixelCount = confidentPixelCount
        self.confidentWrongCount = confidentWrongCount; self.accuratePixelCount = accuratePixelCount
        self.accurateLowConfidenceCount = accurateLowConfidenceCount; self.reliability = reliability
        self.unclaimedPixelCount = unclaimedPixelCount
    }

    /// Confident pixels that are wrong, as a fraction of the confident pixels (nil: no confident pixel).
    public var confidentWrongFraction: Double? {
        confidentPixelCount > 0 ? Double(confidentWrongCount) / Double(confidentPixelCount) : nil
    }
    /// Accurate pixels with low confidence, as a fraction of the accurate pixels (nil: no accurate pixel).
    public var accurateLowConfidenceFraction: Double? {
        accuratePixelCount > 0 ? Double(accurateLowConfidenceCount) / Double(accuratePixelCount) : nil
    }

    /// Pools two tallies (the figures over a set are over all its pixels).
    public static func + (a: Self, b: Self) -> Self {
        Self(labelledPixelCount: a.labelledPixelCount + b.labelledPixelCount,
             confidentPixelCount: a.confidentPixelCount + b.confidentPixelCount,
             confidentWrongCount: a.confidentWrongCount + b.confidentWrongCount,
             accuratePixelCount: a.accuratePixelCount + b.accuratePixelCount,
             accurateLowConfidenceCount: a.accurateLowConfidenceCount + b.accurateLowConfidenceCount,
             reliability: zip(a.reliability, b.reliability).map { $0 + $1 },
             unclaimedPixelCount: a.unclaimedPixelCount + b.unclaimedPixelCount)
    }

    /// The tally as JSON (fractions are null when their population is empty).
    public var json: JSONValue {
        func n(_ v: Int) -> JSONValue { .number(Double(v)) }
        return .object([
            "labelledPixels": n(labelledPixelCount),
            "confidentPixels": n(confidentPixelCount), "confidentWrongPixels": n(confidentWrongCount),
            "confidentWrongFraction": confidentWrongFraction.map(JSONValue.number) ?? .null,
            "accuratePixels": n(accuratePixelCount), "accurateLowConfidencePixels": n(accurateLowConfidenceCount),
            "accurateLowConfidenceFraction": accurateLowConfidenceFraction.map(JSONValue.number) ?? .null,
            "reliability": .array(reliability.map { b in
                func optional(_ v: Double?) -> JSONValue { v.map(JSONValue.number) ?? .null }
                return .object([
                    "sigmaFrom": .number(b.lower), "sigmaTo": b.upper.isFinite ? .number(b.upper) : .null,
                    "pixels": n(b.pixelCount), "pixelsWithFiniteError": n(b.finiteCount), "rmsSigma": optional(b.rmsSigma),
                    "rmsError": optional(b.rmsError), "accurateFraction": optional(b.accurateFraction),
                ])
            }),
            "unclaimedPixels": n(unclaimedPixelCount),
            "definition": .string("ΔE00 chroma: CIEDE2000 after scaling each pixel's XYZ to the reference Y (no lightness term); confident = confidence >= 0.8, wrong = ΔE > 3; accurate = ΔE <= 1.5, low = confidence < 0.5; mixed-label pixels excluded; reliability: pixels binned by the σ their confidence claims, σ = 3·sqrt(1/c − 1) (c > 0; unclaimedPixels: c = 0), honest where rmsError ≈ rmsSigma, both over the pixels with a finite error (sigmaTo null: unbounded)"),
        ])
    }

    /// Why the honesty cannot be measured.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The label map's size differs from the output's.
        case sizeMismatch(file: String, labels: String, image: String)
        /// A label has no reference colour.
        case unknownLabel(file: String, label: Int)

        public var description: String {
            switch self {
            case .sizeMismatch(let f, let l, let i): return "\(f): label map is \(l), the fused output is \(i)"
            case .unknownLabel(let f, let l): return "\(f): label \(l) has no entry in truth.json materials[]"
            }
        }
    }

    /// Measures one condition.
    ///
    /// - Parameters:
    ///   - linearXYZ: the pipeline's linear XYZ output (flash-frame geometry, not gap-filled).
    ///   - confidence: the confidence map (one plane, same size).
    ///   - labels: the material label map (one plane, same size); `mixedLabel` pixels are skipped.
    ///   - referenceLab: reference L*a*b* (D65) per label.
    ///   - file: the label map's path, named in errors.
    public static func measure(linearXYZ: PlanarImage, confidence: PlanarImage, labels: PlanarImage,
                               referenceLab: [Int: SIMD3<Double>], mixedLabel: Int = 0,
                               file: String) throws(Failure) -> ConfidenceHonesty {
        guard labels.width == linearXYZ.width, labels.height == linearXYZ.height,
              confidence.width == linearXYZ.width, confidence.height == linearXYZ.height else {
            throw .sizeMismatch(file: file, labels: "\(labels.width)x\(labels.height)",
                                image: "\(linearXYZ.width)x\(linearXYZ.height)")
        }
        var t = ConfidenceHonesty()
        let edges = reliabilityEdges
        for y in 0..<labels.height {
            for x in 0..<labels.width {
                let label = Int(labels[x, y, 0])
                if label == mixedLabel { continue }
                guard let r = referenceLab[label] else { throw .unknownLabel(file: file, label: label) }
                let m = SIMD3(Double(linearXYZ[x, y, 0]), Double(linearXYZ[x, y, 1]), Double(linearXYZ[x, y, 2]))
                let e = ColorScience.chromaDeltaE2000(measuredXYZ: m, referenceLab: r)
                let c = Double(confidence[x, y, 0])
                t.labelledPixelCount += 1
                if let sigma = claimedSigma(confidence: c) {
                    let b = edges.lastIndex(where: { $0 <= sigma })!  // edges[0] = 0 ≤ σ; σ < ∞
                    t.reliability[b].pixelCount += 1
                    if e.isFinite {
                        t.reliability[b].finiteCount += 1
                        t.reliability[b].squaredErrorSum += e * e; t.reliability[b].squaredSigmaSum += sigma * sigma
                    }
                    if e <= accurateDeltaE { t.reliability[b].accurateCount += 1 }
                } else {
                    t.unclaimedPixelCount += 1
                }
                if c >= confidentThreshold {
                    t.confidentPixelCount += 1
                    if !(e <= wrongDeltaE) { t.confidentWrongCount += 1 }
                }
                if e <= accurateDeltaE {
                    t.accuratePixelCount += 1
                    if !(c >= lowConfidenceThreshold) { t.accurateLowConfidenceCount += 1 }
                }
            }
        }
        return t
    }
}

/// The ambient-to-flash exposure ratio of one condition: what the EXIF says, what the pipeline
/// estimated from the image data (when its report carries an estimate), and the truth (synth).
public struct ExposureRatioScore: Sendable, Equatable {
    /// Where the pipeline's estimate is looked up in the encoded `FusionReport`: `exposure.<key>`.
    public static let estimatedKey = "estimatedAmbientToFlashRatio"

    /// From the metadata (report `exposure.ambientToFlashRatio`).
    public var nominal: Double
    /// The pipeline's estimate, when its report has one.
    public var estimated: Double?
    /// The true exposure ratio (truth `exposure.trueAmbientToFlashRatio`), when known.
    public var trueRatio: Double?
    /// The true ratio times the flicker's mean row gains (truth `exposure.effectiveAmbientToFlashRatio`).
    public var effective: Double?
    /// The relative standard uncertainty the pipeline states for its ratio (report
    /// `exposure.ambientRatio.relativeUncertainty`: that of r(y), which the confidence counts), when
    /// its report has one.
    public var estimatedRelativeUncertainty: Double?

    /// Creates a score.
    public init(nominal: Double, estimated: Double? = nil, trueRatio: Double? = nil, effective: Double? = nil,
                estimatedRelativeUncertainty: Double? = nil) {
        self.nominal = nominal; self.estimated = estimated; self.trueRatio = trueRatio; self.effective = effective
        self.estimatedRelativeUncertainty = estimatedRelativeUncertainty
    }

    /// The estimate's relative error in units of its stated uncertainty (`z`; |z| ≤ 2 in about 95 %
    /// of conditions where the uncertainty is honest), nil without an error or a positive uncertainty.
    /// It tells an error the data could not avoid (dim ambient light, whose edges measure the ratio
    /// to several per cent) from one the pipeline should have seen.
    public var estimatedErrorZ: Double? {
        guard let e = relativeError(estimated), let u = estimatedRelativeUncertainty, u > 0 else { return nil }
        return e / u
    }

    /// The truth's ratios from a truth.json (`exposure.trueAmbientToFlashRatio`, else the inverse of
    /// `exposure.ratioFlashToAmbient`; `exposure.effectiveAmbientToFlashRatio`), nil where absent.
    public static func truth(in truth: JSONValue) -> (trueRatio: Double?, effective: Double?) {
        let exposure = truth.object?["exposure"]?.object
        return (exposure?["trueAmbientToFlashRatio"]?.double ?? exposure?["ratioFlashToAmbient"]?.double.map { 1 / $0 },
                exposure?["effectiveAmbientToFlashRatio"]?.double)
    }

    /// Reads the estimate from a report: `exposure.estimatedAmbientToFlashRatio`, nil when absent.
    /// (Read from the report itself: a JSON round trip lost it whenever another of the report's
    /// numbers, such as the residual of featureless frames, was infinite.)
    public static func estimate(in report: FusionReport) -> Double? {
        report.exposure.estimatedAmbientToFlashRatio
    }

    /// Relative error of a ratio against the truth (effective when known, else the exposure ratio).
    public func relativeError(_ value: Double?) -> Double? {
        guard let value, let t = effective ?? trueRatio, t > 0 else { return nil }
        return value / t - 1
    }

    /// The score as JSON (absent values are null).
    public var json: JSONValue {
        func o(_ v: Double?) -> JSONValue { v.map(JSONValue.number) ?? .null }
        return .object(["nominal": .number(nominal), "estimated": o(estimated), "true": o(trueRatio), "effective": o(effective),
                        "nominalRelativeError": o(relativeError(nominal)), "estimatedRelativeError": o(relativeError(estimated)),
                        "estimatedRelativeUncertainty": o(estimatedRelativeUncertainty), "estimatedErrorZ": o(estimatedErrorZ)])
    }
}
