import Foundation
import Testing
@testable import ConstantColor

/// Tukey's biweight (Beaton & Tukey 1974), the robust weights and means of stage 4a, against values
/// worked out by hand: a wrong tuning constant (4.685), MAD factor (1.4826) or standard error would
/// move every figure below.
@Suite("Tukey's biweight: weights and robust location, known answers")
struct TukeyBiweightTests {
    @Test("weights: scale 4.685 · 1.4826 · MAD, (1 − u²)² inside, 0 beyond")
    func weightsKnownAnswers() {
        // |z| = 0, 1, 1, 2, 100: the median (the third of five) is 1, so c = 4.685 · 1.4826 = 6.945981.
        let w = TukeyBiweight.weights([0, 1, -1, 2, 100])
        let c = 4.685 * 1.4826
        let expected = [1, pow(1 - 1 / (c * c), 2), pow(1 - 1 / (c * c), 2), pow(1 - 4 / (c * c), 2), 0]
        #expect(w.count == 5)
        for (a, b) in zip(w, expected) { #expect(abs(a - b) < 1e-6, "\(w) vs \(expected)") }
        // By hand: 1/c² = 0.0207268, so (1 − 1/c²)² = 0.958976 and (1 − 4/c²)² = 0.841059.
        #expect(abs(w[1] - 0.958976) < 1e-5 && abs(w[3] - 0.841059) < 1e-5)
    }

    @Test("location: an outlier beyond 4.685 σ gets no weight; the standard error is 2/√Σw with no excess scatter")
    func locationIgnoresTheOutlier() throws {
        let samples = [1.0, 1, 1, 1, 100].map { (value: $0, sigma: 1.0) }
        let l = try #require(TukeyBiweight.location(samples, iterations: 20, tolerance: 1e-12))
        #expect(l.centre == 1 && l.count == 4)
        // Four weights of 1, no scatter (χ² = 0, no inflation): 2 / √4.
        #expect(abs(l.standardError - 1) < 1e-12)
    }

    @Test("location of two values 1 σ apart: the midpoint, standard error 2/√(2·(1 − (0.5/4.685)²)²)")
    func locationOfTwoValues() throws {
        // The weighted median starts at 0; the iteration reaches the symmetric fixed point 0.5.
        let l = try #require(TukeyBiweight.location([(0.0, 1.0), (1.0, 1.0)], iterations: 200, tolerance: 1e-13))
        #expect(abs(l.centre - 0.5) < 1e-9 && l.count == 2)
        // u = 0.5/4.685 for both: Σw = 2·(1 − u²)² = 1.954704; χ²/dof = 0.5 < 1, no inflation.
        #expect(abs(l.standardError - 2 / 1.954704.squareRoot()) < 1e-5, "\(l.standardError)")
    }

    @Test("location: the scatter beyond the stated σ inflates the standard error by √(χ²/dof); two clusters further apart than 4.685 σ are not averaged; no samples, no location")
    func scatterInflatesTheError() throws {
        // Values ±1 around 0 with σ = 1: χ² = 4 over 3 degrees of freedom, inflation √(4/3).
        let samples = [-1.0, -1, 1, 1].map { (value: $0, sigma: 1.0) }
        let l = try #require(TukeyBiweight.location(samples, iterations: 500, tolerance: 1e-13))
        // The weighted median is the second value, −1; the iteration settles at the symmetric 0.
        #expect(abs(l.centre) < 1e-9 && l.count == 4)
        let u2: Double = pow(1.0 / 4.685, 2.0), sw: Double = 4 * (1 - u2) * (1 - u2)  // 3.643825
        #expect(abs(l.standardError - 2 * (4.0 / 3).squareRoot() / sw.squareRoot()) < 1e-6, "\(l.standardError)")
        #expect(abs(l.standardError - 1.209820) < 1e-5)
        // ±3: from the weighted median −3 the other cluster lies 6 σ away, beyond the support; the
        // redescending estimator stays on its side rather than report the empty middle.
        let split = try #require(TukeyBiweight.location([-3.0, -3, 3, 3].map { ($0, 1.0) }, iterations: 50, tolerance: 1e-13))
        #expect(split.centre == -3 && split.count == 2)
        #expect(TukeyBiweight.location([], iterations: 10, tolerance: 1e-9) == nil)
    }
}
