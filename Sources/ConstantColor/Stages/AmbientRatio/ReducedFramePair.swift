/// The flash frame `F` and the registered ambient frame `A = F − D`, per channel and summed over
/// the channels (flicker and a wrong exposure scale every channel alike), averaged over square
/// blocks so that about 200 rows remain: small enough that a few pixels of hand-shake blur and the
/// pixel noise shrink, large enough to resolve flicker bands and penumbrae.
struct ReducedFramePair {
    /// Size of the reduced image, the block side in full-resolution pixels and the full frame's
    /// height and width (along this pair's rows and columns: exchanged by `transposed`).
    let width: Int, height: Int, block: Int, fullHeight: Int, fullWidth: Int
    /// Full-resolution pixels from the frame's top left corner to the first block's, on both axes.
    let origin: Int
    /// Block means of `F_r + F_g + F_b` and `A_r + A_g + A_b`, row-major.
    var flash: [Double], ambient: [Double]
    /// Noise variance of those block means (noise models of the two frames).
    var flashVariance: [Double], ambientVariance: [Double]
    /// Block means per channel: `[c][j]`.
    var flashChannels: [[Double]], ambientChannels: [[Double]]
    /// Noise variances of the per-channel block means.
    var flashChannelVariance: [[Double]], ambientChannelVariance: [[Double]]
    /// Whether every pixel of the block is unflagged (no clipping, an ambient sample).
    var valid: [Bool]
    /// Per axis, the full-resolution pixels² by which the ambient frame's resampling blurred it
    /// (`AmbientRatioEstimate.interpolationVariance`).
    let interpolationVariance: SIMD2<Double>
    /// The two frames' noise models (their spatial correlation sets a block mean's variance).
    let flashNoise: FrameNoise, ambientNoise: FrameNoise

    /// How much of the ambient frame's noise variance a block mean keeps after bilinear resampling.
    /// Along an axis the k resampled samples of a block weigh the source pixels 1, except the two at
    /// its ends, t and 1 − t: Σweight² = k − 2t(1 − t), against k for independent pixels — a factor
    /// 1 − 2v/k with v the mean t(1 − t). At k = 1 or 2 (small frames) that is 0.7–0.85 per pair,
    /// and the noise subtracted from the penumbrae's bend would otherwise be too large (r₀ high).
    /// With spatially correlated noise (`FrameNoise.isIndependent` false) the resampling averages
    /// samples that already share their noise and removes less: no reduction is taken (the side that
    /// does not understate the variance).
    static func resampledNoiseFactor(block k: Int, interpolationVariance v: SIMD2<Double>, noise: FrameNoise) -> Double {
        guard noise.isIndependent else { return 1 }
        return (1 - 2 * v.x / Double(k)) * (1 - 2 * v.y / Double(k))
    }

    /// Rows the reduced image aims at.
    static let targetRows = 200

    /// Most cells the reduced image may hold: `targetRows` across the short side of a 6 : 1 frame
    /// (a panorama). A frame whose short side is under 2 × `targetRows` is reduced by fewer pixels
    /// than its long side asks for, so a long strip kept nearly all of its pixels: 8000 × 256 (k = 1)
    /// gave 2 million cells against 54 000 at 12 MP, and stage 4a took 18 s and 1.5 GB for it (a
    /// probe, session 43). Blocks grow until the cells fit, as they do for any frame that large, but
    /// not below `minimumShortSideCells` across the short side.
    static let maximumCells = 6 * targetRows * targetRows

    /// Fewest cells across the short side that larger blocks may leave: the banding fit and the edges
    /// need a line's worth of cells (a 40 × 12 000 strip under flicker reduced to 20 columns found no
    /// banding and no edge; at 40 it finds both).
    static let minimumShortSideCells = 32

    /// The block side for a `width × height` frame: `targetRows` across its short side, larger where
    /// the cells would exceed `maximumCells` (down to `minimumShortSideCells` across the short side).
    static func blockSide(width w: Int, height h: Int) -> Int {
        var k = max(1, min(w, h) / targetRows)
        let largest = max(k, min(w, h) / minimumShortSideCells)
        while k < largest && (w / k) * (h / k) > maximumCells { k += 1 }
        return k
    }

    /// Frame fraction t = (y + ½)/height of the centre of reduced row `row` in the full frame.
    func frameFraction(row: Int) -> Double { (Double(origin + row * block) + Double(block) / 2) / Double(fullHeight) }

    /// The pair averaged over 2×2 blocks again (valid where all four are): the edge measurement
    /// wants less noise than the row fit, and its penumbrae stay several pixels wide. `offset`
    /// (0 or 1) starts the new blocks that many blocks of this pair right and down: the same
    /// frame sampled on a grid shifted by half a new block (`RelativeBlur` averages the two phases).
    func halved(offset: Int = 0) -> ReducedFramePair {
        precondition(offset == 0 || offset == 1)
        let hw = (width - offset) / 2, hh = (height - offset) / 2
        var out = ReducedFramePair(width: hw, height: hh, block: block * 2, fullHeight: fullHeight, fullWidth: fullWidth,
                                   origin: origin + offset * block, interpolationVariance: interpolationVariance,
                                   flashNoise: flashNoise, ambientNoise: ambientNoise)
        let resampled = Self.resampledNoiseFactor(block: 2 * block, interpolationVariance: interpolationVariance, noise: ambientNoise)
            / Self.resampledNoiseFactor(block: block, interpolationVariance: interpolationVariance, noise: ambientNoise)
        // Four blocks averaged are not four independent ones when the pixels' noise is correlated:
        // the factor of the new block side over the old one's, per channel.
        let flashGrowth = SIMD3<Double>(flashNoise.blockVarianceFactor(side: 2 * block) / flashNoise.blockVarianceFactor(side: block))
        let ambientGrowth = SIMD3<Double>(ambientNoise.blockVarianceFactor(side: 2 * block) / ambientNoise.blockVarianceFactor(side: block))
        for y in 0..<hh {
            for x in 0..<hw {
                let j = (2 * y + offset) * width + 2 * x + offset, o = y * hw + x
                let a = j, b = j + 1, c = j + width, d = j + width + 1
                func mean(_ v: [Double]) -> Double { (v[a] + v[b] + v[c] + v[d]) / 4 }
                func meanVariance(_ v: [Double]) -> Double { (v[a] + v[b] + v[c] + v[d]) / 16 }
                out.flash[o] = mean(flash); out.ambient[o] = mean(ambient)
                out.valid[o] = valid[a] && valid[b] && valid[c] && valid[d]
                var flashSum = 0.0, ambientSum = 0.0
                for ch in 0..<3 {
                    out.flashChannels[ch][o] = mean(flashChannels[ch])
                    out.ambientChannels[ch][o] = mean(ambientChannels[ch])
                    out.flashChannelVariance[ch][o] = meanVariance(flashChannelVariance[ch]) * flashGrowth[ch]
                    out.ambientChannelVariance[ch][o] = meanVariance(ambientChannelVariance[ch]) * resampled * ambientGrowth[ch]
                    flashSum += out.flashChannelVariance[ch][o]; ambientSum += out.ambientChannelVariance[ch][o]
                }
                out.flashVariance[o] = flashSum; out.ambientVariance[o] = ambientSum
            }
        }
        return out
    }

    private init(width: Int, height: Int, block: Int, fullHeight: Int, fullWidth: Int, origin: Int,
                 interpolationVariance: SIMD2<Double>, flashNoise: FrameNoise, ambientNoise: FrameNoise) {
        self.width = width; self.height = height; self.block = block; self.fullHeight = fullHeight; self.fullWidth = fullWidth
        self.origin = origin
        self.interpolationVariance = interpolationVariance
        self.flashNoise = flashNoise; self.ambientNoise = ambientNoise
        let n = width * height
        flash = [Double](repeating: 0, count: n); ambient = flash; flashVariance = flash; ambientVariance = flash
        valid = [Bool](repeating: false, count: n)
        flashChannels = [flash, flash, flash]; ambientChannels = flashChannels
        flashChannelVariance = flashChannels; ambientChannelVariance = flashChannels
    }

    /// Block means of the flash frame and `A = F − D`; `interpolationVariance` as in the property.
    init(flash frame: LinearFrame, darkRoom: DarkRoomEstimate, interpolationVariance: SIMD2<Double>) {
        let w = frame.image.width, h = frame.image.height, n = w * h
        let k = Self.blockSide(width: w, height: h)
        let rw = w / k, rh = h / k
        width = rw; height = rh; block = k; fullHeight = h; fullWidth = w; origin = 0
        self.interpolationVariance = interpolationVariance
        flashNoise = darkRoom.flashNoise; ambientNoise = darkRoom.ambientNoise
        let m = rw * rh
        // Planes: F_r, F_g, F_b, A_r, A_g, A_b (block means).
        var means = [Double](repeating: 0, count: 6 * m)
        var ok = [Bool](repeating: false, count: m)
        let inv = 1 / Double(k * k)
        frame.image.samples.withUnsafeBufferPointer { fb in
        darkRoom.difference.samples.withUnsafeBufferPointer { db in
        darkRoom.flags.withUnsafeBufferPointer { flb in
        means.withUnsafeMutableBufferPointer { mo in
        ok.withUnsafeMutableBufferPointer { oko in
            let inputs = UncheckedSendableBox((fb, db, flb))
            let outs = (SharedMutableBuffer(mo), SharedMutableBuffer(oko))
            forEachRowBand(rowCount: rh, minimumRowsPerBand: 4) { rows in
                let (fp, dp, flp) = inputs.value
                // Column sums over the block's k rows (contiguous, vectorizable adds), then sums of k
                // columns per block: Float sums of at most k² values.
                let span = rw * k
                let columns = UnsafeMutablePointer<Float>.allocate(capacity: 6 * span)
                let columnFlags = UnsafeMutablePointer<UInt8>.allocate(capacity: span)
                defer { columns.deallocate(); columnFlags.deallocate() }
                for ry in rows {
                    columns.initialize(repeating: 0, count: 6 * span)
                    columnFlags.initialize(repeating: 0, count: span)
                    for y in (ry * k)..<(ry * k + k) {
                        for c in 0..<3 {
                            let f = fp.baseAddress! + c * n + y * w, d = dp.baseAddress! + c * n + y * w
                            let cf = columns + c * span, cd = columns + (c + 3) * span
                            for x in 0..<span { cf[x] += f[x]; cd[x] += d[x] }
                        }
                        let fl = flp.baseAddress! + y * w
                        for x in 0..<span { columnFlags[x] |= fl[x] }
                    }
                    for rx in 0..<rw {
                        let j = ry * rw + rx, x0 = rx * k
                        var flagged: UInt8 = 0
                        for x in x0..<(x0 + k) { flagged |= columnFlags[x] }
                        outs.1[j] = flagged == 0
                        for c in 0..<3 {
                            var sf: Float = 0, sd: Float = 0
                            let cf = columns + c * span + x0, cd = columns + (c + 3) * span + x0
                            for x in 0..<k { sf += cf[x]; sd += cd[x] }
                            outs.0[c * m + j] = Double(sf) * inv
                            outs.0[(c + 3) * m + j] = Double(sf - sd) * inv
                        }
                    }
                }
            }
        }}}}}
        let fn = darkRoom.flashNoise, an = darkRoom.ambientNoise
        func plane(_ c: Int) -> [Double] { Array(means[(c * m)..<((c + 1) * m)]) }
        // σ²(v) = offset + slope·v per pixel; a block mean divides by k² and multiplies by the noise's
        // spatial correlation (`FrameNoise.blockVarianceFactor`).
        func variance(_ v: [Double], _ noise: FrameNoise, channel c: Int) -> [Double] {
            let correlation = Double(noise.blockVarianceFactor(side: k)[c])
            return v.map { (Double(noise.varianceOffset) + Double(noise.varianceSlope) * max(0, $0)) * inv * correlation }
        }
        let flashMeans = (0..<3).map(plane), ambientMeans = (3..<6).map(plane)
        flashChannels = flashMeans; ambientChannels = ambientMeans
        flashChannelVariance = (0..<3).map { variance(flashMeans[$0], fn, channel: $0) }
        let resampled = Self.resampledNoiseFactor(block: k, interpolationVariance: interpolationVariance, noise: darkRoom.ambientNoise)
        ambientChannelVariance = (0..<3).map { variance(ambientMeans[$0], an, channel: $0).map { $0 * resampled } }
        var f = [Double](repeating: 0, count: m), a = f, vf = f, va = f
        for c in 0..<3 {
            for j in 0..<m {
                f[j] += flashChannels[c][j]; a[j] += ambientChannels[c][j]
                vf[j] += flashChannelVariance[c][j]; va[j] += ambientChannelVariance[c][j]
            }
        }
        self.flash = f; ambient = a; flashVariance = vf; ambientVariance = va; valid = ok
    }

    /// The pair turned about its diagonal: rows and columns exchanged, in the planes, the sizes and
    /// the resampling's blur per axis. Stage 4a's row analyses (`RowBandingFit`, the edges' bands of
    /// rows) then read the frame's columns: where the sensor read the frame out column by column — a
    /// portrait capture whose raw converter turned the pixels upright — a flickering light's bands
    /// run down the columns (`AmbientRatioEstimate.readoutAxis`). The noise models are the same on
    /// both axes. Transposing twice gives the pair back.
    func transposed() -> ReducedFramePair {
        var out = ReducedFramePair(width: height, height: width, block: block, fullHeight: fullWidth, fullWidth: fullHeight,
                                   origin: origin,
                                   interpolationVariance: SIMD2(interpolationVariance.y, interpolationVariance.x),
                                   flashNoise: flashNoise, ambientNoise: ambientNoise)
        func turned<T>(_ plane: [T]) -> [T] {
            var o = plane
            for y in 0..<height { for x in 0..<width { o[x * height + y] = plane[y * width + x] } }
            return o
        }
        out.flash = turned(flash); out.ambient = turned(ambient)
        out.flashVariance = turned(flashVariance); out.ambientVariance = turned(ambientVariance)
        out.flashChannels = flashChannels.map(turned); out.ambientChannels = ambientChannels.map(turned)
        out.flashChannelVariance = flashChannelVariance.map(turned); out.ambientChannelVariance = ambientChannelVariance.map(turned)
        out.valid = turned(valid)
        return out
    }

    /// The pair with the ambient frame's channel c multiplied by `k[c]` (sums and variances
    /// recomputed): the ambient frame as the flash frame's channel scales would have recorded it
    /// (`IlluminationEdgeRatio.ChannelScale`).
    func scalingAmbientChannels(_ k: SIMD3<Double>) -> ReducedFramePair {
        var out = self
        for c in 0..<3 {
            out.ambientChannels[c] = ambientChannels[c].map { $0 * k[c] }
            out.ambientChannelVariance[c] = ambientChannelVariance[c].map { $0 * k[c] * k[c] }
        }
        for j in ambient.indices {
            out.ambient[j] = (0..<3).reduce(0) { $0 + out.ambientChannels[$1][j] }
            out.ambientVariance[j] = (0..<3).reduce(0) { $0 + out.ambientChannelVariance[$1][j] }
        }
        return out
    }

    /// `F′ = F − Δ(y)·A` per channel and summed over the channels: the flash frame with the
    /// flicker banding `Δ` removed, which leaves `D + r₀·A`.
    func bandingFree(_ banding: [RowBanding]) -> (channels: [[Double]], sum: [Double]) {
        var channels = [[Double]](repeating: [Double](repeating: 0, count: width * height), count: 3)
        var sum = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            let t = frameFraction(row: y)
            let delta = banding.reduce(0) { $0 + $1.value(atFrameFraction: t) }
            for x in 0..<width {
                let j = y * width + x
                for c in 0..<3 { channels[c][j] = flashChannels[c][j] - delta * ambientChannels[c][j] }
                sum[j] = flash[j] - delta * ambient[j]
            }
        }
        return (channels, sum)
    }
}
