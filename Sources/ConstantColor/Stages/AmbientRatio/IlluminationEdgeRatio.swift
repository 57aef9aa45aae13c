import Foundation

/// The exposure ratio `r₀` of `AmbientRatioEstimate`, measured on edges of the ambient light.
///
/// With `F′ = F − Δ(y)·A` (banding removed) `= D + r₀·A`: across an edge of the ambient light alone
/// (a shadow's penumbra) the surface does not change and the flash changes only smoothly (its
/// fall-off), so along a short profile across the edge `F′(s) = α + β·s + r₀·A(s)`; across a
/// reflectance edge `F′` follows `A` with the factor `Q = F′/A` instead (Tappen, Freeman & Adelson
/// 2005 tell shading from reflectance derivatives the same way). Each pixel gives, per channel, the
/// regression coefficient g of F′ on A along an 11-pixel profile on the axis of A's larger change,
/// after removing each profile's least-squares line (which takes the fall-off's gradient). An
/// illumination edge gives the same g in every channel, even under coloured shadows; a reflectance
/// edge gives each channel its own `D_c/A_c` — the channels must agree (χ², 99 %). Illumination edges
/// pile up at one value below Q; the selection and robust mean are in `measure`. The standard error
/// counts neighbouring profiles as correlated (a factor 2) and grows with the scatter beyond the
/// noise. Measured on the pair halved once more (`ReducedFramePair.halved`), with a margin.
enum IlluminationEdgeRatio {
    /// The measured ratio.
    struct Result { var ratio: Double, standardError: Double, sampleCount: Int }

    /// Fewest profiles in the final selection for a measurement.
    static let minimumSamples = 40
    /// The search range of r₀ (EXIF is not off by more than ±40 %).
    static let range = 0.6...1.4

    /// Removes the least-squares line from a profile sampled at s = −reach…reach, in place.
    static func detrended(_ v: inout [Double]) {
        let n = v.count, reach = n / 2
        var mean = 0.0, slope = 0.0, ss = 0.0
        for i in 0..<n { let t = Double(i - reach); mean += v[i]; slope += t * v[i]; ss += t * t }
        mean /= Double(n); slope /= ss
        for i in 0..<n { v[i] -= mean + slope * Double(i - reach) }
    }

    /// `interpolationVariance`: per axis, the full-resolution pixels² by which resampling blurred
    /// `A` (`AmbientRatioEstimate.interpolationVariance`); F′ is blurred as much before the fit, or
    /// the bend of A's penumbrae would look smaller than F′'s and r₀ come out high (≈ 1 % at half-pixel shifts).
    static func measure(_ p: ReducedFramePair, banding: [RowBanding], interpolationVariance: SIMD2<Double>) -> Result? {
        let w = p.width, h = p.height
        guard w >= 5, h >= 5 else { return nil }
        var samples: [(g: Double, sigma: Double, q: Double)] = []
        // F′ = F − Δ(y)·A per channel and summed.
        var fPrime = [[Double]](repeating: [Double](repeating: 0, count: w * h), count: 3)
        var fPrimeSum = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            let t = p.frameFraction(row: y)
            let delta = banding.reduce(0) { $0 + $1.value(atFrameFraction: t) }
            for x in 0..<w {
                let j = y * w + x
                for c in 0..<3 { fPrime[c][j] = p.flashChannels[c][j] - delta * p.ambientChannels[c][j] }
                fPrimeSum[j] = p.flash[j] - delta * p.ambient[j]
            }
        }
        // Blur F′ by [a, 1 − 2a, a] per axis, a = variance/2 in this image's pixels.
        let k2 = Double(p.block * p.block)
        let ax = min(0.25, interpolationVariance.x / k2 / 2), ay = min(0.25, interpolationVariance.y / k2 / 2)
        for c in 0..<3 {
            var f = fPrime[c]
            for y in 0..<h {
                for x in 1..<(w - 1) {
                    let j = y * w + x
                    f[j] = ax * fPrime[c][j - 1] + (1 - 2 * ax) * fPrime[c][j] + ax * fPrime[c][j + 1]
                }
            }
            var g = f
            for y in 1..<(h - 1) {
                for x in 0..<w {
                    let j = y * w + x
                    g[j] = ay * f[j - w] + (1 - 2 * ay) * f[j] + ay * f[j + w]
                }
            }
            fPrime[c] = g
        }
        // Profiles of 2·reach + 1 pixels, a margin of two more: the registered ambient frame's
        // border is interpolated.
        let reach = 5, margin = reach + 2
        var fp = [Double](repeating: 0, count: 2 * reach + 1), ap = fp
        for y in margin..<max(margin, h - margin) {
            for x in margin..<max(margin, w - margin) {
                let j = y * w + x
                guard p.valid[j], p.ambient[j] > 0 else { continue }
                // The profile runs along the axis of the larger ambient change.
                let horizontal = abs(p.ambient[j + 1] - p.ambient[j - 1]) >= abs(p.ambient[j + w] - p.ambient[j - w])
                let stride = horizontal ? 1 : w
                var allValid = true
                for k in -reach...reach where !p.valid[j + k * stride] { allValid = false }
                guard allValid else { continue }
                // Per channel: fit F′(s) = α + β·s + g·A(s) along the profile. The line α + β·s takes
                // the flash's smooth fall-off (∇D ≠ 0 even across a shadow edge); g is carried by
                // the part of A that is not a line (the penumbra's bend).
                var sw = 0.0, swg = 0.0, gs = SIMD3<Double>(), ws = SIMD3<Double>(), used = 0
                for c in 0..<3 {
                    let a = p.ambientChannels[c], f = fPrime[c]
                    for k in -reach...reach { ap[k + reach] = a[j + k * stride]; fp[k + reach] = f[j + k * stride] }
                    Self.detrended(&ap); Self.detrended(&fp)
                    var aa = 0.0, fa = 0.0
                    for i in ap.indices { aa += ap[i] * ap[i]; fa += fp[i] * ap[i] }
                    // Noise in A inflates Σà² by (n − 2)·σ²_A (two degrees of freedom go to the line) and
                    // would pull g toward 0 (errors in variables): it is subtracted, and only profiles
                    // whose bend is at least ten times that noise are used.
                    let va = p.ambientChannelVariance[c][j], vf = p.flashChannelVariance[c][j]
                    let noise = Double(2 * reach - 1) * va
                    guard aa > 10 * noise, aa > 1e-4 * a[j] * a[j] else { continue }
                    let signal = aa - noise
                    let g = fa / signal
                    let sigma = max(1e-4, ((vf + g * g * va) / signal).squareRoot())
                    gs[c] = g; ws[c] = 1 / (sigma * sigma); sw += ws[c]; swg += ws[c] * g; used += 1
                }
                guard used >= 2 else { continue }
                let g = swg / sw, sigma = 1 / sw.squareRoot()
                // Across an illumination edge every channel gives the same g (= r₀); across a
                // reflectance edge each its own D_c/A_c. χ² of the channels' agreement, 99 % level.
                var chi = 0.0
                for c in 0..<3 where ws[c] > 0 { chi += ws[c] * (gs[c] - g) * (gs[c] - g) }
                let q = fPrimeSum[j] / p.ambient[j]
                guard chi < (used == 3 ? 9.21 : 6.63), range.contains(g) else { continue }
                samples.append((g, sigma, q))
            }
        }
        // Illumination edges sit at g = r₀ < Q; reflectance edges near g ≈ Q. A gradient counts
        // when its noise is small against that gap (σ < 0.2·(Q − r)) and it is nearer r than Q
        // (g < r + 0.4·(Q − r)): the selection then cuts the illumination cluster no closer than
        // 2σ from its centre. Starting from EXIF (r = 1): a weighted median, then Tukey's biweight
        // (Beaton & Tukey 1974) around it, re-selecting with each new r.
        var r = 1.0
        var result: Result? = nil
        for _ in 0..<12 {
            let chosen = samples.filter { $0.sigma < 0.2 * ($0.q - r) && $0.g < r + 0.4 * ($0.q - r) }
            guard chosen.count >= minimumSamples else { return nil }
            let sorted = chosen.sorted { $0.g < $1.g }
            let total = sorted.reduce(0) { $0 + 1 / ($1.sigma * $1.sigma) }
            var acc = 0.0, median = sorted[0].g
            for s in sorted {
                acc += 1 / (s.sigma * s.sigma)
                if acc >= total / 2 { median = s.g; break }
            }
            var centre = median
            var sw = 0.0, n = 0, chi = 0.0
            for _ in 0..<10 {
                var swg = 0.0
                sw = 0; n = 0; chi = 0
                for s in chosen {
                    let u = (s.g - centre) / (4.685 * s.sigma)
                    guard abs(u) < 1 else { continue }
                    let wgt = (1 - u * u) * (1 - u * u) / (s.sigma * s.sigma)
                    sw += wgt; swg += wgt * s.g; n += 1
                    chi += (s.g - centre) * (s.g - centre) / (s.sigma * s.sigma)
                }
                guard sw > 0 else { return nil }
                let next = swg / sw
                if abs(next - centre) < 1e-6 { centre = next; break }
                centre = next
            }
            guard n >= minimumSamples else { return nil }
            let inflation = max(1, chi / Double(max(1, n - 1))).squareRoot()
            result = Result(ratio: centre, standardError: 2 * inflation / sw.squareRoot(), sampleCount: n)
            if abs(centre - r) < 1e-5 { break }
            r = centre
        }
        return result
    }
}
