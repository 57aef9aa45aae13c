import Dispatch

/// How much blurrier the registered ambient frame is than the flash frame, per axis, measured on
/// their edges; `IlluminationEdgeRatio` blurs `F′` as much before its regression (hand shake during
/// the long ambient exposure makes its penumbrae wider than the flash frame's, and the regression
/// of F′'s bend on A's then overshoots: r₀ +1.4 % for a 4-pixel shake at 600 × 400).
///
/// Across any edge — of reflectance or of the ambient light — the flash frame holds `X·S` locally,
/// with `S` the sharp ambient image and `X` a constant (`Q = F/A` across a reflectance edge, `r₀`
/// across a shadow's), while `A = H∗S`. A 3-tap blur `[a, 1 − 2a, a]` (variance 2a) is exactly
/// `S + a·∂²S`, so to first order `F′ = X·A − X·a·∂²A` along a profile: the coefficient of `∂²A`
/// over that of `A` is −a, whatever X. Fitted per profile and channel after smoothing both frames
/// along it and removing the profile's line, with the normal equations corrected for `A`'s noise
/// (errors in variables, Fuller 1987, "Measurement Error Models", §1.2), and combined over the frame
/// by a weighted median and Tukey's biweight (Beaton & Tukey 1974). Profiles run along an axis only
/// where the ambient change along it is at least twice the change across it.
///
/// An edge that is sharper than a block of the reduced image shows the blur by where it falls in
/// the block: a one-block box blur moves 1/8 of a step on a block boundary into each neighbour
/// (a = 0.125) and nothing of a step through a block's middle, 0.042 on average over positions.
/// Photographs put edges at every position, but a chart or a page square to the sensor puts them
/// all at one: the measurement is made on the pair sampled on two grids half a block apart
/// (`ReducedFramePair.halved(offset:)`) and the two are averaged (on a 600 × 400 pair whose chart
/// edges sit on block boundaries, 0.10 and 0.01, mean 0.055 against a true 0.047).
enum RelativeBlur {
    /// The measured blur: per axis, a of `[a, 1 − 2a, a]` in the reduced image's pixels, its
    /// standard error and the number of profile samples; nil on an axis with too few.
    struct Result { var a: Double, standardError: Double, sampleCount: Int }

    /// Half-length of a profile (11 pixels).
    static let reach = 5
    /// Fewest profile samples per axis for a measurement (a profile gives one per channel that
    /// passes the signal test).
    static let minimumSamples = 60

    /// The binomial smoothing of order 8 (variance 2 pixels²) applied along a profile to both
    /// frames before the fit, so that every edge is gentle enough for the first-order model (in a
    /// 1-D simulation of box-blurred steps at random positions, a comes out 10–20 % high with it
    /// and 40–60 % high with order 4).
    static let smoothing: [Double] = [1, 8, 28, 56, 70, 56, 28, 8, 1].map { $0 / 256 }

    /// A profile's regressors from `2·reach + 3 + 2·(smoothing.count / 2)` raw samples of A, as
    /// `measure` builds them: the smoothed samples at s = −reach − 1 … reach + 1, the centre ones
    /// detrended (r₁) and their detrended second differences (r₂); also the centre smoothed samples.
    static func regressors(raw: [Double]) -> (r1: [Double], r2: [Double], smooth: [Double]) {
        let n = 2 * reach + 1, g = smoothing
        var sm = [Double](repeating: 0, count: n + 2)
        for i in 0..<(n + 2) { for q in 0..<g.count { sm[i] += g[q] * raw[i + q] } }
        var r1 = Array(sm[1...n]), r2 = [Double](repeating: 0, count: n)
        for i in 0..<n { r2[i] = sm[i] - 2 * sm[i + 1] + sm[i + 2] }
        let centre = r1
        IlluminationEdgeRatio.detrended(&r1); IlluminationEdgeRatio.detrended(&r2)
        return (r1, r2, centre)
    }

    /// The regressors' responses to a unit impulse at each raw sample: white noise of unit variance
    /// is their sum with independent unit weights, so its second moments are sums of products.
    static let impulseResponses: [(r1: [Double], r2: [Double], smooth: [Double])] = {
        let m = 2 * reach + 3 + 2 * (smoothing.count / 2)
        return (0..<m).map { q in
            var raw = [Double](repeating: 0, count: m); raw[q] = 1
            return regressors(raw: raw)
        }
    }()

    /// Noise terms of the normal equations for A's pixel noise σ² = 1: the expected ⟨n₁,n₁⟩,
    /// ⟨n₁,n₂⟩, ⟨n₂,n₂⟩ of the smoothed, detrended profile (n₁) and its detrended second difference (n₂).
    static let noiseTerms: (Double, Double, Double) = {
        var n11 = 0.0, n12 = 0.0, n22 = 0.0
        for e in impulseResponses {
            for i in e.r1.indices { n11 += e.r1[i] * e.r1[i]; n12 += e.r1[i] * e.r2[i]; n22 += e.r2[i] * e.r2[i] }
        }
        return (n11, n12, n22)
    }()

    /// The correlation of white noise of unit variance after `smoothing`, between the profile's
    /// samples (n × n, row-major): `C[i][k] = Σ_q g[q]·g[q + k − i]`.
    static let smoothedNoiseCorrelation: [Double] = {
        let n = 2 * reach + 1
        var c = [Double](repeating: 0, count: n * n)
        for e in impulseResponses {
            for i in 0..<n { for k in 0..<n { c[i * n + k] += e.smooth[i] * e.smooth[k] } }
        }
        return c
    }()

    /// Measures a per axis, in the pairs' pixels, as the mean over the pairs (the same frame on
    /// shifted grids, each with its banding-free flash channels `ReducedFramePair.bandingFree`) of
    /// each one's measurement; nil on an axis where one of them has too few profiles.
    static func measure(_ pairs: [(pair: ReducedFramePair, fPrime: [[Double]])]) -> (x: Result?, y: Result?) {
        // The pairs are independent: one per core.
        var each = [(x: Result?, y: Result?)](repeating: (nil, nil), count: pairs.count)
        each.withUnsafeMutableBufferPointer { buffer in
            let out = SharedMutableBuffer(buffer)
            DispatchQueue.concurrentPerform(iterations: pairs.count) { i in
                out[i] = measure(pairs[i].pair, fPrime: pairs[i].fPrime)
            }
        }
        func mean(_ r: [Result?]) -> Result? {
            let found = r.compactMap { $0 }
            guard found.count == r.count, !found.isEmpty else { return nil }
            // The phases sample the same pixels: their standard errors and counts are not
            // independent ones, so they are averaged, not combined.
            let n = Double(found.count)
            return Result(a: found.reduce(0) { $0 + $1.a } / n,
                          standardError: found.reduce(0) { $0 + $1.standardError } / n,
                          sampleCount: found.reduce(0) { $0 + $1.sampleCount } / found.count)
        }
        return (mean(each.map(\.x)), mean(each.map(\.y)))
    }

    /// Measures a per axis (x, then y) from one reduced pair and its banding-free flash channels.
    static func measure(_ p: ReducedFramePair, fPrime: [[Double]]) -> (x: Result?, y: Result?) {
        let w = p.width, h = p.height, n = 2 * reach + 1, g = smoothing, gr = g.count / 2
        let outer = reach + 1 + gr, margin = outer + 1
        guard w > 2 * margin, h > 2 * margin else { return (nil, nil) }
        let (n11, n12, n22) = noiseTerms
        let correlation = smoothedNoiseCorrelation
        var results: [Result?] = []
        var r1 = [Double](repeating: 0, count: n), r2 = r1, fy = r1
        var smoothA = [Double](repeating: 0, count: n + 2)
        for horizontal in [true, false] {
            let stride = horizontal ? 1 : w, across = horizontal ? w : 1
            var samples: [(a: Double, sigma: Double)] = []
            // Both frames smoothed along this axis once (where the whole kernel is inside the image).
            func smoothed(_ v: [Double]) -> [Double] {
                var out = [Double](repeating: 0, count: w * h)
                let (lo, hi) = horizontal ? (SIMD2(gr, 0), SIMD2(w - gr, h)) : (SIMD2(0, gr), SIMD2(w, h - gr))
                for y in lo.y..<hi.y {
                    for x in lo.x..<hi.x {
                        let j = y * w + x
                        var sum = 0.0
                        for q in 0..<g.count { sum += g[q] * v[j + (q - gr) * stride] }
                        out[j] = sum
                    }
                }
                return out
            }
            let smoothAmbient = p.ambientChannels.map(smoothed), smoothFlash = fPrime.map(smoothed)
            for y in margin..<(h - margin) {
                for x in margin..<(w - margin) {
                    let j = y * w + x
                    let along = abs(p.ambient[j + stride] - p.ambient[j - stride])
                    guard along >= 2 * abs(p.ambient[j + across] - p.ambient[j - across]) else { continue }
                    var ok = true
                    for k in -outer...outer where !p.valid[j + k * stride] { ok = false; break }
                    guard ok else { continue }
                    for c in 0..<3 {
                        let a = p.ambientChannels[c], sa = smoothAmbient[c], sf = smoothFlash[c]
                        // Smoothed A at s = −reach − 1 … reach + 1 and smoothed F′ at s = −reach … reach.
                        for i in 0..<(n + 2) { smoothA[i] = sa[j + (i - reach - 1) * stride] }
                        for i in 0..<n {
                            fy[i] = sf[j + (i - reach) * stride]
                            r1[i] = smoothA[i + 1]
                            r2[i] = smoothA[i] - 2 * smoothA[i + 1] + smoothA[i + 2]
                        }
                        IlluminationEdgeRatio.detrended(&r1); IlluminationEdgeRatio.detrended(&r2)
                        var s11 = 0.0, s12 = 0.0, s22 = 0.0, b1 = 0.0, b2 = 0.0
                        for i in 0..<n {
                            s11 += r1[i] * r1[i]; s12 += r1[i] * r2[i]; s22 += r2[i] * r2[i]
                            b1 += r1[i] * fy[i]; b2 += r2[i] * fy[i]
                        }
                        let va = p.ambientChannelVariance[c][j], vf = p.flashChannelVariance[c][j]
                        guard s11 > 20 * n11 * va, s11 > 1e-4 * a[j] * a[j] else { continue }
                        let m11 = s11 - n11 * va, m12 = s12 - n12 * va, m22 = s22 - n22 * va
                        let det = m11 * m22 - m12 * m12
                        guard m22 > 0, det > 0.05 * m11 * m22 else { continue }
                        let c1 = (m22 * b1 - m12 * b2) / det, c2 = (m11 * b2 - m12 * b1) / det
                        guard c1 > 0 else { continue }
                        let est = -c2 / c1
                        // Cov(c) = s²·M⁻¹·(Xᵀ C X)·M⁻¹: s² the residual's noise per raw sample (F′'s
                        // and, through c₁, A's), C the correlation the smoothing gives it; then the
                        // delta method for −c₂/c₁.
                        var q11 = 0.0, q12 = 0.0, q22 = 0.0
                        for i in 0..<n {
                            var u1 = 0.0, u2 = 0.0
                            for k in 0..<n { u1 += correlation[i * n + k] * r1[k]; u2 += correlation[i * n + k] * r2[k] }
                            q11 += r1[i] * u1; q12 += r1[i] * u2; q22 += r2[i] * u2
                        }
                        let p11 = (m22 * q11 - m12 * q12) / det, p12 = (m22 * q12 - m12 * q22) / det
                        let p21 = (m11 * q12 - m12 * q11) / det, p22 = (m11 * q22 - m12 * q12) / det
                        let s2 = vf + c1 * c1 * va
                        let v1 = s2 * (p11 * m22 - p12 * m12) / det, v12 = s2 * (p12 * m11 - p11 * m12) / det
                        let v2 = s2 * (p22 * m11 - p21 * m12) / det
                        let variance = (v2 + est * est * v1 + 2 * est * v12) / (c1 * c1)
                        guard variance > 0, abs(est) < 1 else { continue }
                        samples.append((est, variance.squareRoot()))
                    }
                }
            }
            results.append(combine(samples))
        }
        return (results[0], results[1])
    }

    /// The robust mean of the profiles' a (`TukeyBiweight.location`); nil with fewer than
    /// `minimumSamples` in its support.
    static func combine(_ samples: [(a: Double, sigma: Double)]) -> Result? {
        guard samples.count >= minimumSamples,
              let l = TukeyBiweight.location(samples.map { ($0.a, $0.sigma) }, iterations: 20, tolerance: 1e-7),
              l.count >= minimumSamples else { return nil }
        return Result(a: l.centre, standardError: l.standardError, sampleCount: l.count)
    }
}
