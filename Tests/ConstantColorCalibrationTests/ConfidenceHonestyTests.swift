import ConstantColor
import ConstantColorIO
import Foundation
import Testing
@testable import ConstantColorCalibration

/// The confidence-honesty measurement on hand-made pixels whose answer is known.
@Suite struct ConfidenceHonestyTests {
    static let white = ColorScience.whiteD65XYZ
    static func xyz(_ lab: SIMD3<Double>) -> SIMD3<Double> { ColorScience.xyz(fromLab: lab, white: white) }

    /// ΔE00 chroma ignores exposure (XYZ × k), equals CIEDE2000 at equal lightness, and is +∞ for
    /// a pixel without positive luminance.
    @Test func chromaDeltaEIgnoresLightnessOnly() {
        let ref = SIMD3(50.0, 20, -10)
        for k in [0.3, 1.0, 2.5] {
            #expect(ColorScience.chromaDeltaE2000(measuredXYZ: Self.xyz(ref) * k, referenceLab: ref) < 1e-6)
        }
        let shifted = SIMD3(50.0, 26, -10)
        let e = ColorScience.chromaDeltaE2000(measuredXYZ: Self.xyz(shifted) * 0.7, referenceLab: ref)
        // Scaling XYZ by 0.7 changes L*, the per-pixel match brings it back: same as at equal L*.
        #expect(abs(e - ColorScience.ciede2000(shifted, ref)) < 1e-6 && e > 3)
        // A lightness-only difference is no difference.
        #expect(ColorScience.chromaDeltaE2000(measuredXYZ: Self.xyz(SIMD3(70, 0, 0)), referenceLab: SIMD3(40, 0, 0)) < 1e-6)
        #expect(ColorScience.chromaDeltaE2000(measuredXYZ: SIMD3(0.1, -0.01, 0.1), referenceLab: ref) == .infinity)
        #expect(ColorScience.chromaDeltaE2000(measuredXYZ: SIMD3(.nan, 0.2, 0.1), referenceLab: ref) == .infinity)
    }

    /// Eight pixels: labelled 1 (L 50, a 20, b −10) or 2 (neutral L 70), one mixed (0).
    ///
    /// | px | label | colour                     | conf | confident | wrong | accurate | low |
    /// | A  | 1     | exact, half as bright      | 0.90 | yes       | no    | yes      | no  |
    /// | B  | 1     | a* + 10                    | 0.95 | yes       | yes   | no       |     |
    /// | C  | 2     | exact                      | 0.30 | no        |       | yes      | yes |
    /// | D  | 0     | NaN                        | 1.00 | excluded  |       |          |     |
    /// | E  | 2     | Y < 0                      | 0.85 | yes       | yes   | no       |     |
    /// | F  | 2     | b* + 2.2 (ΔE00 in (1.5, 3])| 0.60 | no        |       | no       |     |
    /// | G  | 1     | exact                      | 0.50 | no        |       | yes      | no (0.5 is not < 0.5) |
    /// | H  | 1     | exact                      | 0.80 | yes       | no    | yes      | no  |
    /// Confident: A, B, E, H → 2 wrong of 4 = 0.5. Accurate: A, C, G, H → 1 low of 4 = 0.25.
    @Test func handMadeImageGivesTheExpectedFigures() throws {
        let r1 = SIMD3(50.0, 20, -10), r2 = SIMD3(70.0, 0, 0)
        let fLab = SIMD3(70.0, 0, 2.2)
        let eF = ColorScience.ciede2000(fLab, r2)
        try #require(eF > 1.5 && eF <= 3, "pixel F must fall between the thresholds: \(eF)")
        let pixels: [(label: Int, xyz: SIMD3<Double>, conf: Double)] = [
            (1, Self.xyz(r1) * 0.5, 0.9), (1, Self.xyz(SIMD3(50, 30, -10)), 0.95), (2, Self.xyz(r2), 0.3),
            (0, SIMD3(.nan, .nan, .nan), 1), (2, SIMD3(0.1, -0.05, 0.1), 0.85), (2, Self.xyz(fLab), 0.6),
            (1, Self.xyz(r1), 0.5), (1, Self.xyz(r1), 0.8),
        ]
        var image = PlanarImage(width: 4, height: 2, channelCount: 3)
        var conf = PlanarImage(width: 4, height: 2, channelCount: 1), labels = PlanarImage(width: 4, height: 2, channelCount: 1)
        for (k, p) in pixels.enumerated() {
            let x = k % 4, y = k / 4
            for c in 0..<3 { image[x, y, c] = Float(p.xyz[c]) }
            conf[x, y, 0] = Float(p.conf); labels[x, y, 0] = Float(p.label)
        }
        let h = try ConfidenceHonesty.measure(linearXYZ: image, confidence: conf, labels: labels,
                                              referenceLab: [1: r1, 2: r2], file: "labels.tif")
        #expect(h.labelledPixelCount == 7 && h.confidentPixelCount == 4 && h.confidentWrongCount == 2
                && h.accuratePixelCount == 4 && h.accurateLowConfidenceCount == 1)
        #expect(h.confidentWrongFraction == 0.5 && h.accurateLowConfidenceFraction == 0.25)
        // Reliability: the σ each confidence (stored as Float) claims, 3·√(1/c − 1): A 1.0000001,
        // B 0.688, C 4.583, E 1.260, F 2.449, G 3.0, H 1.4999999 (D is unlabelled). Bins [0.5, 1): B;
        // [1, 1.5): A, E, H; [2, 3): F; [3, 4): G; [4, 6): C. E has no finite error (Y < 0).
        func sigma(_ c: Double) -> Double { 3 * (1 / Double(Float(c)) - 1).squareRoot() }
        let eB = ColorScience.chromaDeltaE2000(measuredXYZ: Self.xyz(SIMD3(50, 30, -10)), referenceLab: r1)
        let bins = Dictionary(uniqueKeysWithValues: h.reliability.map { ($0.lower, $0) })
        #expect(h.reliability.map(\.pixelCount) == [0, 1, 3, 0, 1, 1, 1, 0])
        #expect(bins[1.0]?.finiteCount == 2 && bins[1.0]?.accurateCount == 2 && bins[1.0]!.rmsError! < 1e-3)
        // Both RMS over the pixels with a colour: A and H, not E.
        let sigmas = [0.9, 0.8].map(sigma)
        #expect(abs(bins[1.0]!.rmsSigma! - (sigmas.map { $0 * $0 }.reduce(0, +) / 2).squareRoot()) < 1e-6)
        #expect(h.unclaimedPixelCount == 0 && bins[1.0]?.rangeLabel == "1.0–1.5" && h.reliability.last?.rangeLabel == "≥ 6.0")
        #expect(abs(bins[0.5]!.rmsError! - eB) < 1e-3 && bins[0.5]?.accurateFraction == 0)
        #expect(abs(bins[2.0]!.rmsError! - eF) < 1e-3 && bins[2.0]?.accurateFraction == 0)
        #expect(bins[3.0]!.rmsError! < 1e-3 && bins[3.0]?.accurateFraction == 1)
        #expect(bins[4.0]?.accurateFraction == 1 && abs(bins[4.0]!.rmsSigma! - sigma(0.3)) < 1e-6)
        #expect(ConfidenceHonesty.claimedSigma(confidence: 0) == nil && ConfidenceHonesty.claimedSigma(confidence: 1) == 0)
        #expect(ConfidenceHonesty.claimedSigma(confidence: .nan) == nil && ConfidenceHonesty.claimedSigma(confidence: 1.5) == nil)
        // Confidence 0, NaN and above 1 claim nothing: counted apart, in no bin.
        var odd = conf
        odd[0, 0, 0] = 0; odd[1, 0, 0] = .nan; odd[2, 0, 0] = 1.5
        let hOdd = try ConfidenceHonesty.measure(linearXYZ: image, confidence: odd, labels: labels,
                                                 referenceLab: [1: r1, 2: r2], file: "labels.tif")
        #expect(hOdd.unclaimedPixelCount == 3 && hOdd.reliability.map(\.pixelCount).reduce(0, +) == 4)
        // Pooling adds counts; fractions come from the pooled counts.
        let pooled = h + ConfidenceHonesty(labelledPixelCount: 3, confidentPixelCount: 4, confidentWrongCount: 0,
                                           accuratePixelCount: 0, accurateLowConfidenceCount: 0)
        #expect(pooled.confidentWrongFraction == 0.25 && pooled.accurateLowConfidenceFraction == 0.25)
        #expect((h + h).reliability.map(\.pixelCount) == [0, 2, 6, 0, 2, 2, 2, 0])
        #expect((h + h).reliability[4].rmsError == h.reliability[4].rmsError)
        #expect(ConfidenceHonesty().confidentWrongFraction == nil)
        // A label without a reference, or maps of another size, are errors naming the file.
        #expect(throws: ConfidenceHonesty.Failure.unknownLabel(file: "labels.tif", label: 2)) {
            try ConfidenceHonesty.measure(linearXYZ: image, confidence: conf, labels: labels, referenceLab: [1: r1], file: "labels.tif")
        }
        #expect(throws: ConfidenceHonesty.Failure.self) {
            try ConfidenceHonesty.measure(linearXYZ: image, confidence: conf, labels: PlanarImage(width: 3, height: 2, channelCount: 1),
                                          referenceLab: [1: r1, 2: r2], file: "labels.tif")
        }
    }

    /// The ratio score: errors against the effective ratio when known, absent estimate stays absent.
    @Test func exposureRatioScore() {
        let s = ExposureRatioScore(nominal: 3.0, estimated: nil, trueRatio: 3.1, effective: 3.2)
        #expect(abs(s.relativeError(s.nominal)! - (3.0 / 3.2 - 1)) < 1e-15 && s.relativeError(s.estimated) == nil)
        #expect(ExposureRatioScore(nominal: 2, trueRatio: 2.5).relativeError(2.5) == 0)
        #expect(s.json.object?["estimated"] == .null)
    }

    /// The estimate's error in units of the uncertainty the pipeline states for it: 2.06 against a
    /// truth of 2 is +3 %, at a stated 2 % that is z = +1.5; no z without an estimate, an uncertainty
    /// or a positive one.
    @Test func exposureRatioErrorInStatedUncertainties() throws {
        let s = ExposureRatioScore(nominal: 2.1, estimated: 2.06, trueRatio: 2, estimatedRelativeUncertainty: 0.02)
        #expect(abs(try #require(s.estimatedErrorZ) - 1.5) < 1e-12)
        #expect(abs(try #require(s.json.object?["estimatedErrorZ"]?.double) - 1.5) < 1e-12)
        #expect(s.json.object?["estimatedRelativeUncertainty"]?.double == 0.02)
        #expect(ExposureRatioScore(nominal: 2.1, estimated: 2.06, trueRatio: 2).estimatedErrorZ == nil)
        #expect(ExposureRatioScore(nominal: 2.1, estimated: 2.06, trueRatio: 2, estimatedRelativeUncertainty: 0).estimatedErrorZ == nil)
        #expect(ExposureRatioScore(nominal: 2.1, trueRatio: 2, estimatedRelativeUncertainty: 0.02).estimatedErrorZ == nil)
        #expect(ExposureRatioScore(nominal: 2.1, estimated: 2.06, estimatedRelativeUncertainty: 0.02).estimatedErrorZ == nil)
    }
}
