import ConstantColor
import Foundation

/// The noise model from a chart capture by photon transfer (Janesick 2007, "Photon Transfer",
/// SPIE): for a Poisson–Gaussian sensor (Foi et al. 2008) each uniform patch and channel gives a
/// point (mean signal s, variance σ²) on the line σ² = a + b·s, with b = 1 / gain (e⁻/DN) and
/// a = read noise² (DN²) at the capture's ISO.
///
/// A patch is not perfectly uniform (flash fall-off, texture), so its variance is measured on the
/// differences of pixels `pixelDistance` apart, horizontally and vertically: for pixels whose noise is
/// independent Var(p₁ − p₂) = 2σ², while a smooth trend only shifts the differences' mean. They are
/// not neighbours because a demosaiced frame's neighbours share their noise (each missing sample is
/// interpolated from the ones around it), which would make the difference's variance too small.
/// The same differences of 2 × 2 and 4 × 4 block means, at least `blockGap` pixels apart, give those
/// blocks' variance, hence the noise's spatial correlation (`NoiseCorrelation`). The differences
/// are trimmed at 4 robust standard deviations (1.4826 · MAD) first, so an edge or a hot pixel in
/// the square does not count; the variance of a normal variable trimmed at ±4σ is 0.99893 σ²,
/// which is corrected for. Assumed: the noise of pixels `pixelDistance` or more apart is independent.
public enum PhotonTransfer {
    /// One point of the photon transfer curve.
    public struct Point: Sendable, Equatable {
        /// Mean black-subtracted signal, DN.
        public var meanDN: Double
        /// Noise variance, DN².
        public var varianceDN2: Double
        /// Degrees of freedom of the pixel differences used (the fit's weight).
        public var differenceCount: Int
        /// The channel (0 red, 1 green, 2 blue).
        public var channel: Int
        /// The variances of 2 × 2 and 4 × 4 block means, DN², and the degrees of freedom of the
        /// 4 × 4 one; nil when the square is too small for them (under 16 pixels).
        public var blockVariance: (twoByTwoDN2: Double, fourByFourDN2: Double, differenceCount: Int)?
        /// The chart patch whose square it was measured on (its index), or −1 (a dark frame).
        public var patch: Int

        /// Creates a point.
        public init(meanDN: Double, varianceDN2: Double, differenceCount: Int, channel: Int = 0,
                    blockVariance: (twoByTwoDN2: Double, fourByFourDN2: Double, differenceCount: Int)? = nil, patch: Int = -1) {
            self.meanDN = meanDN; self.varianceDN2 = varianceDN2; self.differenceCount = differenceCount
            self.channel = channel; self.blockVariance = blockVariance; self.patch = patch
        }

        public static func == (a: Point, b: Point) -> Bool {
            a.meanDN == b.meanDN && a.varianceDN2 == b.varianceDN2 && a.differenceCount == b.differenceCount
                && a.channel == b.channel && a.patch == b.patch && a.blockVariance?.0 == b.blockVariance?.0
                && a.blockVariance?.1 == b.blockVariance?.1 && a.blockVariance?.2 == b.blockVariance?.2
        }
    }

    /// The fitted line σ² = a + b·s at the capture's ISO.
    public struct Fit: Sendable, Equatable {
        /// Intercept a: read noise variance, DN².
        public var readVarianceDN2: Double
        /// Standard error of the intercept, DN² (from the weighted residuals). A flash-lit chart
        /// rarely has signals low enough to pin the read noise down: compare before trusting it.
        public var readVarianceStandardErrorDN2: Double
        /// Slope b: DN of variance per DN of signal (1 / gain).
        public var shotSlope: Double
        /// Standard error of the slope.
        public var shotSlopeStandardError: Double
        /// The points fitted.
        public var points: [Point]
        /// Whether the intercept was given (a dark frame's read variance) rather than fitted.
        public var interceptKnown: Bool = false
        /// Points left out as structure, not noise (`fitLeavingOutStructure`).
        public var excludedPoints: [Point] = []

        /// Whether quantization, not the sensor, sets the darker points' noise: more than half of the
        /// darkest quarter of the points (at least one) have a variance under `quantizedVarianceDN2`
        /// (noise under half a code, as in 8-bit files). The intercept, which rests on them, and
        /// the gain fitted from them are then not the sensor's.
        public var isQuantizationLimited: Bool {
            let darkest = points.sorted { $0.meanDN < $1.meanDN }.prefix(max(1, points.count / 4))
            return 2 * darkest.filter { $0.varianceDN2 < PhotonTransfer.quantizedVarianceDN2 }.count > darkest.count
        }

        /// The noise model at `referenceISO`, for a capture taken at `iso`
        /// (`NoiseModel`: at ISO i, k = i / referenceISO, a = (k · read)², b = k / gain).
        public func noiseModel(iso: Double, referenceISO: Double = 100) -> NoiseModel {
            let k = iso / referenceISO
            return NoiseModel(readNoiseDN: max(0, readVarianceDN2).squareRoot() / k,
                              gainElectronsPerDN: k / shotSlope, referenceISO: referenceISO)
        }
    }

    /// A point's variance under this (DN², a quarter code: noise under half a code) is set by the
    /// quantization of the samples more than by the sensor (`Fit.isQuantizationLimited`).
    public static let quantizedVarianceDN2 = 0.25

    /// Variance of a normal variable trimmed at ±4σ, relative to σ²: 1 − 8φ(4)/(2Φ(4) − 1).
    static let trimmedVarianceFactor = 0.998_93

    /// Pixels between two blocks (or two pixels) whose difference is taken: their noise is taken as
    /// independent. A demosaicing kernel of reach r (each output made from samples up to r pixels
    /// away) correlates pixels up to 2r apart: 2 for bilinear (3 × 3), 4 for Malvar–He–Cutler's
    /// 5 × 5 kernels, whose pixels 4 apart share the sample between them (with a gap of 3 their
    /// variance came out 1.2–1.6 % low on a flat field, `DemosaicedNoiseTests`).
    public static let blockGap = 4

    /// Distance in pixels between the two pixels of a difference (`blockGap` pixels between them);
    /// the dark frame's differences use the same (`DarkFrame.lag`).
    public static let pixelDistance = blockGap + 1

    /// The photon transfer point of one channel over one square of a raw frame (DN), or nil when
    /// the pixel differences give fewer than 12 degrees of freedom. Unusable (`clipped`) pixels
    /// spoil the differences and blocks they are part of.
    public static func point(raw: PlanarImage, channel: Int, square: PatchSquare, blackLevel: Double,
                             clipped: [UInt8]? = nil, patch: Int = -1) -> Point? {
        let w = raw.width, sw = square.columns.count, sh = square.rows.count
        guard sw > 0, sh > 0 else { return nil }
        // Summed-area tables of the values and of the unusable pixels over the square.
        var plane = [Double](repeating: 0, count: sw * sh), unusablePlane = [Int](repeating: 0, count: sw * sh)
        var sum = 0.0, count = 0
        for j in 0..<sh {
            for i in 0..<sw {
                let x = square.columns.lowerBound + i, y = square.rows.lowerBound + j
                let unusable = clipped.map { $0[y * w + x] != 0 } ?? false
                let v = unusable ? 0 : Double(raw[x, y, channel])
                if !unusable { sum += v; count += 1 }
                plane[j * sw + i] = v; unusablePlane[j * sw + i] = unusable ? 1 : 0
            }
        }
        let values = IntegralImage(plane, width: sw, height: sh), bad = IntegralImage(unusablePlane, width: sw, height: sh)
        /// Half the trimmed variance of the differences of k × k block means at least `blockGap`
        /// pixels apart (horizontal and vertical pairs), with its degrees of freedom (`trimmedVariance`). The
        /// blocks tile the square (no overlap): differences of overlapping blocks are correlated,
        /// and their mean, subtracted below, would then take a share of their variance with it
        /// (a quarter for 4 × 4 blocks in a 16-pixel square). Tiles `m` apart share no pixel, and
        /// the differences along a row of tiles telescope, so the usual n − 1 holds.
        func blockMeanVariance(_ k: Int, limit: Double?) -> (Double, Int)? {
            guard sw >= k, sh >= k else { return nil }
            let m = (k + blockGap + k - 1) / k          // tiles apart: (m − 1)·k ≥ blockGap pixels between
            let columns = sw / k, rows = sh / k
            @inline(__always) func tile(_ u: Int, _ v: Int) -> Double? {
                let columns = (u * k)..<(u * k + k), rows = (v * k)..<(v * k + k)
                guard bad.sum(columns: columns, rows: rows) == 0 else { return nil }
                return values.sum(columns: columns, rows: rows) / Double(k * k)
            }
            // Horizontal and vertical pairs apart: a trend across the patch shifts each set's mean by
            // its own gradient, which must not count as spread.
            // Single pixels also by their position in a 2 × 2 colour filter mosaic: a demosaiced frame's
            // pixel variance depends on it (a recorded sample against an interpolated one), and one
            // robust limit for the mixture would cut the noisier positions' tails (2–4 % of the
            // variance for bilinear demosaicing). Each position is trimmed with its own limit.
            let phases = k == 1 ? 4 : 1
            var horizontal = [[Double]](repeating: [], count: phases), vertical = horizontal
            for v in 0..<rows {
                for u in 0..<columns {
                    guard let here = tile(u, v) else { continue }
                    let phase = k == 1 ? ((square.columns.lowerBound + u) & 1) + 2 * ((square.rows.lowerBound + v) & 1) : 0
                    if u + m < columns, let right = tile(u + m, v) { horizontal[phase].append(right - here) }
                    if v + m < rows, let below = tile(u, v + m) { vertical[phase].append(below - here) }
                }
            }
            return pooledTrimmedVariance((0..<phases).map { [horizontal[$0], vertical[$0]] }, limit: limit)
                .map { ($0.variance / 2, $0.count) }
        }
        guard count > 0, let pixel = blockMeanVariance(1, limit: nil) else { return nil }
        // Blocks: a few differences per set give too unstable a MAD (trimming at a limit that is too
        // low took 10–15 % of the variance away in a test); their limit is 4 σ of the difference of two
        // pixels instead — what a block difference's σ would be if all its pixels' noise moved together,
        // so only an edge or a defect is cut.
        let blockLimit = 4 * (2 * pixel.0).squareRoot()
        var blocks: (Double, Double, Int)?
        if let two = blockMeanVariance(2, limit: blockLimit), let four = blockMeanVariance(4, limit: blockLimit) {
            blocks = (two.0, four.0, four.1)
        }
        return Point(meanDN: sum / Double(count) - blackLevel, varianceDN2: pixel.0, differenceCount: pixel.1,
                     channel: channel, blockVariance: blocks, patch: patch)
    }

    /// The pooled variance of several sets of differences, each about its own mean, after trimming
    /// at 4 robust standard deviations (1.4826 · MAD of the deviations from each set's median, pooled
    /// over the sets), corrected for the trimming, or at the `limit` given (|d − median| beyond it,
    /// uncorrected: meant to cut defects only); with its degrees of freedom (the differences kept
    /// less one per set). Nil under 12.
    static func trimmedVariance(_ sets: [[Double]], limit given: Double? = nil) -> (variance: Double, count: Int)? {
        var centers: [Double] = [], deviations: [Double] = []
        for set in sets {
            var sorted = set
            let center = set.isEmpty ? 0 : PatchSampling.median(&sorted)
            centers.append(center)
            deviations += set.map { abs($0 - center) }
        }
        guard deviations.count >= 12 else { return nil }
        let limit = given ?? 4 * max(1.4826 * PatchSampling.median(&deviations), 1e-9)
        let correction = given == nil ? trimmedVarianceFactor : 1
        var sum = 0.0, kept = 0
        for (set, center) in zip(sets, centers) {
            var n = 0.0, mean = 0.0, m2 = 0.0
            for d in set where abs(d - center) <= limit {
                n += 1
                let delta = d - mean
                mean += delta / n
                m2 += delta * (d - mean)
            }
            guard n >= 2 else { continue }
            sum += m2; kept += Int(n) - 1
        }
        guard kept >= 12 else { return nil }
        return (sum / Double(kept) / correction, kept)
    }

    /// `trimmedVariance` of each group (its own limit), pooled by degrees of freedom; nil under 12.
    static func pooledTrimmedVariance(_ groups: [[[Double]]], limit: Double? = nil) -> (variance: Double, count: Int)? {
        let parts = groups.compactMap { trimmedVariance($0, limit: limit) }
        let dof = parts.reduce(0) { $0 + $1.count }
        guard dof >= 12 else { return nil }
        return (parts.reduce(0) { $0 + $1.variance * Double($1.count) } / Double(dof), dof)
    }

    /// Standardized excess, in robust standard deviations, beyond which a square is taken to hold
    /// structure, not noise (`structured`).
    public static let outlierLimit = 4.0

    /// The points whose square holds structure at the blocks' scale — an ambient shadow's penumbra,
    /// an edge, a highlight's halo — found without the line: such structure adds to the variance of
    /// 4 × 4 block means far more than to the pixels' (sixteen times as much for a step, relative to
    /// noise), so a point's `R₄ = 16·Var(4×4)/σ̂²` (σ̂² its own pixel variance) stands out of its
    /// channel's. Noise the line describes badly (a demosaicing that mixes the channels, as
    /// Malvar–He–Cutler's does, or a channel whose pixel variance is off the shared line) moves both
    /// variances alike and cancels. Each point's excess of `log R₄` over its channel's median, in
    /// standard errors `√(2/n)` (n the blocks' degrees of freedom; in the log, because a variance
    /// from a few differences is skewed: χ²/n with n = 14 in a 19-pixel square), counts when it lies more than
    /// `outlierLimit` robust standard deviations (1.4826 · MAD of the channel's excesses, at least 1)
    /// above their median. One-sided: structure only adds variance; the limit is at or above the
    /// median, so at least half of each channel stays. Points without block variances (squares under
    /// 16 pixels) cannot be tested and stay.
    public static func structured(_ points: [Point]) -> Set<Int> {
        var excluded = Set<Int>()
        for c in 0..<3 {
            var ratio: [Int: Double] = [:]
            for (i, p) in points.enumerated() where p.channel == c && p.varianceDN2 > 0 {
                if let b = p.blockVariance, b.differenceCount > 0, b.fourByFourDN2 > 0 { ratio[i] = 16 * b.fourByFourDN2 / p.varianceDN2 }
            }
            guard ratio.count >= 3 else { continue }
            var logs = ratio.values.map { log($0) }
            let centre = PatchSampling.median(&logs)
            guard centre.isFinite else { continue }
            var excess: [Int: Double] = [:]
            for (i, r) in ratio { excess[i] = (log(r) - centre) / (2 / Double(points[i].blockVariance!.differenceCount)).squareRoot() }
            let (middle, robustSigma) = RobustScale.medianAndSigma(Array(excess.values))
            let scale = max(1, robustSigma)
            for (i, z) in excess where z > middle + outlierLimit * scale { excluded.insert(i) }
        }
        return excluded
    }

    /// `fit(_:)`, or `fit(_:knownReadVarianceDN2:readVarianceStandardErrorDN2:)` with a known
    /// intercept, over the points whose square holds no structure (`structured`; a patch with a
    /// structured channel leaves out all three); those left out are the fit's `excludedPoints`. On the committed dark-room capture none is; on a flash frame shot
    /// with an ambient shadow across the chart (`--ambient`) the squares its penumbra crosses are,
    /// which had taken the gain from 0.25 to 0.16–0.23 and the area factor from 1 to 2.3–22.
    public static func fitLeavingOutStructure(_ points: [Point], knownReadVarianceDN2: Double? = nil,
                                              readVarianceStandardErrorDN2: Double = 0) -> Fit? {
        // Structure is the square's, not one channel's: a patch with a structured channel goes whole.
        let flagged = structured(points)
        let patches = Set(flagged.map { points[$0].patch }).filter { $0 >= 0 }
        let excluded = flagged.union(points.indices.filter { patches.contains(points[$0].patch) })
        let kept = points.indices.filter { !excluded.contains($0) }.map { points[$0] }
        let line = knownReadVarianceDN2.map { fit(kept, knownReadVarianceDN2: $0, readVarianceStandardErrorDN2: readVarianceStandardErrorDN2) }
            ?? fit(kept)
        guard var f = line else { return nil }
        f.excludedPoints = excluded.sorted().map { points[$0] }
        return f
    }

    /// The noise's spatial correlation per channel from the points' block variances, pooled over
    /// the patches (and a dark frame's central square, `DarkFrame.correlationPoints`) as the mean of
    /// `Var(k × k)·k² / σ²` weighted by the 4 × 4 blocks' degrees of freedom, σ² the fitted line's variance at each patch's signal,
    /// which is what the factors multiply in use; it absorbs a channel's pixel variance differing
    /// from the line's, as demosaicing makes it): the 2 × 2 factor as measured, the large-area factor
    /// extrapolated to first order in 1/k from 2 × 2 and 4 × 4 (`2 S₄ − S₂`, since for a short-range
    /// correlation `S_k = A − M/k + O(1/k²)`; for bilinear demosaicing of red 6.6, against 6.4 at the
    /// noise reduction's 14-pixel window and 7.1 in the limit), each at least 1. A channel with no
    /// point with block variances takes the largest of the others'; nil when no channel has one.
    public static func correlation(_ points: [Point], fit: Fit) -> (correlation: NoiseCorrelation, blockDifferences: Int)? {
        var block = SIMD3<Double>(), area = SIMD3<Double>(), used = 0
        for c in 0..<3 {
            var weight = 0.0, two = 0.0, four = 0.0
            for p in points where p.channel == c {
                guard let b = p.blockVariance else { continue }
                let variance = fit.readVarianceDN2 + fit.shotSlope * max(0, p.meanDN)
                guard variance > 0 else { continue }
                let w = Double(b.differenceCount)
                weight += w; two += w * 4 * b.twoByTwoDN2 / variance; four += w * 16 * b.fourByFourDN2 / variance
                used += b.differenceCount
            }
            guard weight > 0 else { continue }
            let pixel = weight
            // Below 1 needs neighbours whose noise is anticorrelated (sharpening), which a linear raw
            // development does not apply: there it is the estimate's own noise (about ±20 % for the
            // area factor from 24 patches of 20 pixels), and 1, the side that does not overstate
            // confidence, is kept.
            block[c] = max(1, two / pixel)
            area[c] = max(1, 2 * four / pixel - two / pixel)
        }
        // A channel without blocks (clipped everywhere) takes the largest of the others'.
        let measured = (0..<3).filter { block[$0] > 0 }
        guard !measured.isEmpty else { return nil }
        for c in 0..<3 where block[c] == 0 {
            block[c] = measured.map { block[$0] }.max()!; area[c] = measured.map { area[$0] }.max()!
        }
        return (NoiseCorrelation(blockFactor: block, areaFactor: area), used)
    }

    /// Fits σ² = a + b·s by weighted least squares with weights 1 / σ̂⁴ (the variance of a sample
    /// variance is ∝ σ⁴), iterated three times from an unweighted start; nil when the points do not
    /// span two distinct signal levels or the slope is not positive.
    public static func fit(_ points: [Point]) -> Fit? {
        guard points.count >= 2 else { return nil }
        var a = 0.0, b = 0.0, seA = Double.infinity, seB = Double.infinity
        for iteration in 0..<4 {
            var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
            for p in points {
                let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                let weight = Double(p.differenceCount) / (predicted * predicted)
                sw += weight; sx += weight * p.meanDN; sy += weight * p.varianceDN2
                sxx += weight * p.meanDN * p.meanDN; sxy += weight * p.meanDN * p.varianceDN2
            }
            let det = sw * sxx - sx * sx
            guard det > 0 else { return nil }
            b = (sw * sxy - sx * sy) / det
            a = (sy - b * sx) / sw
            if points.count > 2 {
                // Weighted residual variance scales the normal equations' inverse (Draper & Smith 1998, §9).
                var chi2 = 0.0
                for p in points {
                    let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                    let r = p.varianceDN2 - (a + b * p.meanDN)
                    chi2 += Double(p.differenceCount) / (predicted * predicted) * r * r
                }
                let s2 = chi2 / Double(points.count - 2)
                seA = (s2 * sxx / det).squareRoot(); seB = (s2 * sw / det).squareRoot()
            }
        }
        guard b > 0, b.isFinite, a.isFinite else { return nil }
        return Fit(readVarianceDN2: a, readVarianceStandardErrorDN2: seA, shotSlope: b, shotSlopeStandardError: seB, points: points)
    }

    /// Fits σ² = a + b·s with the intercept a known (the read variance measured on a dark frame,
    /// EMVA 1288 Release 4.0: the photon transfer slope is fitted to σ² − σ²_dark): only the
    /// slope b = ∑ w s (σ² − a) / ∑ w s², with weights n / σ̂⁴ iterated as in `fit(_:)`. The
    /// slope's standard error is from the weighted residuals, (χ² / (N − 1) / ∑ w s²)^½; the
    /// intercept's is the one given. Nil when no point has a positive signal or the slope is not
    /// positive.
    public static func fit(_ points: [Point], knownReadVarianceDN2 a: Double,
                           readVarianceStandardErrorDN2 seA: Double = 0) -> Fit? {
        guard !points.isEmpty, a >= 0, a.isFinite else { return nil }
        var b = 0.0, seB = Double.infinity
        for iteration in 0..<4 {
            var sxx = 0.0, sxy = 0.0
            for p in points {
                let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                let weight = Double(p.differenceCount) / (predicted * predicted)
                sxx += weight * p.meanDN * p.meanDN; sxy += weight * p.meanDN * (p.varianceDN2 - a)
            }
            guard sxx > 0 else { return nil }
            b = sxy / sxx
            if points.count > 1 {
                var chi2 = 0.0
                for p in points {
                    let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                    let r = p.varianceDN2 - (a + b * p.meanDN)
                    chi2 += Double(p.differenceCount) / (predicted * predicted) * r * r
                }
                seB = (chi2 / Double(points.count - 1) / sxx).squareRoot()
            }
        }
        guard b > 0, b.isFinite else { return nil }
        return Fit(readVarianceDN2: a, readVarianceStandardErrorDN2: seA, shotSlope: b, shotSlopeStandardError: seB,
                   points: points, interceptKnown: true)
    }
}
