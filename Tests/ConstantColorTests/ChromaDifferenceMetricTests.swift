import ConstantColorIO
import Foundation
import TestSupport
import Testing
@testable import ConstantColor

/// The confidence's metric (`ChromaDifferenceMetric`) against Little CMS's CIEDE2000 (CIE 142-2001)
/// on small changes at random colours: two implementations of one function must agree.
@Suite("CIEDE2000 chroma metric of the confidence")
struct ChromaDifferenceMetricTests {
    @Test("first-order ΔE00 without lightness equals Little CMS's CIEDE2000 of small changes, all hues and chromas")
    func matchesLittleCMS() {
        var rng = SplitMix64(seed: 0xDE00_0001)
        func u() -> Double { Double(rng.next() >> 11) * 0x1.0p-53 }
        var worst = 0.0
        for _ in 0..<64 {
            var a = SIMD8<Float>(), b = a, da = a, db = a
            var labs: [SIMD3<Double>] = []
            for k in 0..<8 {
                // Chroma 0–100 at any hue (the blue region of R_T included), L* 20–90.
                let c = 100 * u() * u(), h = 2 * Double.pi * u()
                let lab = SIMD3(20 + 70 * u(), c * cos(h), c * sin(h))
                labs.append(lab)
                a[k] = Float(lab.y); b[k] = Float(lab.z)
                let step = 0.02, angle = 2 * Double.pi * u()
                da[k] = Float(step * cos(angle)); db[k] = Float(step * sin(angle))
            }
            let metric = ChromaDifferenceMetric(a: a, b: b)
            let got = metric.squaredDifference(da, db)
            for k in 0..<8 {
                // Little CMS on the pair (L*, a, b) and (L*, a + Δa, b + Δb), same L*: no lightness term.
                let other = labs[k] + SIMD3(0, Double(da[k]), Double(db[k]))
                let expected = ColorScience.ciede2000(SIMD3(labs[k].x, Double(a[k]), Double(b[k])), other)
                let ratio = Double(got[k]).squareRoot() / expected
                worst = max(worst, abs(ratio - 1))
                #expect(abs(ratio - 1) < 0.005, "Lab \(labs[k]), Δ (\(da[k]), \(db[k])): metric \(Double(got[k]).squareRoot()) vs \(expected)")
            }
        }
        print(String(format: "chroma metric vs Little CMS CIEDE2000: worst relative difference %.4f", worst))
    }

    @Test("known answers: neutral (G = ½: a* counts 1.5×) and a saturated yellow (S_C = 1 + 0.045 C')")
    func knownAnswers() {
        let neutral = ChromaDifferenceMetric(a: SIMD8(repeating: 0), b: SIMD8(repeating: 0))
        // At C = 0, G = 0.5: Δa' = 1.5 Δa; S_C = S_H = 1, R_T = 0.
        #expect(abs(neutral.squaredDifference(SIMD8(repeating: 1), SIMD8(repeating: 0))[0] - 2.25) < 1e-4)
        #expect(abs(neutral.squaredDifference(SIMD8(repeating: 0), SIMD8(repeating: 1))[0] - 1) < 1e-4)
        // Along the chroma of b* = 80 (hue 90°, G ≈ 0): ΔC' = Δb*, S_C = 1 + 0.045·80 = 4.6.
        let yellow = ChromaDifferenceMetric(a: SIMD8(repeating: 0), b: SIMD8(repeating: 80))
        let d = yellow.squaredDifference(SIMD8(repeating: 0), SIMD8(repeating: 1))[0].squareRoot()
        #expect(abs(d - 1 / 4.6) < 1e-3, "\(d)")
    }

    @Test("the vector helpers: atan, 2^x, sin and 1/√ against Foundation")
    func helpers() {
        var worstAtan: Float = 0, worstExp: Float = 0, worstSin: Float = 0, worstRoot: Float = 0
        for i in 0..<400 {
            let x = Float(i - 200) / 10  // −20 … 19.9
            worstAtan = max(worstAtan, abs(SIMD8<Float>(repeating: x).fastArctangent[0] - atan(x)))
            let e = -Float(i) / 400 * 30  // 0 … −30
            let exact = Float(exp2(Double(e)))
            worstExp = max(worstExp, abs(SIMD8<Float>(repeating: e).fastExp2[0] - exact) / exact)
            let s = Float(i) / 400 * Float.pi / 3
            worstSin = max(worstSin, abs(SIMD8<Float>(repeating: s).fastSine[0] - sin(s)))
            let v = Float(exp2(Double(i - 200) / 8))  // 2⁻²⁵ … 2²⁵
            worstRoot = max(worstRoot, abs(SIMD8<Float>(repeating: v).fastInverseSquareRoot(newtonSteps: 2)[0] * v.squareRoot() - 1))
        }
        #expect(worstAtan < 2e-5 && worstExp < 2e-5 && worstSin < 5e-6 && worstRoot < 1e-5,
                "atan \(worstAtan), exp2 \(worstExp), sin \(worstSin), 1/√ \(worstRoot)")
    }

    @Test("replacingLanes takes the same lanes, bit for bit, as the standard library's replacing(with:where:): masks from comparisons, negated and combined; NaN payloads, signed zeros, infinities and subnormals kept")
    func replacingLanes() {
        var rng = SplitMix64(seed: 0x5E1E_C7)
        let specials: [Float] = [.nan, -.nan, Float(bitPattern: 0x7FC0_1234), 0, -0.0, .infinity, -.infinity,
                                 .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude, 1, -1]
        func value() -> Float {
            rng.next() % 3 == 0 ? specials[Int(rng.next() % UInt64(specials.count))]
                                : Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
        }
        func vector() -> SIMD8<Float> { SIMD8((0..<8).map { _ in value() }) }
        func same(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> Bool { (0..<8).allSatisfy { a[$0].bitPattern == b[$0].bitPattern } }
        var differing = 0, taken = 0, kept = 0
        for _ in 0..<2000 {
            let a = vector(), b = vector(), c = vector(), s = value()
            let masks = [a .> b, .!(a .< c), (b .<= c) .| (a .== a), (a .>= b) .& .!(c .> 0), a .!= a]
            for m in masks {
                if !same(a.replacingLanes(with: b, where: m), a.replacing(with: b, where: m)) { differing += 1 }
                if !same(a.replacingLanes(with: s, where: m), a.replacing(with: s, where: m)) { differing += 1 }
                for lane in 0..<8 { if m[lane] { taken += 1 } else { kept += 1 } }
            }
        }
        // (Both outcomes are exercised in quantity, so the comparison is not of masks that are all one way.)
        #expect(differing == 0 && taken > 10_000 && kept > 10_000, "\(differing) differing, \(taken) taken, \(kept) kept")
    }
}
