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

    /// The channel (0 R, 1 G, 2 B) the colour filter array records at column `x`, row `y`.
    @inlinable public func filterChannel(x: Int, y: Int) -> Int {
        switch self {
        case .bilinearRGGB: return (y & 1) + (x & 1)
        }
    }

    /// Mosaics and demosaics a 3-channel image in place: each pixel keeps its colour filter's channel
    /// (`filterChannel(x:y:)`), the two others are interpolated from the neighbours' recorded samples
    /// and rounded to the nearest integer (ties to even, so the half-DN means of two or four
    /// integers carry no bias). The input samples a pixel's filter does not record are ignored.
    ///
    /// Meant for integer data numbers 0…65535 (a rendered frame after noise, clip and rounding); a
    /// mean of such values stays in that range, so the result is again 16-bit data. One pass over
    /// the image in row bands, reading from a copy of the input. Needs at least 2 × 2 pixels.
    public func apply(to image: inout PlanarImage) {
        precondition(image.channelCount == 3, "demosaicing needs an RGB image")
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
}
