#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stage 6 of SPEC: how far each pixel's color can be trusted, in [0, 1].
///
/// `confidence = noise · valid`, where
/// - `noise = 1 / (1 + (σ/σ₀)²)` with σ the standard deviation of the pixel's rendered color in
///   CIELAB units, propagated linearly from the per-channel variance of `D` through the white
///   balance, the matrix and the CIE 1976 L*a*b* formulas (CIE 15:2004 §8.2.1); σ₀ = 3 gives 0.8 at
///   σ = 1.5 (a 3-ΔE error then has about 1 % probability) and 0.5 at σ = 3. Besides the noise,
///   σ² holds the error of an ambient-to-flash exposure ratio known only to a relative
///   `exposureRatioUncertainty` δ: the subtracted ambient `A = F − D` is off by `δ·A`, the same
///   direction in every channel, so it enters as `|J·δA|²` (J the Jacobian of L*a*b* on camera RGB).
///   It is what makes bright ambient light untrustworthy even where the noise is averaged away.
///   Where the frames disagree (local motion, failed registration) `D` has structure the flash frame
///   does not explain; `NoiseReduction` counts that misfit in the variance, so σ grows there too;
/// - `valid` is 0 where either frame is clipped (dilated by one pixel to cover the interpolation
///   footprint and blooming) or the ambient frame has no sample, else 1.
public enum Confidence {
    /// σ₀ of the noise term, in CIELAB units.
    public static let noiseScaleDeltaE: Float = 3

    /// Default relative uncertainty of the ambient-to-flash exposure ratio taken from metadata:
    /// shutter times and gains of real cameras differ from their nominal values by a few percent.
    public static let defaultExposureRatioUncertainty: Float = 0.02

    /// The confidence map, one plane in flash-frame geometry.
    /// `flash` is the normalized flash frame `D` was made from (the ambient is `F − D`); when the
    /// estimate carries a `guideGain`, the guide's noise `ā·δI` enters as a correlated error too.
    public static func map(estimate: DarkRoomEstimate, flash: LinearFrame, rendering: ColorRendering,
                           registration: RegistrationResult,
                           exposureRatioUncertainty: Float = defaultExposureRatioUncertainty) -> PlanarImage {
        let d = estimate.difference, v = estimate.variance
        precondition(flash.image.pixelCount == d.pixelCount)
        let guideGain = estimate.guideGain ?? PlanarImage(width: 1, height: 1, channelCount: 3)
        let hasGuide = estimate.guideGain != nil, flashNoise = flash.noise
        let delta = exposureRatioUncertainty
        let w = d.width, h = d.height, n = w * h
        let invalid = dilatedInvalid(flags: estimate.flags, width: w, height: h)
        // XYZ relative to the D65 white (Xn, 1, Zn) at the rendering's exposure.
        let xyz = rendering.matrix(to: .xyz)
        let white = WhitePoint.d65XYZ
        let mx = xyz.rows[0].map { Float($0 / white.x) }, my = xyz.rows[1].map(Float.init),
            mz = xyz.rows[2].map { Float($0 / white.z) }
        var out = PlanarImage(width: w, height: h, channelCount: 1)
        d.samples.withUnsafeBufferPointer { dBuffer in
        v.samples.withUnsafeBufferPointer { vBuffer in
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
        guideGain.samples.withUnsafeBufferPointer { gBuffer in
        invalid.withUnsafeBufferPointer { iBuffer in
        out.samples.withUnsafeMutableBufferPointer { oBuffer in
            let inputs = UncheckedSendableBox((dBuffer, vBuffer, fBuffer, gBuffer, iBuffer))
            let o = SharedMutableBuffer(oBuffer)
            forEachRowBand(rowCount: h) { rows in
                let (dd, vv, ff, gg, bad) = inputs.value
                for y in rows {
                    for x in 0..<w {
                        let i = y * w + x
                        if bad[i] { o[i] = 0; continue }
                        let r = dd[i], g = dd[n + i], b = dd[2 * n + i]
                        let fr = ff[i], fg = ff[n + i], fb = ff[2 * n + i]
                        var guideSigma: Float = 0, gains: (Float, Float, Float) = (0, 0, 0)
                        if hasGuide {
                            guideSigma = (flashNoise.variance(fr) + flashNoise.variance(fg) + flashNoise.variance(fb)).squareRoot()
                            gains = (gg[i], gg[n + i], gg[2 * n + i])
                        }
                        let sigma = labStandardDeviation(
                            rgb: (r, g, b), variance: (vv[i], vv[n + i], vv[2 * n + i]),
                            systematic: (delta * (fr - r), delta * (fg - g), delta * (fb - b)),
                            guideNoise: (guideSigma * gains.0, guideSigma * gains.1, guideSigma * gains.2),
                            mx: mx, my: my, mz: mz)
                        let q = sigma / noiseScaleDeltaE
                        let noiseTerm = 1 / (1 + q * q)
                        let c = noiseTerm
                        o[i] = c.isFinite ? min(1, max(0, c)) : 0
                    }
                }
            }
        }}}}}}
        return out
    }

    /// Derivative of the CIELAB function f(t) (t^(1/3) above (6/29)³, linear below; CIE 15:2004).
    @inlinable static func labSlope(_ t: Float) -> Float {
        let t0: Float = 216.0 / 24389.0  // (6/29)³
        if t > t0 { return 1 / (3 * cbrtf(t * t)) }
        return 841.0 / 108.0  // 1 / (3 (6/29)²)
    }

    /// Standard deviation (√ of the trace of the covariance) of L*, a*, b* for a pixel whose
    /// camera RGB has independent per-channel variances plus two independent, fully correlated error
    /// vectors (standard deviations) `systematic` and `guideNoise`; `mx, my, mz` are the rows of the
    /// camera→XYZ matrix divided by the white's X, Y, Z.
    @inlinable static func labStandardDeviation(rgb: (Float, Float, Float), variance: (Float, Float, Float),
                                                systematic: (Float, Float, Float) = (0, 0, 0),
                                                guideNoise: (Float, Float, Float) = (0, 0, 0),
                                                mx: [Float], my: [Float], mz: [Float]) -> Float {
        let tx = mx[0] * rgb.0 + mx[1] * rgb.1 + mx[2] * rgb.2
        let ty = my[0] * rgb.0 + my[1] * rgb.1 + my[2] * rgb.2
        let tz = mz[0] * rgb.0 + mz[1] * rgb.1 + mz[2] * rgb.2
        let gx = labSlope(tx), gy = labSlope(ty), gz = labSlope(tz)
        // Σ_c var_c · |∂Lab/∂rgb_c|², column by column (no per-pixel allocation).
        @inline(__always) func column(_ c: Int) -> SIMD3<Float> {
            SIMD3(116 * gy * my[c], 500 * (gx * mx[c] - gy * my[c]), 200 * (gy * my[c] - gz * mz[c]))
        }
        let j0 = column(0), j1 = column(1), j2 = column(2)
        let e = systematic.0 * j0 + systematic.1 * j1 + systematic.2 * j2
        let q = guideNoise.0 * j0 + guideNoise.1 * j1 + guideNoise.2 * j2
        let total = variance.0 * (j0 * j0).sum() + variance.1 * (j1 * j1).sum() + variance.2 * (j2 * j2).sum()
            + (e * e).sum() + (q * q).sum()
        return total.squareRoot()
    }

    /// True where a pixel or one of its 8 neighbours is clipped or has no ambient sample.
    static func dilatedInvalid(flags: [UInt8], width w: Int, height h: Int) -> [Bool] {
        var out = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w where flags[y * w + x] != 0 {
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) { out[yy * w + xx] = true }
                }
            }
        }
        return out
    }
}
