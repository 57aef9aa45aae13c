/// Stage 4b of the pipeline: edge-aware noise reduction of the dark-room estimate, guided by the
/// flash frame, with the uncertainty of the result propagated so that confidence stays honest.
///
/// The flash frame has more signal than `D = F − A` and shows where the scene's edges are
/// (flash/no-flash denoising: Petschnigg et al., SIGGRAPH 2004; Eisemann & Durand, SIGGRAPH 2004).
/// Each channel `D_c` is filtered with the guided filter (He, Sun & Tang, IEEE TPAMI 35(6), 2013),
/// a local linear model `D_c ≈ a_c·I + b_c` fitted in every window, with one guide for all three
/// channels, `I = F_r + F_g + F_b`, computed on `s × s`-averaged images; the coefficients are
/// upsampled bilinearly (fast guided filter, He & Sun, arXiv:1505.00996, 2015). This type builds
/// that low-resolution model (`GuidedModel`); `Confidence.filterAndMap` evaluates it per pixel,
/// checks it against each pixel's own value and turns the propagated uncertainty into confidence
/// in the same pass.
///
/// Why one guide: the flash fall-off is common to the channels, so `a_c·I` follows it and the
/// guide's own pixel noise passes into the result as `ā_c·δI` — the same `δI` in every channel, an
/// error along the pixel's own colour that moves lightness, not chroma, propagated as the
/// correlated error it is.
///
/// Measurement, not look:
/// - ε is `regularization` × the averaged guide's noise variance (from the flash frame's noise
///   model), the slope is shrunk toward the proportional model `a₀ = p̄/μ` (one material under
///   flash fall-off) rather than toward 0, and the covariance of the guide's noise with `D_c`'s noise
///   (`Cov(δI, δD_c) = Var(δF_c)`) is removed from the window covariance;
/// - each window's variance is `v̄/|ω|·(1+ρ)² + excess`: `v̄` the mean noise variance of the averaged
///   `D_c` (read from the noise models; with correlated pixel noise, e.g. demosaiced frames, `v̄/|ω|`
///   is the window mean's variance from `NoiseCorrelation.areaFactor` and a block's from
///   `blockFactor`), `ρ = σ_I²/(σ_I²+ε)` for the noise of the fitted slope, and
///   `excess` the part of the window's residual about its linear model that noise does not explain
///   (junctions of several materials, local motion, misregistration, unmodelled noise), less one
///   standard deviation of that estimate: it is counted as uncertainty, not hidden. This is the
///   pipeline's mismatch detector: where `D` has structure the flash frame does not explain, the
///   frames disagree;
/// - the windows covering a pixel are combined with inverse-variance weights (one weight for the
///   three channels, from their summed variance) so that a pixel inside a patch takes its model from
///   windows that do not straddle an edge, and its standard deviation is the same weighted mean of
///   the windows' standard deviations (the bound for fully correlated windows), with the noise part
///   of its variance scaled by `WindowOverlap.noiseFactor`: overlapping windows share their samples,
///   so their noise is correlated by their overlap, not fully. Counting them as fully correlated
///   overstated a flat region's σ by about 1.5× (measured against the truth on the hard set's noisy
///   camera). The misfit `excess` is shared by overlapping windows and is not reduced.
public struct NoiseReduction: Sendable {
    /// Window radius in averaged (`subsampling`) pixels.
    public var radius: Int = 3
    /// Side of the averaging block of the fast guided filter.
    public var subsampling: Int = 2
    /// ε in units of the averaged guide's noise variance.
    public var regularization: Float = 4
    /// Radii of the wide windows (in averaged pixels) that each pixel may take instead, tried from the
    /// smallest up, where they agree with all the smaller ones and are more certain
    /// (`Confidence.wideSupportSelection`, the intersection-of-confidence-intervals rule); 6 and 12,
    /// dyadic steps from the default radius. Radii not above `radius`, and repeats, are skipped;
    /// empty: one window size.
    public var wideRadii: [Int] = [6, 12]

    /// Default settings: 2×2 averaging, 7×7 windows (a 14-pixel support), 13×13 and 25×25 wide windows
    /// (the latter kept on 4×4 blocks), ε = 4 noise variances.
    public init() {}

    /// Wide models of at least this radius are kept on blocks twice as large (`GuidedModel.halved`):
    /// a quarter of the memory, which at 12 MP is time too (every fresh page is faulted in and
    /// zeroed). 12 halves the 25×25 windows only: halving the 13×13 ones as well made the stated
    /// variance over-confident near edges (1.02 % of errors beyond 3σ on the edge scene of the noise
    /// reduction tests instead of 0.97 %) and a moved object's ghost 0.53 confident instead of
    /// below 0.5. `Int.max`: none halved.
    public var halvedWideRadius = 12

    /// The models with the wide windows (`wideRadii`, those above `radius`, each once), in increasing
    /// order; those from `halvedWideRadius` on halved. Each is computed in `storage` (a buffer
    /// nothing reads any more, as `model`'s), the widest first: a halved model hands it back for
    /// the next, a kept one takes it. The working planes go to `scratch`.
    public func wideModels(estimate: DarkRoomEstimate, flash: LinearFrame, reusing storage: inout [Float],
                           scratch: inout [Float]) -> [GuidedModel] {
        let widestFirst = Set(wideRadii.filter { $0 > radius }).sorted(by: >).map { r in
            var wide = self
            wide.radius = r
            let full = wide.model(estimate: estimate, flash: flash, reusing: moved(&storage), scratch: &scratch)
            guard r >= halvedWideRadius else { return full }
            let halved = full.halved()
            storage = (consume full).planes
            return halved
        }
        return widestFirst.reversed()
    }

    /// The low-resolution guided model of `estimate` (made from the normalized `flash` frame).
    public func model(estimate: DarkRoomEstimate, flash: LinearFrame) -> GuidedModel {
        var scratch: [Float] = []
        return model(estimate: estimate, flash: flash, reusing: [], scratch: &scratch)
    }

    /// The same, with the model's planes written into `storage` (a buffer nothing reads any more,
    /// e.g. the ambient frame's samples once the dark-room estimate is made) and the working planes
    /// that are not part of the model into `scratch`, each reused when it is large enough
    /// (`recycledLargeArray`) so that fewer fresh pages are touched. `scratch` is left to the caller
    /// (it holds nothing it needs; at least one full-resolution plane, so that the confidence map
    /// can be written into it).
    public func model(estimate: DarkRoomEstimate, flash: LinearFrame, reusing storage: consuming [Float],
                      scratch: inout [Float]) -> GuidedModel {
        let w = estimate.difference.width, h = estimate.difference.height, n = w * h
        precondition(flash.image.width == w && flash.image.height == h)
        let s = max(1, subsampling), r = max(0, radius)
        let lw = (w + s - 1) / s, lh = (h + s - 1) / s, ln = lw * lh
        // Working planes: 0 I, 1 I², 2 count, then per channel c at 3 + 4c: p, F_c, I·p, p²; planes
        // 3…14 (the model's twelve outputs, written over its inputs) live in `planes`, 0…2 in `work`
        // (`at(_:)`). Boxes run in place (BoxFilter.mean allows it). Every plane is written before it
        // is read: no zero fill.
        var planes = recycledLargeArray(consume storage, count: GuidedModel.planeCount * ln, zero: Float(0))
        var work = recycledLargeArray(moved(&scratch), count: max(3 * ln, n), zero: Float(0))
        defer { scratch = moved(&work) }
        let fn = estimate.flashNoise, an = estimate.ambientNoise
        // Variance factors of an s × s block's mean (`blockFactor` itself for the default 2 × 2).
        let flashBlock = fn.blockVarianceFactor(side: s), ambientBlock = an.blockVarianceFactor(side: s)
        let guideBlockFactor = (flashBlock.x + flashBlock.y + flashBlock.z) / 3
        let kappa = regularization
        planes.withUnsafeMutableBufferPointer { modelBuffer in
        work.withUnsafeMutableBufferPointer { workBuffer in
        estimate.difference.samples.withUnsafeBufferPointer { dBuffer in
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
            let modelPlanes = SharedMutableBuffer(modelBuffer), workPlanes = SharedMutableBuffer(workBuffer)
            let inputs = UncheckedSendableBox((dBuffer, fBuffer))
            /// The first sample of working plane `k`.
            @inline(__always) func at(_ k: Int) -> UnsafeMutablePointer<Float> {
                k < 3 ? workPlanes.base + k * ln : modelPlanes.base + (k - 3) * ln
            }
            func box(_ k: Int) {
                let plane = UnsafeMutableBufferPointer(start: at(k), count: ln)
                BoxFilter.mean(UnsafeBufferPointer(plane), width: lw, height: lh, radius: r, into: plane)
            }
            // 1. Block averages of the guide and of each channel, one pass over the full-resolution frames.
            forEachRowBand(rowCount: lh) { rows in
                let (d, f) = inputs.value
                for Y in rows {
                    let yEnd = min(h, Y * s + s)
                    // 2×2 blocks with both rows inside, eight at a time: the pairs of a row are the
                    // even and odd halves of sixteen samples.
                    var firstScalar = 0
                    if s == 2 && yEnd - Y * s == 2 {
                        let vectorBlocks = (w / 2) / 8 * 8
                        let top = Y * 2 * w, bottom = top + w
                        for X in stride(from: 0, to: vectorBlocks, by: 8) {
                            @inline(__always) func block(_ p: UnsafeBufferPointer<Float>, _ plane: Int) -> SIMD8<Float> {
                                let base = UnsafeRawPointer(p.baseAddress! + plane * n + 2 * X)
                                let sum = base.advanced(by: 4 * top).loadUnaligned(as: SIMD16<Float>.self)
                                    + base.advanced(by: 4 * bottom).loadUnaligned(as: SIMD16<Float>.self)
                                return (sum.evenHalf + sum.oddHalf) * 0.25
                            }
                            let k = Y * lw + X
                            @inline(__always) func put(_ v: SIMD8<Float>, _ plane: Int) {
                                UnsafeMutableRawPointer(at(plane) + k).storeBytes(of: v, as: SIMD8<Float>.self)
                            }
                            let gF = (block(f, 0), block(f, 1), block(f, 2))
                            let gI = gF.0 + gF.1 + gF.2
                            put(gI, 0); put(gI * gI, 1); put(SIMD8(repeating: 4), 2)
                            @inline(__always) func channel(_ c: Int, _ gFc: SIMD8<Float>) {
                                let gP = block(d, c)
                                put(gP, 3 + 4 * c); put(gFc, 4 + 4 * c); put(gI * gP, 5 + 4 * c); put(gP * gP, 6 + 4 * c)
                            }
                            channel(0, gF.0); channel(1, gF.1); channel(2, gF.2)
                        }
                        firstScalar = vectorBlocks
                    }
                    for X in firstScalar..<lw {
                        let xEnd = min(w, X * s + s)
                        var sP = SIMD3<Float>(), sF = SIMD3<Float>()
                        for y in (Y * s)..<yEnd {
                            for x in (X * s)..<xEnd {
                                let i = y * w + x
                                sP += SIMD3(d[i], d[n + i], d[2 * n + i])
                                sF += SIMD3(f[i], f[n + i], f[2 * n + i])
                            }
                        }
                        let k = Y * lw + X
                        let count = Float((yEnd - Y * s) * (xEnd - X * s))
                        let gP = sP / count, gF = sF / count, gI = gF.sum()
                        at(0)[k] = gI; at(1)[k] = gI * gI; at(2)[k] = count
                        for c in 0..<3 {
                            let o = 3 + 4 * c
                            at(o)[k] = gP[c]; at(o + 1)[k] = gF[c]; at(o + 2)[k] = gI * gP[c]; at(o + 3)[k] = gP[c] * gP[c]
                        }
                    }
                }
            }
            // 2. Window means, in place.
            for k in 0..<15 where k != 2 { box(k) }
            // 3. Per window: the local linear models, their variances and weights, eight windows of a
            // row at a time (the tail through a padded copy).
            typealias V = SIMD8<Float>
            forEachRowBand(rowCount: lh) { rows in
                let tail = UnsafeMutablePointer<Float>.allocate(capacity: 15 * 8)
                defer { tail.deallocate() }
                for Y in rows {
                    let windowRows = Float(min(lh - 1, Y + r) - max(0, Y - r) + 1)
                    var X = 0
                    while X < lw {
                        let k = Y * lw + X, lanes = min(8, lw - X)
                        if lanes < 8 {
                            for plane in 0..<15 {
                                for lane in 0..<8 { tail[plane * 8 + lane] = at(plane)[k + min(lane, lanes - 1)] }
                            }
                        }
                        @inline(__always) func load(_ plane: Int) -> V {
                            lanes == 8 ? UnsafeRawPointer(at(plane) + k).loadUnaligned(as: V.self)
                                       : UnsafeRawPointer(tail + plane * 8).loadUnaligned(as: V.self)
                        }
                        @inline(__always) func store(_ v: V, _ plane: Int) {
                            if lanes == 8 {
                                UnsafeMutableRawPointer(at(plane) + k).storeBytes(of: v, as: V.self)
                            } else {
                                for lane in 0..<lanes { at(plane)[k + lane] = v[lane] }
                            }
                        }
                        let x = V(0, 1, 2, 3, 4, 5, 6, 7) + Float(X)
                        let right = x + Float(r), left = x - Float(r), last = V(repeating: Float(lw - 1))
                        let windowColumns = right.replacingLanes(with: last, where: right .> last)
                            - left.replacingLanes(with: 0, where: left .< 0) + 1
                        let windowCount = windowRows * windowColumns
                        let excessAllowance = 1 + (2 / windowCount).fastSquareRoot
                        let mu = load(0), count = load(2)
                        /// max(0, v) (the standard library's generic pointwise maximum was not inlined).
                        @inline(__always) func positive(_ v: V) -> V { v.replacingLanes(with: 0, where: v .< 0) }
                        let varI = positive(load(1) - mu * mu)
                        // Noise variance of the averaged guide (its shot noise follows the mean), with the
                        // channels' mean block factor (exact when they carry equal signal).
                        let guideNoise = (3 * fn.varianceOffset + fn.varianceSlope * positive(mu)) / count * guideBlockFactor
                        let epsilon = kappa * guideNoise + Float.leastNormalMagnitude
                        let signalVarI = positive(varI - guideNoise)
                        let onePlusRho = 1 + signalVarI / (signalVarI + epsilon)
                        // All of this window's inputs are read before its outputs overwrite planes 3…14.
                        @inline(__always) func channel(_ c: Int) -> (a: V, b: V, variance: V, noise: V) {
                            let o = 3 + 4 * c
                            let pBar = load(o), fBar = load(o + 1)
                            let covariance = load(o + 2) - mu * pBar
                            let varP = positive(load(o + 3) - pBar * pBar)
                            // Noise of the averaged D_c (DarkRoomEstimate.variance, times the blocks'
                            // correlation factor) and the part it shares with the guide (both from F_c);
                            // the window mean's noise from the large-area factor.
                            let flashVariance = fn.variance(fBar), ambientVariance = an.variance(fBar - pBar)
                            let sharedNoise = flashVariance * flashBlock[c] / count
                            let vBar = sharedNoise + ambientVariance * ambientBlock[c] / count
                            let windowMeanNoise = (flashVariance * fn.areaFactor[c] + ambientVariance * an.areaFactor[c])
                                / (count * windowCount)
                            // The residual's spread about its expectation, √(2/|ω|) of it for independent
                            // blocks (correlated blocks spread a little more, 0.22 against 0.20 for
                            // bilinear red: kept at the white value, which counts a little more as misfit).
                            // Ridge toward a₀ = p̄/μ, with the guide's noise removed from both moments.
                            let a0 = positive(pBar / mu).replacingLanes(with: 0, where: .!(mu .> 0))
                            let ac = (covariance - sharedNoise + epsilon * a0) / (signalVarI + epsilon)
                            let residual = positive(varP - 2 * ac * covariance + ac * ac * varI)
                            let excess = positive(residual - vBar * excessAllowance)
                            let noise = windowMeanNoise * onePlusRho * onePlusRho
                            return (ac, pBar - ac * mu, noise + excess, noise)
                        }
                        let red = channel(0), green = channel(1), blue = channel(2)
                        let total = red.variance + green.variance + blue.variance
                        let weight = 1 / total.replacingLanes(with: Float.leastNormalMagnitude, where: total .< Float.leastNormalMagnitude)
                        @inline(__always) func put(_ c: Int, _ m: (a: V, b: V, variance: V, noise: V)) {
                            store(weight * m.a, 3 + 3 * c); store(weight * m.b, 4 + 3 * c)
                            store(weight * m.variance.fastSquareRoot, 5 + 3 * c)
                        }
                        put(0, red); put(1, green); put(2, blue)
                        store(weight, 12)
                        // w² (capped so that a box sum of 49 stays finite) and w·φ, φ the noise's share of
                        // the window's variance in the channel where it is smallest (1 where nothing is
                        // misfit): one share for the three channels must not credit a misfit channel
                        // with the others' clean noise.
                        store((weight * weight).replacingLanes(with: 1e36, where: weight .> 1e18), 13)
                        @inline(__always) func share(_ m: (a: V, b: V, variance: V, noise: V)) -> V {
                            let s = m.noise / m.variance
                            return s.replacingLanes(with: 1, where: .!(s .< 1))  // 0/0 (no variance): nothing misfit
                        }
                        let r = share(red), g = share(green), b = share(blue)
                        let rg = r.replacingLanes(with: g, where: g .< r)
                        store(weight * rg.replacingLanes(with: b, where: b .< rg), 14)
                        X += 8
                    }
                }
            }
            // 4. Weighted sums over the windows that contain each sample (normalized per pixel after the
            // upsampling, so that near an edge the better-fitting side's coefficients dominate).
            for k in 3...14 { box(k) }
            // 5. The overlap factor (`WindowOverlap`) into working plane 13 (model plane 10), from the
            // box means of w² and w·φ: the weights' concentration Σŵ² = mean(w²)/(mean(w)²·49) and the
            // noise share mean(w·φ)/mean(w). Windows centred within `r` of the border are clipped there
            // and nest, sharing more samples than `WindowOverlap` assumes: a sample one of whose
            // windows is clipped (within 2r of the border) gets no credit (Σŵ² = 1). Computed at the
            // samples and interpolated, not per pixel (the factor is smooth; a quarter of the work).
            let side = 2 * r + 1
            // The noise's correlation length in blocks, the longest of the channels and frames (the
            // side that overstates the variance).
            func length(_ n: FrameNoise) -> Float {
                let l = (n.areaFactor - n.blockFactor) / n.areaFactor
                return max(l.x, l.y, l.z)
            }
            let correlationLength = max(0, length(fn), length(an)) / Float(s)
            forEachRowBand(rowCount: lh) { rows in
                for Y in rows {
                    let rowInside = Y >= 2 * r && Y <= lh - 1 - 2 * r
                    let start = Y * lw
                    let weight = at(12) + start, squares = at(13) + start, shares = at(14) + start
                    for X in 0..<lw {
                        let inside = rowInside && X >= 2 * r && X <= lw - 1 - 2 * r
                        let mean = weight[X]
                        let valid = mean > 0 && mean.isFinite
                        squares[X] = valid && inside ? squares[X] / (mean * mean * Float(side * side)) : 1
                        shares[X] = valid ? shares[X] / mean : 1
                    }
                    // The factor in place of the concentration, eight at a time, the row's end one by one.
                    let full = lw / 8 * 8, sideLength = Float(side)
                    for x in stride(from: 0, to: full, by: 8) {
                        let factor = WindowOverlap.noiseFactor(
                            concentration: UnsafeRawPointer(squares + x).loadUnaligned(as: SIMD8<Float>.self),
                            noiseShare: UnsafeRawPointer(shares + x).loadUnaligned(as: SIMD8<Float>.self), side: sideLength,
                            correlationLength: correlationLength)
                        UnsafeMutableRawPointer(squares + x).storeBytes(of: factor, as: SIMD8<Float>.self)
                    }
                    for x in full..<lw {
                        squares[x] = WindowOverlap.noiseFactor(concentration: SIMD8(repeating: squares[x]),
                                                               noiseShare: SIMD8(repeating: shares[x]), side: sideLength,
                                                               correlationLength: correlationLength)[0]
                    }
                }
            }
        }}}}
        return GuidedModel(width: w, height: h, subsampling: s, planes: planes)
    }
}

/// The low-resolution result of `NoiseReduction`, at `1/subsampling` resolution: per channel c the
/// window-weighted sums `Σw·a_c`, `Σw·b_c`, `Σw·sd_c` (sd the standard deviation of the model's
/// independent error), the weight `Σw`, and the factor on the noise part of `sd²` for the windows'
/// overlap (`WindowOverlap`). At full resolution each is interpolated bilinearly (pixel centres
/// aligned); the weighted sums are divided by the interpolated weight.
public struct GuidedModel: Sendable {
    /// Full-resolution size.
    public let width: Int, height: Int
    /// Block side.
    public let subsampling: Int
    /// Low-resolution size.
    public let lowWidth: Int, lowHeight: Int
    /// `planeCount` planes of `lowWidth × lowHeight`: for c in 0..<3, `Σw·a_c` at 3c, `Σw·b_c` at
    /// 3c+1, `Σw·sd_c` at 3c+2; `Σw` at 9, the overlap factor at 10 (sums as box means: a common
    /// factor, the window count); plane 11 is the noise reduction's working space.
    public let planes: [Float]
    /// Number of planes stored.
    public static let planeCount = 12
    /// Number of planes evaluated at full resolution (`verticalRow`).
    public static let evaluatedPlaneCount = 11

    /// A model for a `width × height` frame from its planes.
    public init(width: Int, height: Int, subsampling: Int, planes: [Float]) {
        self.width = width; self.height = height; self.subsampling = subsampling
        lowWidth = (width + subsampling - 1) / subsampling
        lowHeight = (height + subsampling - 1) / subsampling
        precondition(planes.count >= Self.planeCount * lowWidth * lowHeight)
        self.planes = planes
    }

    /// Bilinear taps of full-resolution coordinate `i` (pixel centre `i + 0.5`) on a low-resolution
    /// axis of `count` samples: the two indices and the weight of the second.
    @inline(__always) @inlinable static func taps(_ i: Int, subsampling s: Int, count: Int) -> (Int, Int, Float) {
        let l = min(Float(count - 1), max(0, (Float(i) + 0.5) / Float(s) - 0.5))
        let i0 = min(Int(l), max(0, count - 2))
        return (i0, min(count - 1, i0 + 1), l - Float(i0))
    }

    /// The same model on blocks twice as large (`subsampling` × 2): each evaluated plane averaged over
    /// 2 × 2 samples (over the samples there are at an odd far edge, whose centre is then one pixel
    /// off, half an old block). For the widest windows: a box sum over 25 samples changes little
    /// within two of them, and the weighted sums and their weight are averaged alike, so the
    /// interpolated ratios stay weighted means of the windows' coefficients. Plane 11 is left unset.
    public func halved() -> GuidedModel {
        let lw = lowWidth, lh = lowHeight, ln = lw * lh
        let hw = (lw + 1) / 2, hh = (lh + 1) / 2, hn = hw * hh  // ⌈⌈w/s⌉/2⌉ = ⌈w/2s⌉: the halved model's own size
        var out = uninitializedLargeArray(Float.self, count: Self.planeCount * hn)
        out.withUnsafeMutableBufferPointer { outBuffer in
        planes.withUnsafeBufferPointer { inBuffer in
            let target = SharedMutableBuffer(outBuffer), source = UncheckedSendableBox(inBuffer)
            forEachRowBand(rowCount: hh) { rows in
                let p = source.value.baseAddress!
                for Y in rows {
                    let y0 = 2 * Y, y1 = min(lh - 1, y0 + 1)  // (a last odd row twice)
                    for j in 0..<Self.evaluatedPlaneCount {
                        let top = p + j * ln + y0 * lw, bottom = p + j * ln + y1 * lw, o = target.base + j * hn + Y * hw
                        for X in 0..<(lw / 2) {
                            o[X] = 0.25 * ((top[2 * X] + top[2 * X + 1]) + (bottom[2 * X] + bottom[2 * X + 1]))
                        }
                        if lw % 2 == 1 { o[hw - 1] = 0.5 * (top[lw - 1] + bottom[lw - 1]) }
                    }
                }
            }
        }}
        return GuidedModel(width: width, height: height, subsampling: 2 * subsampling, planes: out)
    }

    /// Fills `row` (`evaluatedPlaneCount` × `lowWidth`) with the planes interpolated vertically at full-resolution row `y`.
    @inlinable func verticalRow(_ y: Int, into row: UnsafeMutablePointer<Float>, planes p: UnsafePointer<Float>) {
        let (y0, y1, t) = Self.taps(y, subsampling: subsampling, count: lowHeight)
        let ln = lowWidth * lowHeight
        for j in 0..<Self.evaluatedPlaneCount {
            let a = p + j * ln + y0 * lowWidth, b = p + j * ln + y1 * lowWidth, o = row + j * lowWidth
            for x in 0..<lowWidth { o[x] = a[x] + t * (b[x] - a[x]) }
        }
    }

    /// Row `y` of the ten coefficients at full resolution into `coefficients` (rows `stride` ≥ `width`
    /// apart: ā, b̄, sd per channel, the overlap factor) from `planes` (this model's): vertical
    /// interpolation into `row` (`evaluatedPlaneCount × lowWidth` of scratch, `verticalRow`), then
    /// horizontal interpolation of every column (`interpolateColumns`).
    func interpolateRow(_ y: Int, planes: UnsafePointer<Float>,
                        taps: (x0: UnsafePointer<Int>, x1: UnsafePointer<Int>, t: UnsafePointer<Float>),
                        row: UnsafeMutablePointer<Float>, into coefficients: UnsafeMutablePointer<Float>, stride padded: Int) {
        verticalRow(y, into: row, planes: planes)
        _ = interpolateColumns(0..<width, row: row, taps: taps, into: coefficients, stride: padded)
    }

    /// Columns `pixels` of the ten coefficients (as `interpolateRow`) from a row that `verticalRow`
    /// interpolated vertically: horizontal interpolation (`taps`: `taps(x, …)` of every column) and
    /// normalization by the interpolated weight. With 2×2 blocks, pixel 2k takes ¼ of sample k−1
    /// and ¾ of k, pixel 2k+1 ¾ of k and ¼ of k+1: sixteen pixels from three shifted loads of eight
    /// samples. With 4×4 blocks (the halved wide models), pixels 4k…4k+3 take ⅜, ⅛, 0, 0 of sample
    /// k−1, ⅝, ⅞, ⅞, ⅝ of k and 0, 0, ⅛, ⅜ of k+1: sixteen pixels from three loads of four. Other
    /// block sizes, and the row's ends, go pixel by pixel. The vector loop's groups of sixteen
    /// pixels that meet `pixels` are written whole, so a pixel's value does not depend on how the
    /// row is cut into pieces. Returns the end of the columns written from `pixels.lowerBound` on
    /// (at least `pixels.upperBound`): a caller going left to right (the confidence pass, which
    /// evaluates the wide models only where a pixel is unsure) continues from there.
    func interpolateColumns(_ pixels: Range<Int>, row: UnsafePointer<Float>,
                            taps: (x0: UnsafePointer<Int>, x1: UnsafePointer<Int>, t: UnsafePointer<Float>),
                            into coefficients: UnsafeMutablePointer<Float>, stride padded: Int) -> Int {
        let lw = lowWidth, s = subsampling
        let pixels = pixels.clamped(to: 0..<width)
        // Sixteen pixels a step, from sample 1 while the loads stay in the row: group g is pixels
        // s + 16g ..< s + 16(g + 1), from sample k = 1 + g·step.
        let step = 16 / max(1, s), kEnd = 1 + (lw - 2) / step * step
        let vectorized = (s == 2 || s == 4) && lw >= 2 + step
        let covered = vectorized ? s..<(s * kEnd) : 0..<0
        /// The vector loop over `interpolated(plane, k)` (the sixteen pixels from sample k on) for groups `groups`.
        @inline(__always) func vectorLoop(_ groups: Range<Int>, _ interpolated: (Int, Int) -> SIMD16<Float>) {
            for g in groups {
                let k = 1 + g * step
                let inverseWeight = 1 / interpolated(9, k)
                @inline(__always) func put(_ v: SIMD16<Float>, _ j: Int) {
                    UnsafeMutableRawPointer(coefficients + j * padded + s * k).storeBytes(of: v, as: SIMD16<Float>.self)
                }
                for j in 0..<9 { put(interpolated(j, k) * inverseWeight, j) }
                put(interpolated(10, k), 9)
            }
        }
        var written = pixels.upperBound
        let inside = pixels.clamped(to: covered)
        if !inside.isEmpty {
            let groups = ((inside.lowerBound - s) / 16)..<((inside.upperBound - s + 15) / 16)
            written = max(written, s + 16 * groups.upperBound)
            if s == 2 {
                vectorLoop(groups) { j, k in
                    let p = UnsafeRawPointer(row + j * lw + k)
                    let before = p.advanced(by: -4).loadUnaligned(as: SIMD8<Float>.self)
                    let at = p.loadUnaligned(as: SIMD8<Float>.self)
                    let after = p.advanced(by: 4).loadUnaligned(as: SIMD8<Float>.self)
                    var v = SIMD16<Float>()
                    v.evenHalf = 0.25 * before + 0.75 * at
                    v.oddHalf = 0.75 * at + 0.25 * after
                    return v
                }
            } else {
                vectorLoop(groups) { j, k in
                    let p = UnsafeRawPointer(row + j * lw + k)
                    let before = p.advanced(by: -4).loadUnaligned(as: SIMD4<Float>.self)
                    let at = p.loadUnaligned(as: SIMD4<Float>.self)
                    let after = p.advanced(by: 4).loadUnaligned(as: SIMD4<Float>.self)
                    // Pixel 4i + q from lane i of the q-th vector: interleaved in two steps.
                    var even = SIMD8<Float>(), odd = SIMD8<Float>(), v = SIMD16<Float>()
                    even.evenHalf = 0.375 * before + 0.625 * at
                    even.oddHalf = 0.875 * at + 0.125 * after
                    odd.evenHalf = 0.125 * before + 0.875 * at
                    odd.oddHalf = 0.625 * at + 0.375 * after
                    v.evenHalf = even
                    v.oddHalf = odd
                    return v
                }
            }
        }
        // The pixels the vector loop does not cover (the row's ends, or all of it).
        @inline(__always) func scalarPixels(_ range: Range<Int>) {
            for x in range {
                let l0 = taps.x0[x], l1 = taps.x1[x], t = taps.t[x]
                @inline(__always) func sample(_ j: Int) -> Float {
                    let a = row[j * lw + l0]
                    return a + t * (row[j * lw + l1] - a)
                }
                let inverseWeight = 1 / sample(9)
                for j in 0..<9 { coefficients[j * padded + x] = sample(j) * inverseWeight }
                coefficients[9 * padded + x] = sample(10)
            }
        }
        if covered.isEmpty {
            scalarPixels(pixels)
        } else {
            scalarPixels(pixels.clamped(to: 0..<covered.lowerBound))
            scalarPixels(pixels.clamped(to: covered.upperBound..<width))
        }
        return written
    }
}

/// How much of the noise variance of a pixel's model survives the averaging of the overlapping
/// windows that contain it (`NoiseReduction`), as a factor on the fully correlated bound
/// `(Σ ŵ_k·sd_k)²`.
///
/// Two windows of side `W` whose centres are `d` apart share `(W − |d_x|)(W − |d_y|)` of their `W²`
/// samples, so the noise of their means is correlated by `ρ(d) = (1 − |d_x|/W)(1 − |d_y|/W)`. For
/// window centres spread evenly over `a` consecutive positions on an axis, the mean of `1 − |d|/W`
/// over all pairs is `f(a) = 1 − (a² − 1)/(3aW)` (the mean distance of two of them is `(a² − 1)/(3a)`):
/// 1 for one window, `(2W² + 1)/(3W²)` (0.673 at W = 7) for all `W`. The variance of the weighted
/// mean of equal windows is that mean correlation times one window's variance. Only the weights'
/// concentration `Σŵ² = 1/N_eff` is known at each sample, not their shape: `a = b = √N_eff` is taken, which
/// overstates the variance when the windows lie along a line (an edge; e.g. 0.80 for `1 × 7`
/// windows whose true factor is 0.673) and never understates it for evenly weighted rectangles;
/// for tapered weights it can understate it by a few percent (a review's search found up to 6 %
/// for disk-shaped weights). The factor is computed at the model's samples and interpolated
/// between them; near the frame's border (where clipped windows nest) it is 1.
/// The misfit part of a window's variance (`excess`) is common to overlapping windows and is kept:
/// with `φ̄` the noise's weighted share (of the channel where it is smallest), the factor is
/// `1 − φ̄·(1 − f(a)²)`.
///
/// With spatially correlated noise (demosaiced frames; `NoiseCorrelation`) two windows `δ` apart are
/// correlated by `(W − δ)/(W − ℓ)` for `δ ≥ ℓ` (at most 1), where `ℓ = Σρ(d)|d_x| / Σρ(d)` is the
/// noise's correlation length on an axis, `(A − B)/A` pixels from the area and 2 × 2 factors to first
/// order: the overlap plus the correlation reaching across its edge. For the mean distance
/// `m = (a² − 1)/(3a)` that gives `f = 1 − (m − ℓ)/(W − ℓ)` (ℓ in blocks); ℓ = 0 is the white case.
public enum WindowOverlap {
    /// The factor for weights of concentration `concentration` (`Σŵ²`, in [1/W², 1]) whose variance is
    /// the share `noiseShare` noise, for windows of side `side`.
    @inline(always) @inlinable
    public static func noiseFactor(concentration: SIMD8<Float>, noiseShare: SIMD8<Float>, side: Float,
                                   correlationLength: Float = 0) -> SIMD8<Float> {
        let one = SIMD8<Float>(repeating: 1)
        // √N_eff per axis, within [1, W] (NaN → 1: no credit).
        var a = concentration.fastInverseSquareRoot(newtonSteps: 2)
        a = a.replacingLanes(with: one, where: .!(a .> one))
        a = a.replacingLanes(with: SIMD8(repeating: side), where: a .> side)
        // Mean distance m = (a² − 1)/(3a); correlation 1 − (m − ℓ)/(W − ℓ), at most 1.
        let l = min(max(0, correlationLength), 0.5 * side)
        let meanDistance: SIMD8<Float> = (a - 1 / a) * Float(1.0 / 3.0)
        var f: SIMD8<Float> = 1 - (meanDistance - l) * (1 / (side - l))
        f = f.replacingLanes(with: one, where: f .> one)
        var share = noiseShare.replacingLanes(with: 0, where: .!(noiseShare .> 0))
        share = share.replacingLanes(with: one, where: share .> one)
        return 1 - share * (1 - f * f)
    }
}
