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
///   with confidence < 0.5 (issue 7: at most 10 %).
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

    /// Creates a tally.
    public init(labelledPixelCount: Int = 0, confidentPixelCount: Int = 0, confidentWrongCount: Int = 0,
                accuratePixelCount: Int = 0, accurateLowConfidenceCount: Int = 0) {
        self.labelledPixelCount = labelledPixelCount; self.confidentPixelCount = confidentPixelCount
        self.confidentWrongCount = confidentWrongCount; self.accuratePixelCount = accuratePixelCount
        self.accurateLowConfidenceCount = accurateLowConfidenceCount
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
             accurateLowConfidenceCount: a.accurateLowConfidenceCount + b.accurateLowConfidenceCount)
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
            "definition": .string("ΔE00 chroma: CIEDE2000 after scaling each pixel's XYZ to the reference Y (no lightness term); confident = confidence >= 0.8, wrong = ΔE > 3; accurate = ΔE <= 1.5, low = confidence < 0.5; mixed-label pixels excluded"),
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
        for y in 0..<labels.height {
            for x in 0..<labels.width {
                let label = Int(labels[x, y, 0])
                if label == mixedLabel { continue }
                guard let r = referenceLab[label] else { throw .unknownLabel(file: file, label: label) }
                let m = SIMD3(Double(linearXYZ[x, y, 0]), Double(linearXYZ[x, y, 1]), Double(linearXYZ[x, y, 2]))
                let e = ColorScience.chromaDeltaE2000(measuredXYZ: m, referenceLab: r)
                let c = Double(confidence[x, y, 0])
                t.labelledPixelCount += 1
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

    /// Creates a score.
    public init(nominal: Double, estimated: Double? = nil, trueRatio: Double? = nil, effective: Double? = nil) {
        self.nominal = nominal; self.estimated = estimated; self.trueRatio = trueRatio; self.effective = effective
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
                        "nominalRelativeError": o(relativeError(nominal)), "estimatedRelativeError": o(relativeError(estimated))])
    }
}
