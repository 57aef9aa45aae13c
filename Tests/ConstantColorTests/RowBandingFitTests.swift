import Foundation
import Testing
@testable import ConstantColor

/// The flicker banding regression (`RowBandingFit`) on exact data: its normal equations from the rows'
/// moments must give back the coefficients the changes were made with, the column terms of the
/// fall-off included.
@Suite("Row banding fit")
struct RowBandingFitTests {
    /// Noise-free changes `d = P·2δ·γ(t, u) + 2 sin(2πνδ)(−a sin 2πνt + b cos 2πνt)`, written out
    /// here from the physics rather than from the fit's own basis, are fitted back exactly: γ's four
    /// powers of s, its four column terms (u, s·u, u², s·u²) and the banding, in the fit's layout.
    @Test func exactChangesGiveBackTheirCoefficients() throws {
        let gammaS = [-1.2, 0.05, 0.3, 0.15]            // 1, s, s², s³
        let gammaColumn = [0.02, -0.04, -0.25, 0.12]    // u, s·u, u², s·u²
        let nu = 2.0, a = -0.05, b = 0.035
        var random = SystemRandomNumberGenerator()
        var groups: [RowBandingFit.Group] = [], samples: [RowBandingFit.PixelSample] = []
        for halfSpan in [0.005, 0.025] {
            for row in 0..<150 {
                let t = (Double(row) + 0.5) / 150, s = 2 * t - 1
                for _ in 0..<40 {
                    let p = Double.random(in: 0.5...6, using: &random), u = Double.random(in: -1...1, using: &random)
                    let gamma = gammaS.enumerated().reduce(0) { $0 + $1.element * pow(s, Double($1.offset)) }
                        + gammaColumn[0] * u + gammaColumn[1] * s * u + gammaColumn[2] * u * u + gammaColumn[3] * s * u * u
                    let m = 2 * sin(2 * Double.pi * nu * halfSpan), w = 2 * Double.pi * nu * t
                    let d = p * 2 * halfSpan * gamma + m * (-a * sin(w) + b * cos(w))
                    samples.append(.init(group: groups.count, p: p, d: d, u: u, w: Double.random(in: 0.5...2, using: &random)))
                }
                groups.append(.init(t: t, halfSpan: halfSpan))
            }
        }
        let stats = RowBandingFit.accumulate(samples, [Double](repeating: 1, count: samples.count), groups)
        let fit = try #require(RowBandingFit.solve(stats, frequencies: [nu], terms: 4))
        let expected = gammaS + gammaColumn + [a, b]
        #expect(fit.coefficients.count == expected.count)
        for (got, want) in zip(fit.coefficients, expected) { #expect(abs(got - want) < 1e-9) }
        #expect(fit.rssBetween < 1e-20)
        #expect(fit.groupResiduals(stats, frequencies: [nu]).allSatisfy { abs($0) < 1e-12 })
    }

    /// Two components closer than one cycle per frame are not resolved: the search bracket keeps
    /// its distance from those already found, on either side.
    @Test func bracketsKeepOneCycleFromOtherComponents() {
        // Dyadic values, so that the sums are exact.
        #expect(RowBandingFit.resolvable(1.75, 2.25, around: 2, from: []) == (1.75, 2.25))
        #expect(RowBandingFit.resolvable(1.75, 2.25, around: 2, from: [1.125]) == (2.125, 2.25))
        #expect(RowBandingFit.resolvable(1.75, 2.25, around: 2, from: [2.875]) == (1.75, 1.875))
        #expect(RowBandingFit.resolvable(1.75, 2.25, around: 2, from: [1.125, 2.875]) == (2.125, 2.125))
        #expect(RowBandingFit.resolvable(1.75, 2.25, around: 2, from: [5, 0.25]) == (1.75, 2.25))
    }
}
