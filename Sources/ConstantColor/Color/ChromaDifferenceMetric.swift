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
            return z.replacingLanes(with: 1e30, where: .!(z .< 1e30))  // also NaN and ∞
        }
        let r2 = a * a + b * b
        let g = 0.5 - 0.5 * (1 + ratioTo25ToThe7th(r2.fastInverseSquareRoot(newtonSteps: 2))).fastInverseSquareRoot(newtonSteps: 2)
        let scale = one + g
        let ap = scale * a
        let rp2 = ap * ap + b * b
        let inverseCp = rp2.fastInverseSquareRoot(newtonSteps: 2)
        let cp = rp2 * inverseCp
        // The hue's direction; a neutral (C' ≈ 0) has none, and there S_C = S_H = 1 and R_T = 0 make
        // the form rotation-invariant, so any direction gives its value.
        let hued = rp2 .> 1e-12
        let ch = (ap * inverseCp).replacingLanes(with: one, where: .!hued), sh = (b * inverseCp).replacingLanes(with: zero, where: .!hued)
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
        guard near.anyLane else { rt = zero; return }
        let phi = (sinPhi / cosPhi.replacingLanes(with: one, where: .!near)).fastArctangent * (180 / Float.pi)
        let q = (phi * (1.0 / 25)) * (phi * (1.0 / 25))
        let deltaTheta = 30 * (-q * 1.442_695).fastExp2  // degrees
        let rc = 2 * (1 + ratioTo25ToThe7th(inverseCp)).fastInverseSquareRoot(newtonSteps: 2)
        rt = (-(deltaTheta * (2 * Float.pi / 180)).fastSine * rc).replacingLanes(with: zero, where: .!near)
    }

    /// ΔE00c² of the change (Δa*, Δb*).
    @inline(always) func squaredDifference(_ da: Lanes, _ db: Lanes) -> Lanes {
        let u = ka * da + kb * db, v = kc * da + kd * db
        return u * u + v * v + rt * u * v
    }
}
