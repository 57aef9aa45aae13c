import ConstantColor

/// How a rendered frame is turned into what a raw developer writes: the sensor behind a colour
/// filter array records one channel per pixel, and demosaicing interpolates the other two from the
/// neighbours, so the written frame's pixel noise is spatially correlated (`NoiseCorrelation`).
public enum Demosaic: String, Sendable, Equatable, CaseIterable {
    /// An RGGB Bayer mosaic ((0, 0) top-left: even row even column R, even row odd column G, odd
    /// row even column G, odd row odd column B) and bilinear interpolation (the baseline of Malvar,
    /// He & Cutler 2004, "High-quality linear interpolation for demosaicing of Bayer-patterned
    /// color images", ICASSP): a missing G is the mean of the 4 edge neighbours; a missing R or B
    /// at a G site the mean of the 2 neighbours in the row or column that has that colour; R at a
    /// B site (B at an R site) the mean of the 4 diagonal neighbours. Borders mirror the index
    /// (-1 → 1, w → w − 2), which keeps the mosaic's parity. Results are rounded to integer DN.
    case bilinearRGGB = "bilinear-rggb"
    /// The same mosaic and Malvar, He & Cutler's gradient-corrected linear interpolation (ICASSP
    /// 2004, the 5 × 5 kernels of their Fig. 2, in eighths): the bilinear estimate plus a fraction of
    /// the recorded channel's Laplacian at the pixel. A missing G at an R or B site is
    /// 4·centre + 2·(4 edge neighbours) − (4 samples two away in the row and column); R or B at a G
    /// site, from the row that has it, 5·centre + 4·(2 row neighbours) − (2 two away in the row)
    /// − (4 diagonals) + ½·(2 two away in the column) (from the column: the same transposed); R at a
    /// B site (B at an R site) 6·centre + 2·(4 diagonals) − 3/2·(4 two away in the row and column).
    /// Each kernel is symmetric, its taps on the wanted channel sum to 8 and those on the recorded
    /// one (the Laplacian) to 0, so constant and linear fields come through unchanged, each channel's own.
    /// Unlike bilinear, a pixel's interpolated channels share raw samples with its recorded one (the
    /// Laplacian term), and the negative lobes make neighbouring pixels' noise less correlated:
    /// another noise structure for the calibration (`NoiseCorrelation`) to measure. Borders mirror
    /// as bilinear's (-2 → 2, w + 1 → w − 3); results are rounded and clamped to 0…65535.
    case malvarRGGB = "malvar-rggb"

    /// The channel (0 R, 1 G, 2 B) the colour filter array records at column `x`, row `y` (both
    /// methods use the same RGGB mosaic).
    @inlinable public func filterChannel(x: Int, y: Int) -> Int {
        (y & 1) + (x & 1)
    }

    /// Mosaics and demosaics a 3-channel image in place: each pixel keeps its colour filter's channel
    /// (`filterChannel(x:y:)`), the two others are interpolated from the neighbours' recorded samples
    /// and rounded to the nearest integer (ties to even, so the half-DN means of two or four
    /// integers carry no bias). The input samples a pixel's filter does not record are ignored.
    ///
    /// Meant for integer data numbers 0…65535 (a rendered frame after noise, clip and rounding); a
    /// bilinear mean of such values stays in that range, a Malvar–He–Cutler value is clamped to it (its
    /// negative lobes can overshoot at edges), so the result is again 16-bit data. One pass over
    /// the image in row bands, reading from a copy of the input. Needs at least 2 × 2 pixels
    /// (bilinear) or 3 × 3 (Malvar–He–Cutler, whose kernels reach two pixels).
    public func apply(to image: inout PlanarImage) {
        precondition(image.channelCount == 3, "demosaicing needs an RGB image")
        switch self {
        case .bilinearRGGB: applyBilinear(to: &image)
        case .malvarRGGB: applyMalvar(to: &image)
        }
    }

    /// `apply` for `bilinearRGGB`.
    private func applyBilinear(to image: inout PlanarImage) {
        let w = image.width, h = image.height
        precondition(w >= 2 && h >= 2, "demosaicing needs at least 2 x 2 pixels")
        let plane = w * h
        // Neighbours are read while rows are written: `source` keeps the input (the write below
        // copies `image.samples` first, since its storage is shared with `source`).
        let source = image.samples
        source.withUnsafeBufferPointer { src in
            image.samples.withUnsafeMutableBufferPointer { buffer in
                let dst = SharedMutableBuffer(buffer)
                let s = src.baseAddress!
                forEachRowBand(rowCount: h, minimumRowsPerBand: 16) { rows in
                    for j in rows {
                        // Even rows: R G R G …; odd rows: G B G B …. `x` is the row's own colour
                        // (R or B), at columns of parity `p`; `y` is the other one (B or R).
                        let p = j & 1
                        let xc = p == 0 ? 0 : 2, yc = 2 - xc
                        let xs = s + xc * plane, gs = s + plane, ys = s + yc * plane
                        let xd = xc * plane, gd = plane, yd = yc * plane
                        let row = j * w
                        let up = (j == 0 ? 1 : j - 1) * w, down = (j == h - 1 ? h - 2 : j + 1) * w
                        for i in 0..<w {
                            let l = i == 0 ? 1 : i - 1, r = i == w - 1 ? w - 2 : i + 1
                            let k = row + i
                            if i & 1 == p {
                                // An R (or B) site: G from the 4 edge neighbours, B (or R) from the 4 diagonals.
                                dst[xd + k] = xs[k]
                                dst[gd + k] = (0.25 * (gs[up + i] + gs[down + i] + gs[row + l] + gs[row + r]))
                                    .rounded(.toNearestOrEven)
                                dst[yd + k] = (0.25 * (ys[up + l] + ys[up + r] + ys[down + l] + ys[down + r]))
                                    .rounded(.toNearestOrEven)
                            } else {
                                // A G site: the row's colour from its left and right neighbours, the
                                // other colour from the neighbours above and below.
                                dst[gd + k] = gs[k]
                                dst[xd + k] = (0.5 * (xs[row + l] + xs[row + r])).rounded(.toNearestOrEven)
                                dst[yd + k] = (0.5 * (ys[up + i] + ys[down + i])).rounded(.toNearestOrEven)
                            }
                        }
                    }
                }
            }
        }
    }

    /// `apply` for `malvarRGGB`: the mosaic's samples (each pixel's recorded channel) are gathered
    /// into one plane first, then every pixel's missing channels come from its 5 × 5 neighbourhood.
    private func applyMalvar(to image: inout PlanarImage) {
        let w = image.width, h = image.height
        precondition(w >= 3 && h >= 3, "Malvar-He-Cutler demosaicing needs at least 3 x 3 pixels")
        let plane = w * h
        var mosaic = [Float](repeating: 0, count: plane)
        for y in 0..<h {
            for x in 0..<w { mosaic[y * w + x] = image.samples[filterChannel(x: x, y: y) * plane + y * w + x] }
        }
        /// The mirrored index of `i` on an axis of `n` (parity kept).
        func mirror(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i }
        let columns = (-2..<(w + 2)).map { mirror($0, w) }
        mosaic.withUnsafeBufferPointer { m in
            image.samples.withUnsafeMutableBufferPointer { buffer in
                let out = SharedMutableBuffer(buffer)
                let source = UncheckedSendableBox(m)
                forEachRowBand(rowCount: h, minimumRowsPerBand: 16) { rows in
                    let m = source.value
                    var r = [Int](repeating: 0, count: 5)  // the five rows' offsets, mirrored
                    for y in rows {
                        for dy in -2...2 { r[dy + 2] = mirror(y + dy, h) * w }
                        for x in 0..<w {
                            /// The mosaic at offset (dx, dy).
                            @inline(__always) func at(_ dx: Int, _ dy: Int) -> Float { m[r[dy + 2] + columns[x + dx + 2]] }
                            let centre = at(0, 0)
                            let edges = at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1)
                            let diagonals = at(-1, -1) + at(1, -1) + at(-1, 1) + at(1, 1)
                            let rowTwo = at(-2, 0) + at(2, 0), columnTwo = at(0, -2) + at(0, 2)
                            let own = filterChannel(x: x, y: y)
                            var v = SIMD3<Float>()
                            v[own] = centre
                            if own == 1 {
                                // A G site: the row's colour (R in even rows, B in odd) and the column's.
                                let fromRow = (5 * centre + 4 * (at(-1, 0) + at(1, 0)) - rowTwo - diagonals + 0.5 * columnTwo) / 8
                                let fromColumn = (5 * centre + 4 * (at(0, -1) + at(0, 1)) - columnTwo - diagonals + 0.5 * rowTwo) / 8
                                v[0] = y & 1 == 0 ? fromRow : fromColumn
                                v[2] = y & 1 == 0 ? fromColumn : fromRow
                            } else {
                                v[1] = (4 * centre + 2 * edges - rowTwo - columnTwo) / 8
                                v[2 - own] = (6 * centre + 2 * diagonals - 1.5 * (rowTwo + columnTwo)) / 8
                            }
                            let k = y * w + x
                            for c in 0..<3 {
                                out[c * plane + k] = min(65535, max(0, v[c].rounded(.toNearestOrEven)))
                            }
                        }
                    }
                }
            }
        }
    }
}
