/// Stage 6 of SPEC: how far each pixel's color can be trusted, in [0, 1] — computed in the same
/// pass that evaluates the noise-reduced estimate (`NoiseReduction`), because both need the same
/// per-pixel quantities.
///
/// `confidence = 1 / (1 + (σ/σ₀)²) · valid`, where σ is the standard deviation of the pixel's
/// rendered color in CIELAB units, propagated linearly through the white balance, the matrix and the
/// CIE 1976 L*a*b* formulas (CIE 15:2004 §8.2.1) from three independent sources:
/// - the independent noise of the filtered estimate (per channel, from the guided model's window
///   variances, or the raw noise model where the per-pixel check handed the pixel back);
/// - the flash guide's pixel noise `ā·δI`, one error shared by the channels;
/// - the error of an ambient-to-flash exposure ratio known only to a relative
///   `exposureRatioUncertainty` δ: the subtracted ambient `A = F − D` is off by `δ·A`. It is what makes
///   bright ambient light untrustworthy even where the noise is averaged away.
/// Where the frames disagree (local motion, failed registration) `D` has structure the flash frame
/// does not explain; the model's misfit is part of its variance, so σ grows there too.
/// σ₀ = 3 gives 0.8 at σ = 1.5 (a 3-ΔE error then has about 1 % probability) and 0.5 at σ = 3.
/// `valid` is 0 where either frame is clipped (dilated by one pixel to cover the interpolation
/// footprint and blooming) or the ambient frame has no sample, else 1.
public enum Confidence {
    /// σ₀ of the noise term, in CIELAB units.
    public static let noiseScaleDeltaE: Float = 3

    /// Default relative uncertainty of the ambient-to-flash exposure ratio taken from metadata:
    /// shutter times and gains of real cameras differ from their nominal values by a few percent.
    public static let defaultExposureRatioUncertainty: Float = 0.02

    /// Per-pixel uncertainty planes of the filtered estimate, for measurement and tests.
    public struct Uncertainty: Sendable {
        /// Independent noise variance of each channel of the filtered `D`, 3 planes.
        public var variance: PlanarImage
        /// Gain `ā_c` with which the flash guide's pixel noise `δ(F_r + F_g + F_b)` enters each channel.
        public var guideGain: PlanarImage
    }

    /// Replaces `estimate.difference` by its noise-reduced value (the guided `model`, checked pixel
    /// by pixel against the unfiltered value: where they differ by more than 2 — fully by 3 —
    /// standard deviations the model missed that pixel and the unfiltered value takes over) and
    /// returns the confidence map, one plane in flash-frame geometry. `flash` is the normalized flash
    /// frame `D` was made from. With `recordUncertainty`, the per-pixel variances are returned too.
    public static func filterAndMap(estimate: inout DarkRoomEstimate, model: GuidedModel, flash: LinearFrame,
                                    rendering: ColorRendering,
                                    exposureRatioUncertainty: Float = defaultExposureRatioUncertainty,
                                    recordUncertainty: Bool = false) -> (confidence: PlanarImage, uncertainty: Uncertainty?) {
        let w = estimate.difference.width, h = estimate.difference.height, n = w * h
        precondition(flash.image.pixelCount == n && model.width == w && model.height == h)
        let delta = exposureRatioUncertainty
        let xyz = rendering.matrix(to: .xyz), white = WhitePoint.d65XYZ
        // Rows of the camera→XYZ matrix divided by the white's X, Y, Z.
        let mx = SIMD3<Float>(xyz.rows[0].map { Float($0 / white.x) }),
            my = SIMD3<Float>(xyz.rows[1].map { Float($0) }),
            mz = SIMD3<Float>(xyz.rows[2].map { Float($0 / white.z) })
        let fn = flash.noise, flashNoise = estimate.flashNoise, ambientNoise = estimate.ambientNoise
        let flags = estimate.flags  // shared, not copied: only `difference` is written below
        var out = PlanarImage(width: w, height: h, channelCount: 1, uninitialized: ())
        let record = recordUncertainty
        var variance = PlanarImage(width: record ? w : 1, height: record ? h : 1, channelCount: 3)
        var gain = variance
        // Horizontal taps, once.
        let lw = model.lowWidth
        var x0 = [Int](repeating: 0, count: w), x1 = x0, tx = [Float](repeating: 0, count: w)
        for x in 0..<w { (x0[x], x1[x], tx[x]) = GuidedModel.taps(x, subsampling: model.subsampling, count: lw) }
        estimate.difference.samples.withUnsafeMutableBufferPointer { dBuffer in
        out.samples.withUnsafeMutableBufferPointer { oBuffer in
        variance.samples.withUnsafeMutableBufferPointer { vBuffer in
        gain.samples.withUnsafeMutableBufferPointer { gBuffer in
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
        flags.withUnsafeBufferPointer { flBuffer in
        model.planes.withUnsafeBufferPointer { mBuffer in
        x0.withUnsafeBufferPointer { x0Buffer in
        x1.withUnsafeBufferPointer { x1Buffer in
        tx.withUnsafeBufferPointer { txBuffer in
            let d = SharedMutableBuffer(dBuffer), o = SharedMutableBuffer(oBuffer)
            let vOut = SharedMutableBuffer(vBuffer), gOut = SharedMutableBuffer(gBuffer)
            let inputs = UncheckedSendableBox((fBuffer, flBuffer, mBuffer, x0Buffer, x1Buffer, txBuffer))
            forEachRowBand(rowCount: h) { rows in
                let (f, flags, planes, x0, x1, tx) = inputs.value
                let row = UnsafeMutablePointer<Float>.allocate(capacity: 10 * lw)
                defer { row.deallocate() }
                for y in rows {
                    model.verticalRow(y, into: row, planes: planes.baseAddress!)
                    let yUp = max(0, y - 1) * w, yDown = min(h - 1, y + 1) * w, yRow = y * w
                    for x in 0..<w {
                        let i = yRow + x
                        let l0 = x0[x], l1 = x1[x], t = tx[x]
                        @inline(__always) func sample(_ j: Int) -> Float {
                            let a = row[j * lw + l0]
                            return a + t * (row[j * lw + l1] - a)
                        }
                        let inverseWeight = 1 / sample(9)
                        let a = SIMD3(sample(0), sample(3), sample(6)) * inverseWeight
                        let b = SIMD3(sample(1), sample(4), sample(7)) * inverseWeight
                        let sd = SIMD3(sample(2), sample(5), sample(8)) * inverseWeight
                        let fc = SIMD3(f[i], f[n + i], f[2 * n + i])
                        let raw = SIMD3(d[i], d[n + i], d[2 * n + i])
                        let guide = fc.sum()
                        let guideVariance = 3 * fn.varianceOffset + fn.varianceSlope * max(0, guide)
                        // DarkRoomEstimate.variance(flash:difference:), for the three channels.
                        let ambient = fc - raw
                        let rawVariance = flashNoise.varianceOffset + ambientNoise.varianceOffset
                            + flashNoise.varianceSlope * fc.replacing(with: 0, where: fc .< 0)
                            + ambientNoise.varianceSlope * ambient.replacing(with: 0, where: ambient .< 0)
                        let q = a * guide + b
                        let windowVariance = sd * sd
                        let residual = raw - q
                        let z2 = residual * residual / (rawVariance + windowVariance + a * a * guideVariance)
                        let s = (z2 - 4) / 5
                        let tt = s.replacing(with: 0, where: s .< 0).replacing(with: 1, where: s .> 1)
                        let beta = tt * tt * (3 - 2 * tt)
                        let keep = 1 - beta
                        let value = q + beta * residual
                        let independent = keep * keep * windowVariance + beta * beta * rawVariance
                        let guideGain = keep * a
                        d[i] = value.x; d[n + i] = value.y; d[2 * n + i] = value.z
                        if record {
                            vOut[i] = independent.x; vOut[n + i] = independent.y; vOut[2 * n + i] = independent.z
                            gOut[i] = guideGain.x; gOut[n + i] = guideGain.y; gOut[2 * n + i] = guideGain.z
                        }
                        // Clipped or no ambient sample within one pixel: no information.
                        let xl = max(0, x - 1), xr = min(w - 1, x + 1)
                        let bad = flags[yUp + xl] | flags[yUp + x] | flags[yUp + xr]
                            | flags[yRow + xl] | flags[yRow + x] | flags[yRow + xr]
                            | flags[yDown + xl] | flags[yDown + x] | flags[yDown + xr]
                        if bad != 0 { o[i] = 0; continue }
                        let sigma = labStandardDeviation(
                            rgb: value, variance: independent, systematic: delta * (fc - raw),
                            guideNoise: guideGain * guideVariance.squareRoot(), mx: mx, my: my, mz: mz)
                        let qn = sigma / noiseScaleDeltaE
                        let c = 1 / (1 + qn * qn)
                        o[i] = c.isFinite ? min(1, max(0, c)) : 0
                    }
                }
            }
        }}}}}}}}}}
        return (out, record ? Uncertainty(variance: variance, guideGain: gain) : nil)
    }

    /// Cube roots of positive finite values: exponent-thirding first guess, then two Newton steps
    /// (relative error below 1e-5; σ needs no more, and libm's `cbrtf` was the hot loop's cost).
    @inline(__always) @usableFromInline static func fastCubeRoot(_ t: SIMD4<Float>) -> SIMD4<Float> {
        @inline(__always) func guess(_ v: Float) -> Float { Float(bitPattern: v.bitPattern / 3 &+ 709_921_077) }
        var y = SIMD4<Float>(guess(t.x), guess(t.y), guess(t.z), guess(t.w))
        let third = SIMD4<Float>(repeating: 1.0 / 3)
        for _ in 0..<2 {
            let y2: SIMD4<Float> = y * y
            let q: SIMD4<Float> = t / y2
            let twice: SIMD4<Float> = y + y
            y = (twice + q) * third
        }
        return y
    }

    /// Derivative of the CIELAB function f(t) (t^(1/3) above (6/29)³, linear below; CIE 15:2004),
    /// for X/Xn, Y/Yn, Z/Zn at once (the fourth lane is padding).
    @inline(__always) @usableFromInline static func labSlope(_ t: SIMD4<Float>) -> SIMD4<Float> {
        let t0: Float = 216.0 / 24389.0  // (6/29)³
        let c = fastCubeRoot(t.replacing(with: t0, where: .!(t .> t0)))  // NaN-safe: not above → t0
        let cube = 1 / (3 * c * c)
        return cube.replacing(with: 841.0 / 108.0, where: .!(t .> t0))  // 1 / (3 (6/29)²) below
    }

    /// Standard deviation (√ of the trace of the covariance) of L*, a*, b* for a pixel whose
    /// camera RGB has independent per-channel variances plus two independent, fully correlated error
    /// vectors (standard deviations) `systematic` and `guideNoise`; `mx, my, mz` are the rows of the
    /// camera→XYZ matrix divided by the white's X, Y, Z.
    @inline(__always) @usableFromInline
    static func labStandardDeviation(rgb: SIMD3<Float>, variance: SIMD3<Float>,
                                     systematic: SIMD3<Float> = .zero, guideNoise: SIMD3<Float> = .zero,
                                     mx: SIMD3<Float>, my: SIMD3<Float>, mz: SIMD3<Float>) -> Float {
        let g = labSlope(SIMD4((mx * rgb).sum(), (my * rgb).sum(), (mz * rgb).sum(), 1))
        let gx = g.x, gy = g.y, gz = g.z
        // Jacobian rows: ∂L*/∂rgb, ∂a*/∂rgb, ∂b*/∂rgb.
        let jL = 116 * gy * my, ja = 500 * (gx * mx - gy * my), jb = 200 * (gy * my - gz * mz)
        let independent = (variance * jL * jL).sum() + (variance * ja * ja).sum() + (variance * jb * jb).sum()
        @inline(__always) func squared(_ e: SIMD3<Float>) -> Float {
            let l = (jL * e).sum(), a = (ja * e).sum(), b = (jb * e).sum()
            return l * l + a * a + b * b
        }
        return (independent + squared(systematic) + squared(guideNoise)).squareRoot()
    }
}
