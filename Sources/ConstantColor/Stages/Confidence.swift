#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stage 6 of SPEC: how far each pixel's color can be trusted, in [0, 1].
///
/// `confidence = noise · match · valid`, where
/// - `noise = 1 / (1 + (σ/σ₀)²)` with σ the standard deviation of the pixel's rendered color in
///   CIELAB units, propagated linearly from the per-channel variance of `D` through the white
///   balance, the matrix and the CIE 1976 L*a*b* formulas (CIE 15:2004 §8.2.1); σ₀ = 3 gives 0.8 at
///   σ = 1.5 (a 3-ΔE error then has about 1 % probability) and 0.5 at σ = 3;
/// - `match` is the registration's local agreement map (1 where the frames agree or show no
///   structure, falling to 0 where their structure disagrees: failed registration, local motion);
/// - `valid` is 0 where either frame is clipped (dilated by one pixel to cover the interpolation
///   footprint and blooming) or the ambient frame has no sample, else 1.
public enum Confidence {
    /// σ₀ of the noise term, in CIELAB units.
    public static let noiseScaleDeltaE: Float = 3

    /// The confidence map, one plane in flash-frame geometry.
    public static func map(estimate: DarkRoomEstimate, rendering: ColorRendering,
                           registration: RegistrationResult) -> PlanarImage {
        let d = estimate.difference, v = estimate.variance
        let w = d.width, h = d.height, n = w * h
        let invalid = dilatedInvalid(flags: estimate.flags, width: w, height: h)
        // XYZ relative to the D65 white (Xn, 1, Zn) at the rendering's exposure.
        let xyz = rendering.matrix(to: .xyz)
        let white = WhitePoint.d65XYZ
        let mx = xyz.rows[0].map { Float($0 / white.x) }, my = xyz.rows[1].map(Float.init),
            mz = xyz.rows[2].map { Float($0 / white.z) }
        let match = registration.matchMap, down = registration.matchMapDownscale
        var out = PlanarImage(width: w, height: h, channelCount: 1)
        d.samples.withUnsafeBufferPointer { dBuffer in
        v.samples.withUnsafeBufferPointer { vBuffer in
        invalid.withUnsafeBufferPointer { iBuffer in
        out.samples.withUnsafeMutableBufferPointer { oBuffer in
            let inputs = UncheckedSendableBox((dBuffer, vBuffer, iBuffer))
            let o = SharedMutableBuffer(oBuffer)
            forEachRowBand(rowCount: h) { rows in
                let (dd, vv, bad) = inputs.value
                for y in rows {
                    for x in 0..<w {
                        let i = y * w + x
                        if bad[i] { o[i] = 0; continue }
                        let r = dd[i], g = dd[n + i], b = dd[2 * n + i]
                        let sigma = labStandardDeviation(
                            rgb: (r, g, b), variance: (vv[i], vv[n + i], vv[2 * n + i]), mx: mx, my: my, mz: mz)
                        let q = sigma / noiseScaleDeltaE
                        let noiseTerm = 1 / (1 + q * q)
                        let m = down == 1 ? match.pixels[min(match.pixels.count - 1, i)]
                            : (match.bilinear(x: (Float(x) + 0.5) / Float(down), y: (Float(y) + 0.5) / Float(down))
                               ?? match.pixels[min(match.height - 1, y / down) * match.width + min(match.width - 1, x / down)])
                        let c = noiseTerm * m
                        o[i] = c.isFinite ? min(1, max(0, c)) : 0
                    }
                }
            }
        }}}}
        return out
    }

    /// Derivative of the CIELAB function f(t) (t^(1/3) above (6/29)³, linear below; CIE 15:2004).
    @inlinable static func labSlope(_ t: Float) -> Float {
        let t0: Float = 216.0 / 24389.0  // (6/29)³
        if t > t0 { return 1 / (3 * cbrtf(t * t)) }
        return 841.0 / 108.0  // 1 / (3 (6/29)²)
    }

    /// Standard deviation (√ of the trace of the covariance) of L*, a*, b* for a pixel whose
    /// camera RGB has independent per-channel variances; `mx, my, mz` are the rows of the
    /// camera→XYZ matrix divided by the white's X, Y, Z.
    @inlinable static func labStandardDeviation(rgb: (Float, Float, Float), variance: (Float, Float, Float),
                                                mx: [Float], my: [Float], mz: [Float]) -> Float {
        let tx = mx[0] * rgb.0 + mx[1] * rgb.1 + mx[2] * rgb.2
        let ty = my[0] * rgb.0 + my[1] * rgb.1 + my[2] * rgb.2
        let tz = mz[0] * rgb.0 + mz[1] * rgb.1 + mz[2] * rgb.2
        let gx = labSlope(tx), gy = labSlope(ty), gz = labSlope(tz)
        // Σ_c var_c · |∂Lab/∂rgb_c|², column by column (no per-pixel allocation).
        @inline(__always) func column(_ c: Int) -> Float {
            let dL = 116 * gy * my[c]
            let da = 500 * (gx * mx[c] - gy * my[c])
            let db = 200 * (gy * my[c] - gz * mz[c])
            return dL * dL + da * da + db * db
        }
        let total = variance.0 * column(0) + variance.1 * column(1) + variance.2 * column(2)
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
