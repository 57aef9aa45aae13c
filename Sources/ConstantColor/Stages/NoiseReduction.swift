/// Stage 4b of the pipeline: edge-aware noise reduction of the dark-room estimate, guided by the
/// flash frame, with the uncertainty of the result propagated so that confidence stays honest.
///
/// The flash frame has more signal than `D = F − A` and shows where the scene's edges are
/// (flash/no-flash denoising: Petschnigg et al., SIGGRAPH 2004; Eisemann & Durand, SIGGRAPH 2004).
/// Each channel `D_c` is filtered with the guided filter (He, Sun & Tang, IEEE TPAMI 35(6), 2013),
/// a local linear model `D_c ≈ a_c·I + b_c` fitted in every window, with one guide for all three
/// channels, `I = F_r + F_g + F_b`, computed on `s × s`-averaged images with the coefficients
/// upsampled bilinearly (fast guided filter, He & Sun, arXiv:1505.00996, 2015).
///
/// Why one guide: the flash fall-off is common to the channels, so `a_c·I` follows it and the
/// guide's own pixel noise passes into the result as `ā_c·δI` — the same `δI` in every channel, an
/// error along the pixel's own colour that moves lightness, not chroma. It is kept apart from the
/// independent noise (`DarkRoomEstimate.guideGain`) so that `Confidence` propagates it as the
/// correlated error it is.
///
/// Measurement, not look:
/// - ε is `regularization` × the averaged guide's noise variance (from the flash frame's noise
///   model), and the covariance of the guide's noise with `D_c`'s noise (`Cov(δI, δD_c) = Var(δF_c)`)
///   is removed from the window covariance, so windows of pure noise give `a ≈ 0`;
/// - each window's variance is `v̄/|ω|·(1+ρ)² + excess`: `v̄` the mean noise variance of the averaged
///   `D_c`, `ρ = σ_I²/(σ_I²+ε)` for the noise of the fitted slope, and `excess` the part of the window's
///   residual about its linear model that noise does not explain (junctions of several materials,
///   colour edges without a lightness edge, local motion, misregistration, unmodelled noise): it is
///   counted as uncertainty, not hidden. This is also the pipeline's mismatch detector: where `D` has
///   structure that the flash frame does not explain, the frames disagree;
/// - the windows covering a pixel are combined with inverse-variance weights (so a pixel inside a
///   patch takes its model from the windows that do not straddle an edge) and its standard deviation
///   is the same weighted mean of the windows' standard deviations — no credit for averaging
///   correlated windows;
/// - finally each pixel's filtered value is checked against its own unfiltered value: where they
///   differ by more than 2 (fully by 3) standard deviations the model has missed that pixel (a thin
///   or mixed edge pixel, a colour edge the guide barely shows) and the unfiltered value and variance
///   take over.
public struct NoiseReduction: Sendable {
    /// Window radius in averaged (`subsampling`) pixels.
    public var radius: Int = 3
    /// Side of the averaging block of the fast guided filter.
    public var subsampling: Int = 2
    /// ε in units of the averaged guide's noise variance.
    public var regularization: Float = 4

    /// Default settings: 2×2 averaging, 7×7 windows (a 14-pixel support), ε = 4 noise variances.
    public init() {}

    /// Filters `estimate.difference` in place, replaces `estimate.variance` with the independent
    /// variance of the filtered values and sets `estimate.guideGain` to `ā_c`. `flash` is the
    /// normalized flash frame the estimate was made from.
    public func apply(to estimate: inout DarkRoomEstimate, flash: LinearFrame) {
        let w = estimate.difference.width, h = estimate.difference.height, n = w * h
        precondition(flash.image.width == w && flash.image.height == h)
        let s = max(1, subsampling), r = max(0, radius)
        let lw = (w + s - 1) / s, lh = (h + s - 1) / s, ln = lw * lh
        // Low-resolution working planes: 0 mean I, 1 mean I², 2 count, 3…7 per channel, 8…12 window means, 13 scratch.
        var planes = [Float](repeating: 0, count: 14 * ln)
        var gain = PlanarImage(width: w, height: h, channelCount: 3)
        let noise = flash.noise
        let kappa = regularization
        planes.withUnsafeMutableBufferPointer { lowBuffer in
        gain.samples.withUnsafeMutableBufferPointer { gBuffer in
        estimate.difference.samples.withUnsafeMutableBufferPointer { dBuffer in
        estimate.variance.samples.withUnsafeMutableBufferPointer { vBuffer in
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
            let low = SharedMutableBuffer(lowBuffer), g = SharedMutableBuffer(gBuffer)
            func plane(_ k: Int) -> UnsafeMutableBufferPointer<Float> {
                UnsafeMutableBufferPointer(start: low.base + k * ln, count: ln)
            }
            func box(_ from: Int, _ to: Int) {
                BoxFilter.mean(UnsafeBufferPointer(plane(from)), width: lw, height: lh, radius: r,
                               into: plane(to), scratch: plane(13))
            }
            let d = SharedMutableBuffer(dBuffer), v = SharedMutableBuffer(vBuffer)
            let f = UncheckedSendableBox(fBuffer)
            // Block index ranges of low-res sample (X, Y).
            @inline(__always) func blockRows(_ Y: Int) -> Range<Int> { (Y * s)..<min(h, Y * s + s) }
            @inline(__always) func blockColumns(_ X: Int) -> Range<Int> { (X * s)..<min(w, X * s + s) }
            // 1. The guide I = F_r + F_g + F_b, block-averaged, and its window statistics.
            forEachRowBand(rowCount: lh) { rows in
                for Y in rows {
                    for X in 0..<lw {
                        var sum: Float = 0, count: Float = 0
                        for y in blockRows(Y) {
                            for x in blockColumns(X) {
                                let i = y * w + x
                                sum += f.value[i] + f.value[n + i] + f.value[2 * n + i]; count += 1
                            }
                        }
                        let k = Y * lw + X, gI = sum / count
                        low[8 * ln + k] = gI; low[9 * ln + k] = gI * gI; low[2 * ln + k] = count
                    }
                }
            }
            box(8, 0); box(9, 1)
            for c in 0..<3 {
                let o = c * n
                // 2. Block averages of D_c, of its noise variance, of F_c, and the products.
                forEachRowBand(rowCount: lh) { rows in
                    for Y in rows {
                        for X in 0..<lw {
                            var sI: Float = 0, sP: Float = 0, sV: Float = 0, sF: Float = 0
                            for y in blockRows(Y) {
                                for x in blockColumns(X) {
                                    let i = y * w + x
                                    let fc = f.value[o + i]
                                    sI += f.value[i] + f.value[n + i] + f.value[2 * n + i]
                                    sP += d[o + i]; sV += v[o + i]; sF += fc
                                }
                            }
                            let k = Y * lw + X, count = low[2 * ln + k]
                            let gI = sI / count, gP = sP / count
                            low[3 * ln + k] = gP; low[4 * ln + k] = sV / (count * count); low[5 * ln + k] = sF / count
                            low[6 * ln + k] = gI * gP; low[7 * ln + k] = gP * gP
                        }
                    }
                }
                box(3, 8); box(4, 9); box(5, 10); box(6, 11); box(7, 12)
                // 3. Per window: the local linear model and the variance it leaves.
                forEachRowBand(rowCount: lh) { rows in
                    for Y in rows {
                        let windowRows = Float(min(lh - 1, Y + r) - max(0, Y - r) + 1)
                        for X in 0..<lw {
                            let k = Y * lw + X
                            let mu = low[k], pBar = low[8 * ln + k], vBar = low[9 * ln + k], fBar = low[10 * ln + k]
                            let count = low[2 * ln + k]
                            let varI = max(0, low[ln + k] - mu * mu)
                            // Noise variances of the averaged guide and of its channel c (shot noise follows the mean).
                            let guideNoise = (3 * noise.varianceOffset + noise.varianceSlope * max(0, mu)) / count
                            let sharedNoise = noise.variance(fBar) / count
                            let epsilon = kappa * guideNoise + Float.leastNormalMagnitude
                            let covariance = low[11 * ln + k] - mu * pBar
                            let varP = max(0, low[12 * ln + k] - pBar * pBar)
                            // Ridge toward the proportional model a₀ = p̄/μ (D_c ∝ I: one material under
                            // flash fall-off), with the guide's noise removed from both moments.
                            let a0: Float = mu > 0 ? max(0, pBar / mu) : 0
                            let signalVarI = max(0, varI - guideNoise)
                            let a = (covariance - sharedNoise + epsilon * a0) / (signalVarI + epsilon)
                            let rho = signalVarI / (signalVarI + epsilon)
                            // Residual of p about a·I + b in the window (ridge regression) minus what noise
                            // explains, less one standard deviation of that estimate (≈ v̄·√(2/|ω|)) so that
                            // the estimate's own noise is not counted as misfit.
                            let residual = max(0, varP - 2 * a * covariance + a * a * varI)
                            let windowCount = windowRows * Float(min(lw - 1, X + r) - max(0, X - r) + 1)
                            let excess = max(0, residual - vBar * (1 + (2 / windowCount).squareRoot()))
                            let onePlusRho = 1 + rho
                            let windowVariance = vBar / windowCount * onePlusRho * onePlusRho + excess
                            // Inverse-variance weight of this window's model (edge-aware aggregation).
                            let weight = 1 / max(windowVariance, Float.leastNormalMagnitude)
                            low[3 * ln + k] = weight * a
                            low[4 * ln + k] = weight * (pBar - a * mu)
                            low[5 * ln + k] = weight * windowVariance.squareRoot()
                            low[6 * ln + k] = weight
                        }
                    }
                }
                // 4. Weighted mean over the windows that contain each sample: ā = Σw·a / Σw, likewise b̄,
                // and the standard deviation Σw·sd / Σw (the windows' errors are correlated: no √N credit).
                box(3, 8); box(4, 9); box(5, 10); box(6, 11)
                // 5. Full resolution: q = ā·I + b̄ with the independent variance; ā kept for the guide's noise.
                let scale = 1 / Float(s)
                forEachRowBand(rowCount: h) { rows in
                    for y in rows {
                        let ly = min(Float(lh - 1), max(0, (Float(y) + 0.5) * scale - 0.5))
                        let y0 = min(Int(ly), max(0, lh - 2)), ty = ly - Float(y0)
                        let y1 = min(lh - 1, y0 + 1)
                        for x in 0..<w {
                            let lx = min(Float(lw - 1), max(0, (Float(x) + 0.5) * scale - 0.5))
                            let x0 = min(Int(lx), max(0, lw - 2)), tx = lx - Float(x0)
                            let x1 = min(lw - 1, x0 + 1)
                            let k00 = y0 * lw + x0, k10 = y0 * lw + x1, k01 = y1 * lw + x0, k11 = y1 * lw + x1
                            let w00 = (1 - tx) * (1 - ty), w10 = tx * (1 - ty), w01 = (1 - tx) * ty, w11 = tx * ty
                            @inline(__always) func sample(_ p: Int) -> Float {
                                w00 * low[p + k00] + w10 * low[p + k10] + w01 * low[p + k01] + w11 * low[p + k11]
                            }
                            let inverseWeight = 1 / sample(11 * ln)
                            let a = sample(8 * ln) * inverseWeight, b = sample(9 * ln) * inverseWeight
                            let sd = sample(10 * ln) * inverseWeight
                            let windowVariance = sd * sd
                            let i = y * w + x
                            let guide = f.value[i] + f.value[n + i] + f.value[2 * n + i]
                            let q = a * guide + b
                            // Per-pixel check of the model against this pixel's own measurement: a window's
                            // model can fit its window yet miss a pixel (a thin edge, a mixed pixel, a colour
                            // edge the guide barely shows). Where they disagree by 2…3 standard deviations,
                            // hand over to the unfiltered value and its variance.
                            let raw = d[o + i], rawVariance = v[o + i]
                            let guideVariance = 3 * noise.varianceOffset + noise.varianceSlope * max(0, guide)
                            let filteredVariance = windowVariance + a * a * guideVariance
                            let residual = raw - q
                            let z2 = residual * residual / max(rawVariance + filteredVariance, Float.leastNormalMagnitude)
                            let t = min(1, max(0, (z2 - 4) / 5))
                            let beta = t * t * (3 - 2 * t)
                            let keep = 1 - beta
                            d[o + i] = q + beta * residual
                            v[o + i] = keep * keep * windowVariance + beta * beta * rawVariance
                            g[o + i] = keep * a
                        }
                    }
                }
            }
        }}}}}
        estimate.guideGain = gain
    }
}
