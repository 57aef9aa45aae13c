import Foundation

/// Student's t distribution with an integer number of degrees of freedom, for tests whose standard
/// error rests on few independent groups of measurements (stage 4a's bands of rows, whose profiles
/// may lie on a handful of rows: Cameron, Gelbach & Miller, Rev. Econ. Stat. 90(3), 2008, take
/// t(G − 1) for G clusters).
enum StudentT {
    /// P(|T| ≥ t) for T ~ t(ν), ν ≥ 1: one minus A(t|ν) of Abramowitz & Stegun 26.7.3 (ν odd) and
    /// 26.7.4 (ν even), the finite series in θ = atan(t/√ν). As a difference from 1 it loses relative
    /// precision far in the tail (about 1e-6 at 1e-10), far below what a 99 % test needs.
    static func twoSidedTail(_ t: Double, degreesOfFreedom nu: Int) -> Double {
        precondition(nu >= 1)
        let x = abs(t)
        guard x.isFinite else { return x.isNaN ? .nan : 0 }
        let theta = atan(x / Double(nu).squareRoot()), s = sin(theta), c = cos(theta), c2 = c * c
        var a: Double
        if nu % 2 == 1 {
            // (2/π)·(θ + sin θ cos θ·(1 + (2/3)cos²θ + … + (2·4…(ν−3))/(1·3…(ν−2))·cos^(ν−3)θ)), the
            // bracket only for ν ≥ 3.
            var series = 0.0
            if nu >= 3 {
                var term = 1.0
                series = 1
                var k = 2
                while k <= nu - 3 {
                    term *= Double(k) / Double(k + 1) * c2
                    series += term
                    k += 2
                }
            }
            a = 2 / Double.pi * (theta + s * c * series)
        } else {
            // sin θ·(1 + (1/2)cos²θ + (1·3)/(2·4)cos⁴θ + … + (1·3…(ν−3))/(2·4…(ν−2))·cos^(ν−2)θ).
            var term = 1.0, series = 1.0
            var k = 1
            while k <= nu - 3 {
                term *= Double(k) / Double(k + 1) * c2
                series += term
                k += 2
            }
            a = s * series
        }
        return min(1, max(0, 1 - a))
    }

    /// The standard normal deviate with the same two-sided tail probability as `t` under t(ν), with
    /// `t`'s sign: a t statistic put on the scale of z so that χ² sums and 2σ rules apply to it. ν = 0
    /// (one group: nothing to compare its spread with) gives 0; ν = ∞ (`Int.max`) gives `t`.
    static func normalEquivalent(_ t: Double, degreesOfFreedom nu: Int) -> Double {
        guard nu > 0 else { return 0 }
        guard nu < 1_000_000, t != 0, t.isFinite else { return t }
        let p = twoSidedTail(t, degreesOfFreedom: nu)
        return (t < 0 ? -1 : 1) * normalTwoSidedQuantile(p)
    }

    /// z ≥ 0 with P(|Z| ≥ z) = p for a standard normal Z (erfc(z/√2) = p), by bisection; p at or
    /// below the smallest representable tail gives that tail's z (about 38).
    static func normalTwoSidedQuantile(_ p: Double) -> Double {
        guard p < 1 else { return 0 }
        var low = 0.0, high = 40.0
        for _ in 0..<80 {
            let mid = (low + high) / 2
            if erfc(mid / 2.0.squareRoot()) > p { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }
}
