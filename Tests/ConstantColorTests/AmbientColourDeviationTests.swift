import Foundation
import Testing
@testable import ConstantColor
import ConstantColorIO

/// The channels' signed deviation of the subtracted ratio (`AmbientRatioEstimate.channelDeviation`,
/// `ambientColourDeviation`) and what the confidence makes of it (`Confidence`: one error `ε_c·A_c`
/// across the channels, beside the common `δ·A`).
struct AmbientColourDeviationTests {
    typealias Location = TukeyBiweight.Location

    static func result(_ channels: [(Double, Double)?]) -> IlluminationEdgeRatio.Result {
        var r = IlluminationEdgeRatio.Result(ratio: 1, standardError: 0.003, sampleCount: 300, misfitScale: 1)
        r.channels = channels.map { $0.map { Location(centre: $0.0, standardError: $0.1, count: 100, scatterInflation: 1) } }
        return r
    }

    /// By hand (equal errors 0.01): mean 1.033333, Q = 10 000·(0.266667² + 0.033333² + 0.233333²) =
    /// 1266.67, s = √(1 − 2/Q) = 0.999210; d = 0.9·(r_c − mean)·s/1.05, then 0.03 less in size:
    /// +0.198391, 0, −0.169842 (green's −0.028548 is within the 3 %).
    @Test("known answers: signed, shrunk by the noise's share, 3 % less in size; nil within 3 % or with one channel")
    func channelDeviationKnownAnswers() throws {
        let d = try #require(AmbientRatioEstimate.channelDeviation(Self.result([(1.30, 0.01), (1.00, 0.01), (0.80, 0.01)]),
                                                                   edgeWeight: 0.9, ratio: 1.05))
        #expect(abs(d.x - 0.198391) < 1e-5 && d.y == 0 && abs(d.z + 0.169842) < 1e-5, "\(d)")
        // Channels 2–3 % apart (a demosaiced pair's edges under one light): nothing beyond the limit.
        #expect(AmbientRatioEstimate.channelDeviation(Self.result([(1.02, 0.001), (1.00, 0.001), (0.99, 0.001)]),
                                                      edgeWeight: 1, ratio: 1) == nil)
        // A channel not located deviates by 0; one located channel alone gives nothing.
        let two = try #require(AmbientRatioEstimate.channelDeviation(Self.result([(1.2, 0.01), nil, (0.8, 0.01)]),
                                                                     edgeWeight: 1, ratio: 1))
        #expect(two.y == 0 && two.x > 0.16 && two.z < -0.16, "\(two)")
        #expect(AmbientRatioEstimate.channelDeviation(Self.result([(1.2, 0.01), nil, nil]), edgeWeight: 1, ratio: 1) == nil)
        // EXIF alone (weight 0): nothing.
        #expect(AmbientRatioEstimate.channelDeviation(Self.result([(1.3, 0.01), (1.0, 0.01), (0.8, 0.01)]),
                                                      edgeWeight: 0, ratio: 1) == nil)
    }

    /// A flat flash-only scene (700, 800, 900) under a grey ambient light (300 in every channel),
    /// nearly noiseless: the confidence's σ² grows by |J·(ε∘A)|² in the chroma metric for a signed
    /// deviation ε — checked against a finite difference of CIELAB (ColorScience) at the pixel — and
    /// a deviation of one size in red and blue with opposite signs costs more than the same size
    /// common to the channels (which moves the colour toward the ambient light's grey only).
    @Test("the signed deviation enters σ² as |J·(ε∘A)|² (a finite difference of CIELAB), and opposite signs cost more than one sign")
    func signedDeviationEntersTheChromaVariance() throws {
        let w = 64, h = 48, centre = (h / 2) * w + w / 2
        let truth = SIMD3<Double>(700, 800, 900), ambientLevel = 300.0
        let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)
        let (flash, ambient) = NoiseReductionTests.whiteNoisePair(width: w, height: h, truth: { _, c in Float(truth[c]) },
                                                                  ambientVariance: 0.01, flashVariance: 0.01, seed: 5, exposure: exposure)
        let unit = ColorRendering(flash: SyntheticScene.flashProfile, primaries: .displayP3, scale: 1)
        let rendering = unit.withScale(0.3 / (unit.matrix(to: .xyz) * truth).y)
        func confidence(delta: Float, deviation: SIMD3<Float>) -> (confidence: Double, value: SIMD3<Double>) {
            var d = DarkRoomEstimate(flash: flash, ambient: ambient, registration: NoiseReductionTests.identity)
            let model = NoiseReduction().model(estimate: d, flash: flash)
            let c = Confidence.filterAndMap(estimate: &d, model: model, flash: flash, rendering: rendering,
                                            exposureRatioUncertainty: delta, ambientColourDeviation: deviation).confidence
            let n = w * h
            return (Double(c.samples[centre]), SIMD3((0..<3).map { Double(d.difference.samples[$0 * n + centre]) }))
        }
        let none = confidence(delta: 0, deviation: .zero)
        let epsilon = SIMD3<Double>(0.1, 0, -0.1)
        let signed = confidence(delta: 0, deviation: SIMD3<Float>(epsilon))
        let common = confidence(delta: 0.1, deviation: .zero)
        #expect(none.confidence > 0.99, "\(none)")
        // σ²/σ₀² = 1/c − 1: the deviation's share.
        let s0 = Double(Confidence.noiseScaleDeltaE)
        let measured = s0 * s0 * ((1 / signed.confidence - 1) - (1 / none.confidence - 1))
        // The expected: first-order ΔE00 chroma (the metric at the pixel's a*, b*) of the CIELAB step
        // that the camera-RGB error ε∘A makes, by a central difference.
        let toXYZ = rendering.matrix(to: .xyz)
        let error = epsilon * SIMD3(repeating: ambientLevel), t = 1e-4
        let lab = { (rgb: SIMD3<Double>) in ColorScience.lab(fromXYZ: toXYZ * rgb, white: ColorScience.whiteD65XYZ) }
        let step = (lab(signed.value + t * error) - lab(signed.value - t * error)) / (2 * t)
        let here = lab(signed.value)
        let metric = ChromaDifferenceMetric(a: SIMD8<Float>(repeating: Float(here.y)), b: SIMD8<Float>(repeating: Float(here.z)))
        let expected = Double(metric.squaredDifference(SIMD8<Float>(repeating: Float(step.y)), SIMD8<Float>(repeating: Float(step.z)))[0])
        #expect(expected > 1 && abs(measured / expected - 1) < 0.02, "measured \(measured), expected \(expected)")
        #expect(signed.confidence < common.confidence, "signed \(signed.confidence), common \(common.confidence)")
        // A deviation that is not a number (a failed estimate) counts as 100 %, not as none: the
        // same confidence as +1 in that channel, well below none.
        let failed = confidence(delta: 0, deviation: SIMD3(.nan, 0, 0)), full = confidence(delta: 0, deviation: SIMD3(1, 0, 0))
        #expect(failed.confidence == full.confidence && failed.value == full.value && full.confidence < 0.5 * none.confidence,
                "NaN \(failed.confidence), +1 \(full.confidence), none \(none.confidence)")
    }

    /// A channel of the flash-only estimate below zero is a shortfall only beyond twice its whole
    /// standard deviation, and the deviation ε_c of the subtracted ambient is part of it
    /// (`Confidence.negativeLight`, ε_c²·A_c² beside δ²·A_c²): red at −50 under 150 of subtracted
    /// ambient with a 20 % deviation has σ ≈ 30, no shortfall; without the deviation its σ is 1 and
    /// the shortfall −48 is counted as a correlated error, |J·(−48, 0, 0)|² in the chroma metric.
    @Test("negative light: the channels' deviation widens a channel's whole σ (a −50 red under 150 of ambient with ε = 20 % is no shortfall; without it the −48 beyond 2σ is counted)")
    func negativeLightCountsTheDeviation() {
        typealias Lanes = SIMD8<Float>
        func lanes(_ v: Float) -> Lanes { Lanes(repeating: v) }
        let noise = FrameNoise(varianceOffset: 0, varianceSlope: 0)
        func constants(_ epsilon: SIMD3<Float>) -> Confidence.KernelConstants {
            Confidence.KernelConstants(mx: SIMD3(0.45, 0.35, 0.18), my: SIMD3(0.21, 0.72, 0.07), mz: SIMD3(0.02, 0.12, 0.95),
                                       delta: 0, colourDeviation: epsilon, deviates: epsilon != .zero,
                                       flashNoise: noise, ambientNoise: noise)
        }
        let value = (lanes(-50), lanes(100), lanes(100)), f = (lanes(100), lanes(250), lanes(250))
        let independent = (lanes(1), lanes(1), lanes(1)), gain = (lanes(0), lanes(0), lanes(0))
        let slopes = (lanes(0.01), lanes(0.01), lanes(0.01))
        let metric = ChromaDifferenceMetric(a: lanes(20), b: lanes(-10))
        let deviated = Confidence.negativeLight(value: value, independent: independent, gain: gain, f: f, guideVariance: lanes(0),
                                                slopes: slopes, metric: metric, constants(SIMD3(0.2, 0, 0)))
        let plain = Confidence.negativeLight(value: value, independent: independent, gain: gain, f: f, guideVariance: lanes(0),
                                             slopes: slopes, metric: metric, constants(.zero))
        let expected = Confidence.correlatedChromaError((lanes(-48), lanes(0), lanes(0)), slopes: slopes, metric: metric,
                                                        constants(.zero))
        #expect(deviated.error[0] == 0 && !deviated.noLight[0], "with the deviation: \(deviated.error[0])")
        #expect(expected[0] > 0 && abs(plain.error[0] / expected[0] - 1) < 1e-5, "without: \(plain.error[0]) vs \(expected[0])")
        #expect(!plain.noLight[0])
    }
}
