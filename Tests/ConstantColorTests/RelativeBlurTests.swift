import Foundation
import Testing
import TestSupport
@testable import ConstantColor

/// The noise algebra of `RelativeBlur` (the ambient frame's extra blur, stage 4a), against a Monte
/// Carlo of the profile's construction: white noise smoothed by the binomial, its second difference,
/// both detrended. The end-to-end check (a known shake path's variance recovered) is in
/// `AmbientRatioTests.handShake`.
@Suite("Relative blur: errors-in-variables terms and the smoothed noise's correlation")
struct RelativeBlurTests {
    @Test func noiseTermsAndCorrelationMatchAMonteCarlo() {
        let reach = RelativeBlur.reach, n = 2 * reach + 1, g = RelativeBlur.smoothing, m = n + 2 + g.count - 1
        var rng = SplitMix64(seed: 2026)
        func uniform() -> Double { (Double(rng.next() >> 11) + 0.5) * 0x1.0p-53 }
        func normal() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform()) }
        let draws = 100_000
        var n11 = 0.0, n12 = 0.0, n22 = 0.0
        var covariance = [Double](repeating: 0, count: n * n)
        var raw = [Double](repeating: 0, count: m), smooth = [Double](repeating: 0, count: n + 2)
        var r1 = [Double](repeating: 0, count: n), r2 = r1
        for _ in 0..<draws {
            for i in 0..<m { raw[i] = normal() }
            for i in 0..<(n + 2) {
                var v = 0.0
                for q in 0..<g.count { v += g[q] * raw[i + q] }
                smooth[i] = v
            }
            for i in 0..<n {
                for k in 0..<n { covariance[i * n + k] += smooth[i + 1] * smooth[k + 1] }
                r1[i] = smooth[i + 1]; r2[i] = smooth[i] - 2 * smooth[i + 1] + smooth[i + 2]
            }
            IlluminationEdgeRatio.detrended(&r1); IlluminationEdgeRatio.detrended(&r2)
            for i in 0..<n { n11 += r1[i] * r1[i]; n12 += r1[i] * r2[i]; n22 += r2[i] * r2[i] }
        }
        let d = Double(draws)
        let (e11, e12, e22) = RelativeBlur.noiseTerms
        print(String(format: "noise terms %.4f %.4f %.4f, Monte Carlo %.4f %.4f %.4f", e11, e12, e22, n11 / d, n12 / d, n22 / d))
        // Standard errors of the means are about 0.3 % of each; 2 % would be a wrong matrix.
        #expect(abs(n11 / d / e11 - 1) < 0.02)
        #expect(abs(n12 / d / e12 - 1) < 0.02)
        #expect(abs(n22 / d / e22 - 1) < 0.02)
        // Independently computed (numpy, exact): 0.7148, −0.3515, 0.2527.
        #expect(abs(e11 - 0.7148) < 5e-4 && abs(e12 + 0.3515) < 5e-4 && abs(e22 - 0.2527) < 5e-4)
        let c = RelativeBlur.smoothedNoiseCorrelation
        var worst = 0.0
        for i in 0..<(n * n) { worst = max(worst, abs(covariance[i] / d - c[i])) }
        print(String(format: "smoothed noise correlation: worst |Monte Carlo − C| %.4f (C at lag 0 %.4f)", worst, c[0]))
        #expect(worst < 0.01)
        // Binomial of order 8: Σg² = C(16, 8)/2¹⁶.
        #expect(abs(c[0] - 12870.0 / 65536) < 1e-12)
    }
}
