/// The CIEDE2000 colour difference without its lightness term (CIE 142-2001; Sharma, Wu & Dalal,
/// Color Res. Appl. 30(1), 2005), to first order at a colour, for eight colours at once: the metric
/// in which the confidence's σ is measured, the "ΔE00 chroma" of issue 7's honesty criterion.
///
/// For a small change (ΔL*, Δa*, Δb*) at (a*, b*): `Δa' = (1 + G)·Δa*` with `G = ½(1 − √(C̄⁷/(C̄⁷+25⁷)))`
/// (the same G for both colours of a pair, from their mean chroma), and with `cos h', sin h'` the
/// direction of (a', b*), `ΔC' = cos h'·Δa' + sin h'·Δb*`, `ΔH' = C'·Δh' = −sin h'·Δa' + cos h'·Δb*`;
/// then `ΔE00c² = (ΔC'/S_C)² + (ΔH'/S_H)² + R_T·(ΔC'/S_C)·(ΔH'/S_H)` with `S_C = 1 + 0.045 C'`,
/// `S_H = 1 + 0.015 C'·T(h')`, `R_T = −sin(2Δθ)·R_C`, `Δθ = 30°·exp(−((h' − 275°)/25°)²)`,
/// `R_C = 2√(C'⁷/(C'⁷+25⁷))`. ΔL* does not enter: the criterion scales each pixel's XYZ to the
/// reference's Y, because the flash's fall-off and the subject's distance set a pixel's lightness.
///
/// Why: a CIELAB σ overstates a saturated colour's difference several times (S_C is 4.6 at C* = 80),
/// so the confidence was unsure of saturated colours that were right.
struct ChromaDifferenceMetric {
    /// The vector type: eight colours.
    typealias Lanes = SIMD8<Float>
    /// The quadratic form's coefficients: `u = ka·Δa + kb·Δb` (ΔC'/S_C), `v = kc·Δa + kd·Δb`
    /// (ΔH'/S_H), `ΔE00c² = u² + v² + rt·u·v`.
    var ka: Lanes, kb: Lanes, kc: Lanes, kd: Lanes, rt: Lanes

    /// The metric at the colours (a*, b*). No division where a reciprocal square root will do:
    /// `√(C⁷/(C⁷+25⁷)) = 1/√(1 + (25/C)⁷)`, and 1/C is the reciprocal square root of a*² + b*².
    @inline(always) init(a: Lanes, b: Lanes) {
        let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
        // (25/C)⁷ from 1/C, capped where C → 0 (there the root below is 0: G = ½, R_C = 0).
        @inline(always) func ratioTo25ToThe7th(_ inverseC: Lanes) -> Lanes {
            let t = 25 * inverseC, t2 = t * t
            let z = t2 * t2 * t2 * t
            return z.replacing(with: 1e30, where: .!(z .< 1e30))  // also NaN and ∞
        }
        let r2 = a * a + b * b
        let g = 0.5 - 0.5 * Self.inverseSquareRoot(1 + ratioTo25ToThe7th(Self.inverseSquareRoot(r2)))
        let scale = one + g
        let ap = scale * a
        let rp2 = ap * ap + b * b
        let inverseCp = Self.inverseSquareRoot(rp2)
        let cp = rp2 * inverseCp
        // The hue's direction; a neutral (C' ≈ 0) has none, and there S_C = S_H = 1 and R_T = 0 make
        // the form rotation-invariant, so any direction gives its value.
        let hued = rp2 .> 1e-12
        let ch = (ap * inverseCp).replacing(with: one, where: .!hued), sh = (b * inverseCp).replacing(with: zero, where: .!hued)
        // T(h') from the multiple-angle formulas.
        let c2 = ch * ch - sh * sh, s2 = 2 * ch * sh
        let c3 = ch * (4 * ch * ch - 3), s3 = sh * (3 - 4 * sh * sh)
        let c4 = c2 * c2 - s2 * s2, s4 = 2 * s2 * c2
        let cos30: Float = 0.866_025_4, sin30: Float = 0.5
        let cos6: Float = 0.994_521_9, sin6: Float = 0.104_528_46
        let cos63: Float = 0.453_990_5, sin63: Float = 0.891_006_5
        let term1: Lanes = 0.17 * (ch * cos30 + sh * sin30)
        let term3: Lanes = 0.32 * (c3 * cos6 - s3 * sin6)
        let term4: Lanes = 0.20 * (c4 * cos63 + s4 * sin63)
        let t: Lanes = one - term1 + 0.24 * c2 + term3 - term4
        let inverseSC = one / (1 + 0.045 * cp), inverseSH = one / (1 + 0.015 * cp * t)
        ka = ch * scale * inverseSC; kb = sh * inverseSC
        kc = -sh * scale * inverseSH; kd = ch * inverseSH
        // R_T: φ = h' − 275°. It is taken as 0 where |R_T| < 0.01 (the form then changes by under
        // 0.5 %): beyond ±75°, exp(−(φ/25°)²) < 1.3e-4; below C' = 5, R_C < 0.0072. So vectors
        // with no saturated blue skip it (near-neutral pixels have random hues).
        let cos275: Float = 0.087_155_74, sin275: Float = -0.996_194_7
        let cosPhi = ch * cos275 + sh * sin275, sinPhi = sh * cos275 - ch * sin275
        let cos75: Float = 0.258_819
        let near = (cosPhi .> cos75) .& (rp2 .> 25)
        guard any(near) else { rt = zero; return }
        let phi = Self.arctangent(sinPhi / cosPhi.replacing(with: one, where: .!near)) * (180 / Float.pi)
        let q = (phi * (1.0 / 25)) * (phi * (1.0 / 25))
        let deltaTheta = 30 * Self.exp2(-q * 1.442_695)  // degrees
        let rc = 2 * Self.inverseSquareRoot(1 + ratioTo25ToThe7th(inverseCp))
        rt = (-Self.sine(deltaTheta * (2 * Float.pi / 180)) * rc).replacing(with: zero, where: .!near)
    }

    /// 1/√v for v > 0: the bit-trick first guess (error below 3.5 %) and two Newton steps
    /// `y ← y·(3 − v·y²)/2` (below 5e-6); 0 gives a large finite value, not ∞.
    @inline(always) static func inverseSquareRoot(_ v: Lanes) -> Lanes {
        let bits = unsafeBitCast(v, to: SIMD8<UInt32>.self)
        var y = unsafeBitCast(SIMD8<UInt32>(repeating: 0x5F37_59DF) &- (bits &>> 1), to: Lanes.self)
        let half = 0.5 * v
        y = y * (1.5 - half * y * y)
        y = y * (1.5 - half * y * y)
        return y
    }

    /// ΔE00c² of the change (Δa*, Δb*).
    @inline(always) func squaredDifference(_ da: Lanes, _ db: Lanes) -> Lanes {
        let u = ka * da + kb * db, v = kc * da + kd * db
        return u * u + v * v + rt * u * v
    }

    /// atan(x) for any finite x: a degree-11 odd minimax polynomial on [−1, 1] (absolute error below
    /// 2e-5 rad), and π/2 − atan(1/x) beyond.
    @inline(always) static func arctangent(_ x: Lanes) -> Lanes {
        let big = x.replacing(with: -x, where: x .< 0) .> 1
        let y = x.replacing(with: 1 / x, where: big)
        let y2 = y * y
        var p = Lanes(repeating: -0.011_721_20)
        p = p * y2 + 0.052_653_32
        p = p * y2 - 0.116_432_87
        p = p * y2 + 0.193_543_46
        p = p * y2 - 0.332_623_47
        p = p * y2 + 0.999_977_26
        let r = p * y
        let halfPi = Lanes(repeating: Float.pi / 2)
        return r.replacing(with: halfPi.replacing(with: -halfPi, where: x .< 0) - r, where: big)
    }

    /// 2^x for x ≤ 0 (clamped at −126): the integer part into the exponent bits, 2^f on [0, 1] by its
    /// Taylor series to degree 6 (relative error below 2e-5).
    @inline(always) static func exp2(_ x: Lanes) -> Lanes {
        let v = x.replacing(with: -126, where: x .< -126)
        // 1.5·2²³: for |v| < 2²² the sum lies in [2²³, 2²⁴), where the spacing of Floats is 1.
        let magic = Lanes(repeating: 12_582_912)
        let n = ((v - 0.5) + magic) - magic  // ⌊v⌋ (or v − 1 at an integer: f = 1 is in range)
        let f = v - n
        var p = Lanes(repeating: 1.540_353e-4)
        p = p * f + 1.333_355_8e-3
        p = p * f + 9.618_129e-3
        p = p * f + 5.550_411e-2
        p = p * f + 0.240_226_5
        p = p * f + 0.693_147_2
        p = p * f + 1
        // (n + 127) as the low bits of (n + 127 + 1.5·2²³), shifted into the exponent field.
        let biased = unsafeBitCast(n + 127 + magic, to: SIMD8<UInt32>.self) & SIMD8<UInt32>(repeating: 0xFF)
        return p * unsafeBitCast(biased &<< 23, to: Lanes.self)
    }

    /// sin(x) for x in [0, π/3] by its Taylor series to degree 7 (error below 5e-6).
    @inline(always) static func sine(_ x: Lanes) -> Lanes {
        let x2 = x * x
        var p: Lanes = 1.0 / 120 - x2 * (1.0 / 5040)
        p = 1.0 / 6 - x2 * p
        return x * (1 - x2 * p)
    }
}
