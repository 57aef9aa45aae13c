/// Box (moving-average) filter of a single plane: each output sample is the mean of the input over
/// the `(2r+1) × (2r+1)` window around it, clipped to the image (so the mean is over the samples that
/// exist). Two separable running-sum passes: O(1) per sample whatever the radius.
public enum BoxFilter {
    /// Filters `source` (`width × height`, row-major) into `destination`; `scratch` holds the
    /// horizontal pass. All three buffers have `width × height` samples; `destination` may be
    /// `source` (the horizontal pass has read all of it before the vertical pass writes), `scratch`
    /// must overlap neither.
    public static func mean(_ source: UnsafeBufferPointer<Float>, width w: Int, height h: Int, radius r: Int,
                            into destination: UnsafeMutableBufferPointer<Float>,
                            scratch: UnsafeMutableBufferPointer<Float>) {
        precondition(source.count >= w * h && destination.count >= w * h && scratch.count >= w * h && r >= 0)
        let src = UncheckedSendableBox(source)
        let tmp = SharedMutableBuffer(scratch), dst = SharedMutableBuffer(destination)
        // Horizontal sums (not yet divided), row by row.
        forEachRowBand(rowCount: h) { rows in
            let s = src.value
            for y in rows {
                let row = y * w
                var sum: Double = 0
                for x in 0..<min(w, r) { sum += Double(s[row + x]) }
                for x in 0..<w {
                    if x + r < w { sum += Double(s[row + x + r]) }
                    if x - r - 1 >= 0 { sum -= Double(s[row + x - r - 1]) }
                    tmp[row + x] = Float(sum)
                }
            }
        }
        // Vertical sums of the horizontal sums, divided by the window's sample count.
        forEachRowBand(rowCount: h) { rows in
            var column = [Double](repeating: 0, count: w)
            let y0 = rows.lowerBound
            // Rows y0-r-1 ..< y0+r, so that the first step (add y0+r, drop y0-r-1) leaves [y0-r, y0+r].
            for yy in max(0, y0 - r - 1)..<min(h, y0 + r) {
                for x in 0..<w { column[x] += Double(tmp[yy * w + x]) }
            }
            for y in rows {
                let add = y + r, drop = y - r - 1
                if add < h { for x in 0..<w { column[x] += Double(tmp[add * w + x]) } }
                if drop >= 0 { for x in 0..<w { column[x] -= Double(tmp[drop * w + x]) } }
                let rowsInWindow = min(h - 1, y + r) - max(0, y - r) + 1
                for x in 0..<w {
                    let colsInWindow = min(w - 1, x + r) - max(0, x - r) + 1
                    dst[y * w + x] = Float(column[x] / Double(rowsInWindow * colsInWindow))
                }
            }
        }
    }

    /// Convenience: the box mean of a row-major plane as a new array.
    public static func mean(_ plane: [Float], width: Int, height: Int, radius: Int) -> [Float] {
        var out = [Float](repeating: 0, count: width * height)
        var scratch = [Float](repeating: 0, count: width * height)
        plane.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                scratch.withUnsafeMutableBufferPointer { t in
                    mean(s, width: width, height: height, radius: radius, into: o, scratch: t)
                }
            }
        }
        return out
    }
}
