import Foundation

/// Flicker banding of the flash frame's ambient part (`AmbientRatioEstimate`). The flash frame is
/// `F = D + r(y)·A` (r = r₀·G_F/G_A, the frames' rolling-shutter row gains), so away from edges the
/// change over ±b rows of `F − r̄·A`, divided by the centre's A, is
/// `d = r(y + b) − r(y − b) + 2δ·P·γ + (r − r̄)·ΔA/A`, with `P = D/A` and γ = ∂log D/∂t, the
/// flash's fall-off (a polynomial in t and the column u, `columnTerms`), while the banding is the
/// same in every column; P's spread within rows (shadows, surfaces) tells them apart. r̄ is the
/// edges' r₀ (`AmbientRatioEstimate.estimate`, refitted while it moves), so the last term is the
/// banding times the ambient light's change, which `fit` takes out with its own estimate. The ambient light's own structure (a spot light's pool, a window's
/// gradient, the ambient frame's banding) is thereby taken out as it was measured, not modelled:
/// the change of `Q = F/A` that this fit read before holds `P·∂log A/∂t` instead, which only a
/// smooth ambient field fits; a green LED spot beside steady light was read as a 1.4-cycle banding
/// of 12 % (r₀ 11–16 % off, about 1 % stated, 3–6 % of the confident pixels more than 3 ΔE00 off).
/// Each pixel's `d` is regressed on `P·γ(t, u)` and the banding by weighted least
/// squares (weights from the noise models, Tukey's biweight against misfits, Beaton & Tukey 1974).
/// Two spans are used: b = 1 row (every frequency up to one cycle per six rows) and b = height/40
/// (less noise for the slow mains banding). The change of a sinusoid `a·cos 2πνt + b·sin 2πνt`
/// over ±δ is `2 sin(2πνδ)·(−a sin 2πνt + b cos 2πνt)`, exactly; components (at least
/// `resolution` apart) are added one at a time (frequency scanned from 0.8 cycles per frame to one
/// cycle per 6 rows, at most `highestCycles`, then refined by golden-section search) while an F-test against the model
/// without it exceeds `fTestThreshold` (Fisher's F with 2 and n − p degrees of freedom; 25 is far
/// beyond the 10⁻⁵ level even after the scan's many trials). In t, the coarse scan uses a line γ,
/// the refinement, test and final fit a cubic one (`slopeTerms`, `smoothTerms`; the column terms
/// are in both): at megapixel sizes the rows are so
/// precise that the line's misfit to a real fall-off would otherwise pass as banding (issue 7:
/// 1.4–1.5 cycles, 0.5 %) or bend a real component's frequency.
struct RowBandingFit {
    /// The components kept.
    var components: [RowBanding]
    /// Variance of the fitted banding from its parameters' uncertainty (mean over the frame).
    var relativeVariance: Double

    /// The share of the rows (groups: a row and span) whose pixels the fit's robust weights mostly
    /// threw out (their noise weight kept under half): a banding that jumps puts all of a row's pixels
    /// there at once, a surface's edge some of them (`fit`'s second look).
    var discardedRowShare = 0.0

    /// No banding.
    static let none = RowBandingFit(components: [], relativeVariance: 0)

    /// How much banding the fit found: the sum of its components' squared amplitudes (twice the
    /// banding's variance over the frame, in units of r²; 0 without components).
    var bandingPower: Double { components.reduce(0) { $0 + $1.amplitude * $1.amplitude } }

    /// How clearly the fit measured its banding: `bandingPower` over the variance its parameters'
    /// uncertainty leaves (`relativeVariance`), a signal-to-noise ratio; 0 without components. It
    /// chooses between the fits of the two readout axes (`AmbientRatioEstimate.estimate`): a real
    /// flicker is measured to a few parts in 10⁵ of its power, while a trend that the other axis's
    /// fit reads into what the fall-off model misses carries a thousand times the variance.
    var bandingSignificance: Double {
        guard !components.isEmpty else { return 0 }
        return relativeVariance > 0 ? bandingPower / relativeVariance : .infinity
    }

    /// Most components fitted (mains flicker, its PWM beat, one more).
    static let maximumComponents = 3
    /// F statistic a component must exceed.
    static let fTestThreshold = 25.0
    /// Smallest amplitude worth removing, in units of r.
    static let minimumAmplitude = 0.002
    /// Lowest frequency tried, cycles per frame (below it a sinusoid is a trend).
    static let lowestCycles = 0.8
    /// Highest frequency tried, cycles per frame: one cycle per six reduced rows, at most a sixth
    /// of 400 (the rows of a 2 : 1 frame's longer side, `ReducedFramePair.targetRows` across its
    /// shorter one), 67 cycles: beyond every frame up to 2 : 1 reaches, and far beyond 100–120 Hz
    /// mains flicker (1–4 cycles per 10–30 ms readout). Each frequency costs a pass over every row,
    /// so without the bound a frame's cost grew with the square of its length: `fuse` took 87 s on a
    /// 12 000 × 32 strip (a receipt), nearly all of it in this scan along its 12 000 columns; 4.7 s
    /// with it.
    static let highestCycles = Double(2 * ReducedFramePair.targetRows) / 6
    /// Closest two components may be, cycles per frame: over one frame two sinusoids less than a
    /// cycle apart cannot be told apart (Rayleigh's criterion), and such a pair fits a slowly
    /// modulated misfit instead (2.09 + 2.40 cycles for one 2.00-cycle banding at 12 MP).
    static let resolution = 1.0

    /// The interval `lo...hi` narrowed to frequencies at least `resolution` from each of `others`.
    static func resolvable(_ lo: Double, _ hi: Double, around centre: Double, from others: [Double]) -> (Double, Double) {
        var l = lo, h = hi
        for o in others {
            if o <= centre { l = max(l, o + resolution) } else { h = min(h, o - resolution) }
        }
        return (l, max(l, h))
    }

    /// Powers of s in γ(t, u) of the coarse frequency scan (and the robust weights): a line,
    /// the fall-off's main part. In the fit of Q's changes (before the changes of F − r̄·A), which had
    /// the ambient frame's own banding as terms proportional to P, a cubic there was nearly collinear
    /// with them at the mains' ≈ 2 cycles per frame and led the scan astray (100 Hz over a 20 ms
    /// readout, 2.0 cycles, came out at 2.2 with spurious 3.1 and 4.0 at 1 MP).
    static let slopeTerms = 2
    /// Powers of s in γ(t, u) of the refinement, the F-test and the final fit: a cubic. A point
    /// flash's `∂log E/∂y = −3y/(d² + x² + y²)` is a line only near the axis; over a frame its cubic
    /// part is 10–15 % of the linear one (fitted γ ≈ −1.18 s + 0.15 s³ on a 12 MP render). Left to a
    /// line, that misfit looks like a 1.4–1.5 cycle sinusoid of 0.3–0.5 % amplitude, and with
    /// millions of pixels the F-test keeps it; against the cubic it is no longer significant.
    static let smoothTerms = 4

    /// γ's dependence on the column, terms `s^j·v_k(u)` after the polynomial in s, u = 2·column
    /// fraction − 1 and v = (1, u, u²): a point flash's `∂log E/∂y = −3y/(d² + x² + y²)` falls off
    /// with x too, as `y·(1 − x²/d²)` to first order, and off the lens axis it gains `x` and `x·y`
    /// terms. γ(t) alone gave every row the P-weighted mean of its columns' γ, and the rest passed
    /// into the banding through P's spread within rows (which differs between rows that cross the
    /// chart and rows that do not): 100 Hz's amplitude came out 6.5 % low at 3 MP, and one render in
    /// three kept a spurious 1.2-cycle component of 3 % beside it (r₀ −1.1 %).
    static let columnTerms: [(column: Int, power: Int)] = [(1, 0), (1, 1), (2, 0), (2, 1)]

    /// One pixel's change d over its group's span (`F − r̄·A` over A), its P, its column u and its noise weight 1/σ².
    /// `up`, `down`: the ambient frame's relative change from the centre to the span's ends,
    /// `(A(y ± b) − A(y))/A(y)` (`fit`'s correction of d).
    struct PixelSample { var group: Int, p: Double, d: Double, u: Double, w: Double, up: Double = 0, down: Double = 0 }

    /// One row and span: frame fraction, half span δ, and the weighted sums of its pixels over the
    /// regressors' kinds φ = (1, P, P·u, P·u²): `moments` Σw·φₐ·φ_b (4 × 4, row-major) and
    /// `targets` Σw·φₐ·d.
    struct Group {
        var t: Double, halfSpan: Double
        var moments = SIMD16<Double>(), targets = SIMD4<Double>()
        /// Σw.
        var s0: Double { moments[0] }

        /// The regressors' kinds at one pixel.
        static func kinds(p: Double, u: Double) -> SIMD4<Double> { SIMD4(1, p, p * u, p * u * u) }
    }

    /// The banding of `p`, its changes taken of `F − ratio·A` (`ratio`: r̄, the best r₀ known).
    ///
    /// Where that finds no component of `rowCentredLookBelow` or more but threw out most of the pixels
    /// of `rowCentredLookShare` of the rows or more (`discardedRowShare`), a second look with the robust
    /// weights taken about each row's median residual (`rowCentredWeights`), kept where it finds a
    /// component of at least `rowCentredMinimumAmplitude` and more than twice the banding power.
    /// The weights are against pixels that misfit the model (a surface's edge, a moving object); a
    /// banding that changes r sharply — PWM's square pulses, where a row's short exposure catches one
    /// pulse or two — puts all of a few rows' pixels there at once, and the weights threw those rows
    /// out: a review's 100 Hz PWM at 10 % duty, rows at 0.78 or 1.65 of the mean r, gave no banding
    /// (one render a 9.9-cycle component of 2.5 %), r₀ from one band of rows 27–31 % off at 0.9 %
    /// stated, `constantColor` 3.5–5.2 ΔE00 off. What a whole row shares is the banding's, not a
    /// surface's. Not the first look: at 3 MP on steady light, rows that precise let the row-centred
    /// weights keep the fall-off's misfit, read as a 1.7-cycle banding of 0.4 %.
    static func fit(_ p: ReducedFramePair, ratio: Double = 1) -> RowBandingFit {
        let plain = fit(p, ratio: ratio, rowCentredWeights: false)
        guard plain.components.allSatisfy({ $0.amplitude < rowCentredLookBelow }),
              plain.discardedRowShare >= rowCentredLookShare else { return plain }
        let second = fit(p, ratio: ratio, rowCentredWeights: true)
        let found = second.components.contains { $0.amplitude >= rowCentredMinimumAmplitude }
        return found && second.bandingPower > 2 * plain.bandingPower ? second : plain
    }

    /// A first look that found a component of at least this amplitude (in units of r) has seen the
    /// banding's rows (the weights did not throw them out): 5 %.
    static let rowCentredLookBelow = 0.05

    /// The share of rows mostly thrown out (`discardedRowShare`) that calls for the second look: 6 %.
    /// On 600 × 400 frames (up to 388 rows and spans) the 100 Hz PWM renders' first fits threw out
    /// 45–65 (12–17 %), the hard fixtures' at most 10 (under 3 %) and the committed fixtures' 5; the
    /// 12 MP bench pair's 2.
    static let rowCentredLookShare = 0.06

    /// The least amplitude (in units of r) of a component that the row-centred second look
    /// (`fit`) is kept for: 2 %, five times the spurious one it read at 3 MP on steady light, and about
    /// what a whole row's pixels must share to fall beyond the plain weights' cut on 600 × 400 frames.
    static let rowCentredMinimumAmplitude = 0.02

    /// `fit` with the robust weights taken about the residuals' median in each row (`tukeyWeights`).
    static func fit(_ p: ReducedFramePair, ratio: Double, rowCentredWeights: Bool) -> RowBandingFit {
        // The two spans' samples, one span per core, then joined in order (the second's group
        // indices after the first's).
        var parts = [([Group], [PixelSample])](repeating: ([], []), count: 2)
        parts.withUnsafeMutableBufferPointer { buffer in
            let out = SharedMutableBuffer(buffer)
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                var g: [Group] = [], s: [PixelSample] = []
                collect(p, span: i == 0 ? 1 : max(2, p.height / 40), ratio: ratio, into: &g, &s)
                out[i] = (g, s)
            }
        }
        let groups = parts[0].0 + parts[1].0
        var samples = parts[0].1
        samples.reserveCapacity(parts[0].1.count + parts[1].1.count)
        let offset = parts[0].0.count
        for var sample in parts[1].1 { sample.group += offset; samples.append(sample) }
        parts = []
        guard groups.count >= 48 else { return .none }
        var robust = [Double](repeating: 1, count: samples.count)
        /// `discardedRowShare` under the current weights.
        func discardedRows() -> Double {
            var kept = [Double](repeating: 0, count: groups.count), all = kept
            for (i, sample) in samples.enumerated() { all[sample.group] += sample.w; kept[sample.group] += sample.w * robust[i] }
            return Double(groups.indices.filter { all[$0] > 0 && kept[$0] < 0.5 * all[$0] }.count) / Double(groups.count)
        }
        // The regressor P = F/A − 1 is D/A + (r(y) − 1): it holds r's banding Δ(y) besides the
        // fall-off's share, so the fall-off term 2δ·γ·P carries a spurious 2δ·γ·Δ(y) that the banding
        // basis partly absorbs (a 100 Hz banding's amplitude came out 5–6 % high at 1 and 3 MP, rows
        // 0.2 % off). Each time components are accepted, P is taken as F/A − 1 − Δ̂(y) instead.
        // Likewise d: exactly, the change of F − r̄·A over A(y) is r(y + b) − r(y − b) + ΔD/A(y)
        // + (r(y + b) − r̄)·(A(y + b) − A(y))/A(y) − (r(y − b) − r̄)·(A(y − b) − A(y))/A(y); with r̄ the
        // edges' r₀ the last two terms are the banding times the ambient light's change along the
        // span, which a light varying down the frame (a spot near the top) turns into a misfit of
        // the sinusoids (2.04–2.09 cycles for 2.00, rows 2–3 % off). They are taken out with Δ̂.
        let rawP = samples.map(\.p), rawD = samples.map(\.d)
        func correctP(_ model: Solution, _ frequencies: [Double]) {
            let shift = groups.map { model.banding(atFrameFraction: $0.t, frequencies: frequencies) }
            let ends = groups.map { (model.banding(atFrameFraction: $0.t + $0.halfSpan, frequencies: frequencies),
                                     model.banding(atFrameFraction: $0.t - $0.halfSpan, frequencies: frequencies)) }
            for i in samples.indices {
                let g = samples[i].group
                samples[i].p = rawP[i] - shift[g]
                samples[i].d = rawD[i] - (ends[g].0 * samples[i].up - ends[g].1 * samples[i].down)
            }
        }
        let highest = min(Double(p.height) / 6, highestCycles)
        var found: [Double] = []
        func reweight(_ model: Solution, _ frequencies: [Double]) {
            robust = Self.tukeyWeights(samples, groups, model, frequencies, rowCentred: rowCentredWeights)
        }
        var stats = accumulate(samples, robust, groups)
        guard var current = solve(stats, frequencies: []) else { return .none }
        for _ in 0..<3 {
            reweight(current, [])
            stats = accumulate(samples, robust, groups)
            guard let next = solve(stats, frequencies: []) else { break }
            current = next
        }
        while found.count < maximumComponents {
            let base = current
            // Coarse scan of the rows' residual periodogram (a 2-parameter fit per frequency, Lomb
            // 1976 / Scargle 1982), then golden-section refinement (Kiefer 1953) of the joint fit around the best.
            let residuals = base.groupResiduals(stats, frequencies: found)
            let step = 0.1          // a periodogram peak is about one cycle per frame wide
            var best: (nu: Double, gain: Double)? = nil
            var nu = lowestCycles
            while nu <= highest {
                if !found.contains(where: { abs($0 - nu) < resolution }) {
                    let gain = periodogram(stats, residuals, nu)
                    if gain > (best?.gain ?? 0) { best = (nu, gain) }
                }
                nu += step
            }
            guard let coarse = best else { break }
            // ±0.3 cycle: the scan's periodogram (r's part only, line γ) put 100 Hz's peak at 1.8
            // instead of 2.0 cycles at 12 MP, and a ±0.1 bracket stopped the refinement at its edge.
            let bracket = resolvable(coarse.nu - 3 * step, coarse.nu + 3 * step, around: coarse.nu, from: found)
            // Refined with the cubic γ: within ±0.1 cycle of the peak the fall-off's shape no longer
            // competes with the banding, and a line γ's misfit pulled 100 Hz (2.0 cycles) to 1.95
            // at 3 MP, leaving a spurious 1.2 cycle component of 3 % beside it.
            func rss(_ v: Double) -> Double { solve(stats, frequencies: found + [v], terms: smoothTerms)?.rssBetween ?? .infinity }
            let nuBest = GoldenSection.minimum(bracket.0, bracket.1, iterations: 30, rss)
            // One that ends on the resolution limit is not resolved from its neighbour: it fits what
            // the neighbour's model leaves (0.003 at 1.00 cycle beside 100 Hz's 2.00 on a 3 MP render).
            let limited = (bracket.0 > coarse.nu - 3 * step && nuBest - bracket.0 < 1e-3)
                || (bracket.1 < coarse.nu + 3 * step && bracket.1 - nuBest < 1e-3)
            guard !limited, let with = solve(stats, frequencies: found + [nuBest]) else { break }
            // The F-test and the amplitude are judged with the cubic γ (`smoothTerms`): a sinusoid
            // the fall-off's smooth shape explains as well is not banding.
            guard let smoothBase = solve(stats, frequencies: found, terms: smoothTerms),
                  let smoothWith = solve(stats, frequencies: found + [nuBest], terms: smoothTerms) else { break }
            let dof = Double(groups.count - smoothWith.parameterCount)
            let f = ((smoothBase.rssBetween - smoothWith.rssBetween) / 2) / (smoothWith.rssBetween / dof)
            let k = coefficient(ofComponent: found.count, terms: smoothTerms)
            let amplitude = (smoothWith.coefficients[k] * smoothWith.coefficients[k]
                             + smoothWith.coefficients[k + 1] * smoothWith.coefficients[k + 1]).squareRoot()
            guard f > fTestThreshold, amplitude > minimumAmplitude else { break }
            found.append(nuBest)
            current = with
            correctP(current, found)
            reweight(current, found)
            stats = accumulate(samples, robust, groups)
            if let refit = solve(stats, frequencies: found) { current = refit }
        }
        guard !found.isEmpty else {
            var nothing = RowBandingFit.none
            nothing.discardedRowShare = discardedRows()
            return nothing
        }
        // Each frequency was found with P still holding that component's banding: refined again
        // (±0.1 cycle, the others fixed) with P corrected, then P corrected by the refined fit.
        for k in found.indices {
            var others = found; others.remove(at: k)
            let (lo, hi) = resolvable(found[k] - 0.1, found[k] + 0.1, around: found[k], from: others)
            func rss(_ v: Double) -> Double {
                var f = found; f[k] = v
                return solve(stats, frequencies: f, terms: smoothTerms)?.rssBetween ?? .infinity
            }
            found[k] = GoldenSection.minimum(lo, hi, iterations: 30, rss)
        }
        if let refit = solve(stats, frequencies: found, terms: smoothTerms) {
            correctP(refit, found)
            stats = accumulate(samples, robust, groups)
        }
        // The components' amplitudes with the cubic γ, at the frequencies found.
        if let refit = solve(stats, frequencies: found, terms: smoothTerms) { current = refit }
        var components: [RowBanding] = []
        for (i, nu) in found.enumerated() {
            let k = coefficient(ofComponent: i, terms: current.terms)
            components.append(RowBanding(cyclesPerFrameHeight: nu, cosineAmplitude: current.coefficients[k],
                                         sineAmplitude: current.coefficients[k + 1]))
        }
        return RowBandingFit(components: components, relativeVariance: current.bandingVariance(stats, frequencies: found),
                             discardedRowShare: discardedRows())
    }

    /// Pixels away from edges (horizontal log-gradients of both frames and the change of log `A`
    /// over the span small; the banding itself is vertical, in `F` only), one group per row.
    static func collect(_ p: ReducedFramePair, span b: Int, ratio: Double, into groups: inout [Group], _ samples: inout [PixelSample]) {
        let w = p.width, h = p.height
        let halfSpan = Double(b * p.block) / Double(p.fullHeight)
        func quiet(_ v: [Double], _ vv: [Double], _ a: Int, _ c: Int) -> Bool {
            let relVar = vv[a] / (v[a] * v[a]) + vv[c] / (v[c] * v[c])
            return abs(log(v[a] / v[c])) < 0.03 + 4 * relVar.squareRoot()
        }
        func usable(_ i: Int) -> Bool {
            p.valid[i] && p.ambient[i] > 20 * p.ambientVariance[i].squareRoot() && p.flash[i] > 0
        }
        for y in b..<max(b, h - b) {
            let first = samples.count
            for x in 1..<(w - 1) {
                let j = y * w + x
                let up = j + b * w, dn = j - b * w, l = j - 1, r = j + 1
                guard usable(j), usable(up), usable(dn), usable(l), usable(r) else { continue }
                guard quiet(p.ambient, p.ambientVariance, r, l), quiet(p.flash, p.flashVariance, r, l) else { continue }
                // Down the span, every channel of A must stay put between the centre and either end: two
                // surfaces of one brightness but different colour have different D/A.
                var same = true
                for c in 0..<3 where !(quiet(p.ambientChannels[c], p.ambientChannelVariance[c], up, j)
                                       && quiet(p.ambientChannels[c], p.ambientChannelVariance[c], j, dn)) { same = false }
                guard same else { continue }
                let d = ((p.flash[up] - ratio * p.ambient[up]) - (p.flash[dn] - ratio * p.ambient[dn])) / p.ambient[j]
                let v = (p.flashVariance[up] + p.flashVariance[dn] + ratio * ratio * (p.ambientVariance[up] + p.ambientVariance[dn]))
                    / (p.ambient[j] * p.ambient[j])
                samples.append(PixelSample(group: groups.count, p: p.flash[j] / p.ambient[j] - ratio, d: d,
                                           u: (2 * Double(x) + 1) / Double(w) - 1, w: 1 / v,
                                           up: p.ambient[up] / p.ambient[j] - 1, down: p.ambient[dn] / p.ambient[j] - 1))
            }
            if samples.count - first >= max(10, w / 8) {
                groups.append(Group(t: p.frameFraction(row: y), halfSpan: halfSpan))
            } else {
                samples.removeLast(samples.count - first)
            }
        }
    }

    /// The groups' weighted sums with robust weights `u`.
    static func accumulate(_ samples: [PixelSample], _ u: [Double], _ groups: [Group]) -> [Group] {
        var g = groups
        for i in g.indices { g[i].moments = .zero; g[i].targets = .zero }
        for (i, s) in samples.enumerated() {
            let phi = Group.kinds(p: s.p, u: s.u), wphi = s.w * u[i] * phi
            var m = g[s.group].moments
            m.lowHalf.lowHalf += wphi[0] * phi; m.lowHalf.highHalf += wphi[1] * phi
            m.highHalf.lowHalf += wphi[2] * phi; m.highHalf.highHalf += wphi[3] * phi
            g[s.group].moments = m
            g[s.group].targets += wphi * s.d
        }
        return g
    }

    /// Tukey's biweight of each pixel's noise-weighted residual (`TukeyBiweight`); with `rowCentred`,
    /// of its residual less its row's (group's) median (`fit`'s second look).
    static func tukeyWeights(_ samples: [PixelSample], _ groups: [Group], _ model: Solution, _ frequencies: [Double],
                             rowCentred: Bool = false) -> [Double] {
        let parts = groups.map { model.parts($0, frequencies: frequencies) }
        let residuals = samples.map { $0.d - (parts[$0.group] * Group.kinds(p: $0.p, u: $0.u)).sum() }
        guard rowCentred else { return TukeyBiweight.weights(samples.indices.map { Float(residuals[$0] * samples[$0].w.squareRoot()) }) }
        // Each row's (group's) median residual taken out: what a whole row shares is the banding's.
        var byGroup = [[Float]](repeating: [], count: groups.count)
        for (i, s) in samples.enumerated() { byGroup[s.group].append(Float(residuals[i])) }
        let centre = byGroup.map { g -> Double in
            var v = g
            return v.isEmpty ? 0 : Double(v.withUnsafeMutableBufferPointer { $0.partitionAtMedian($0.count / 2) })
        }
        return TukeyBiweight.weights(samples.indices.map { Float((residuals[$0] - centre[samples[$0].group]) * samples[$0].w.squareRoot()) })
    }

    /// Reduction of the rows' weighted residual sum of squares by one sinusoid of frequency `nu`.
    static func periodogram(_ groups: [Group], _ residuals: [Double], _ nu: Double) -> Double {
        var saa = 0.0, sab = 0.0, sbb = 0.0, ya = 0.0, yb = 0.0
        let w = 2 * Double.pi * nu
        for (g, e) in zip(groups, residuals) {
            let k = 2 * sin(w * g.halfSpan)
            let a = -k * sin(w * g.t), b = k * cos(w * g.t)
            saa += g.s0 * a * a; sab += g.s0 * a * b; sbb += g.s0 * b * b
            ya += g.s0 * a * e; yb += g.s0 * b * e
        }
        let det = saa * sbb - sab * sab
        guard det > 1e-12 * max(saa * sbb, 1e-300) else { return 0 }
        return (sbb * ya * ya - 2 * sab * ya * yb + saa * yb * yb) / det
    }

    /// A weighted least-squares fit.
    struct Solution {
        var coefficients: [Double], normal: [Double], rssBetween: Double, parameterCount: Int
        /// Powers of s in γ (its `columnTerms` follow them).
        var terms: Int

        /// For a group: the model's factor of each regressor kind (`Group.kinds`): r's banding change
        /// (the same for every pixel), then the factors of P, P·u and P·u² (2δ·γ(t, u)).
        func parts(_ g: Group, frequencies: [Double]) -> SIMD4<Double> {
            let x = RowBandingFit.basis(g, frequencies: frequencies, terms: terms)
            var factors = SIMD4<Double>()
            for i in x.indices { factors[RowBandingFit.kind(i, terms: terms)] += coefficients[i] * x[i] }
            return factors
        }

        /// r's banding Δ at frame fraction `t`: Σ a cos 2πνt + b sin 2πνt.
        func banding(atFrameFraction t: Double, frequencies: [Double]) -> Double {
            frequencies.enumerated().reduce(0) { sum, c in
                let k = RowBandingFit.coefficient(ofComponent: c.offset, terms: terms), w = 2 * Double.pi * c.element * t
                return sum + coefficients[k] * cos(w) + coefficients[k + 1] * sin(w)
            }
        }

        /// Each group's weighted mean residual.
        func groupResiduals(_ groups: [Group], frequencies: [Double]) -> [Double] {
            groups.map { g in
                let factors = parts(g, frequencies: frequencies)
                let m = g.moments.lowHalf.lowHalf  // Σw·φ
                return g.s0 > 0 ? (g.targets[0] - (factors * m).sum()) / g.s0 : 0
            }
        }

        /// Mean over the frame of the variance of the fitted banding Δ(t), from the linearized
        /// covariance of all parameters including the frequencies (Gauss–Newton, Seber & Wild 1989,
        /// §2.1): C = (JᵀWJ)⁻¹·s², `s²` the rows' weighted residual variance per unit weight (the
        /// Birge 1932 ratio², which also carries the model's misfit), so that pixels of one row count as one
        /// measurement of its banding; var Δ(t) = g(t)ᵀ C g(t), g = ∂Δ/∂(a, b, ν), averaged over 256 rows.
        /// At a fixed frequency a phase error escapes (a, b)'s variance; near the frame's ends it is
        /// the largest part (2πt·amplitude·σ_ν).
        func bandingVariance(_ groups: [Group], frequencies: [Double]) -> Double {
            let k = frequencies.count, m = parameterCount, n = m + k
            guard k > 0 else { return 0 }
            // Columns of J by regressor kind (`Group.kinds`): the basis, then ∂/∂ν_k (common to every pixel).
            var ata = [Double](repeating: 0, count: n * n)
            var columns = [SIMD4<Double>](repeating: .zero, count: n)
            for g in groups where g.s0 > 0 {
                let x = RowBandingFit.basis(g, frequencies: frequencies, terms: terms)
                for i in 0..<m {
                    columns[i] = .zero
                    columns[i][RowBandingFit.kind(i, terms: terms)] = x[i]
                }
                for (c, nu) in frequencies.enumerated() {
                    let w = 2 * Double.pi * nu, j = RowBandingFit.coefficient(ofComponent: c, terms: terms)
                    let amp = 2 * sin(w * g.halfSpan), dAmp = 4 * Double.pi * g.halfSpan * cos(w * g.halfSpan)
                    let sn = sin(w * g.t), cs = cos(w * g.t), tw = 2 * Double.pi * g.t
                    // ∂/∂ν of −amp·sin(wt) and of amp·cos(wt).
                    let dx0 = -dAmp * sn - amp * tw * cs, dx1 = dAmp * cs - amp * tw * sn
                    columns[m + c] = SIMD4(coefficients[j] * dx0 + coefficients[j + 1] * dx1, 0, 0, 0)
                }
                let mo = g.moments
                for i in 0..<n {
                    let a = columns[i]
                    // Mᵀ·a (M symmetric): the moments' rows weighted by a.
                    var ma: SIMD4<Double> = a[0] * mo.lowHalf.lowHalf
                    ma += a[1] * mo.lowHalf.highHalf
                    ma += a[2] * mo.highHalf.lowHalf
                    ma += a[3] * mo.highHalf.highHalf
                    for l in 0...i { ata[i * n + l] += (ma * columns[l]).sum() }
                }
            }
            for i in 0..<n { for l in 0..<i { ata[l * n + i] = ata[i * n + l] } }
            let totalWeight = groups.reduce(0) { $0 + $1.s0 }
            let scale = rssBetween / Double(max(1, groups.count - n)) * Double(groups.count) / max(totalWeight, 1e-300)
                * max(1, totalWeight / Double(groups.count))
            // The covariance's rows of r's banding parameters (a, b of each component and the ν's).
            let index = (0..<k).flatMap { c in [0, 1].map { RowBandingFit.coefficient(ofComponent: c, terms: terms) + $0 } } + (0..<k).map { m + $0 }
            var cov = [[Double]]()
            for i in index {
                var e = [Double](repeating: 0, count: n); e[i] = 1
                guard let col = solveSymmetric(ata, e, size: n) else { return .infinity }
                cov.append(index.map { col[$0] * scale })
            }
            var sum = 0.0
            let rows = 256
            var grad = [Double](repeating: 0, count: index.count)
            for r in 0..<rows {
                let t = (Double(r) + 0.5) / Double(rows)
                for (c, nu) in frequencies.enumerated() {
                    let w = 2 * Double.pi * nu * t, j = RowBandingFit.coefficient(ofComponent: c, terms: terms)
                    grad[2 * c] = cos(w); grad[2 * c + 1] = sin(w)
                    grad[2 * k + c] = 2 * Double.pi * t * (-coefficients[j] * sin(w) + coefficients[j + 1] * cos(w))
                }
                for i in grad.indices { for l in grad.indices { sum += grad[i] * cov[i][l] * grad[l] } }
            }
            return sum / Double(rows)
        }
    }

    /// Coefficients of one banding component: a and b of `a·cos 2πνt + b·sin 2πνt`.
    static let coefficientsPerComponent = 2

    /// Index of the first banding coefficient: after γ's `terms` powers of s and its `columnTerms`.
    static func firstBanding(terms: Int) -> Int { terms + columnTerms.count }

    /// Index of component `k`'s a (its b follows); with `k` = the number of components, the count
    /// of coefficients.
    static func coefficient(ofComponent k: Int, terms: Int) -> Int { firstBanding(terms: terms) + coefficientsPerComponent * k }

    /// The regressor kind (`Group.kinds`) coefficient `i` multiplies: 0 for r's banding (layout: γ's
    /// powers of s and its column terms, then a, b of each component).
    static func kind(_ i: Int, terms: Int) -> Int {
        if i < terms { return 1 }
        let first = firstBanding(terms: terms)
        if i < first { return 1 + columnTerms[i - terms].column }
        return 0
    }

    /// The group's factors of each coefficient (those of P-proportional ones still to be multiplied by
    /// their kind: P, P·u or P·u²).
    static func basis(_ g: Group, frequencies: [Double], terms: Int) -> [Double] {
        var x = [Double](repeating: 0, count: coefficient(ofComponent: frequencies.count, terms: terms))
        let s = 2 * g.t - 1
        var p = 2 * g.halfSpan
        for i in 0..<terms { x[i] = p; p *= s }
        for (j, term) in columnTerms.enumerated() { x[terms + j] = 2 * g.halfSpan * pow(s, Double(term.power)) }
        for (k, nu) in frequencies.enumerated() {
            let w = 2 * Double.pi * nu, m = 2 * sin(w * g.halfSpan), c = coefficient(ofComponent: k, terms: terms)
            x[c] = -m * sin(w * g.t); x[c + 1] = m * cos(w * g.t)
        }
        return x
    }

    /// Fits every pixel's `d = P·2δ·γ(t, u) + Σ 2 sin(2πνδ)(−a sin 2πνt + b cos 2πνt)`, `γ = Σᵢ γᵢsⁱ + Σ γⱼ·s^pⱼ·u^kⱼ` (`s = 2t − 1`,
    /// i < `terms`, j over `columnTerms`), from the groups' sums.
    static func solve(_ groups: [Group], frequencies: [Double], terms: Int = slopeTerms) -> Solution? {
        let m = coefficient(ofComponent: frequencies.count, terms: terms)
        var ata = [Double](repeating: 0, count: m * m), atb = [Double](repeating: 0, count: m)
        let kinds = (0..<m).map { kind($0, terms: terms) }
        for g in groups where g.s0 > 0 {
            let x = basis(g, frequencies: frequencies, terms: terms)
            for i in 0..<m {
                atb[i] += x[i] * g.targets[kinds[i]]
                for j in 0...i { ata[i * m + j] += x[i] * x[j] * g.moments[kinds[i] * 4 + kinds[j]] }
            }
        }
        for i in 0..<m { for j in 0..<i { ata[j * m + i] = ata[i * m + j] } }
        guard let theta = solveSymmetric(ata, atb, size: m) else { return nil }
        var solution = Solution(coefficients: theta, normal: ata, rssBetween: 0, parameterCount: m, terms: terms)
        var rss = 0.0
        for (g, e) in zip(groups, solution.groupResiduals(groups, frequencies: frequencies)) { rss += g.s0 * e * e }
        solution.rssBetween = rss
        return solution
    }
}
