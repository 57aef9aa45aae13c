/// Box (moving-average) filter of a single plane: each output sample is the mean of the input over
/// the `(2r+1) × (2r+1)` window around it, clipped to the image (so the mean is over the samples that
/// exist). Two separable passes of direct sums: `2r+1` vectorizable adds per sample and pass, which
/// beats a running sum (a serial dependency chain) for the small radii the pipeline uses, and has
/// no drift.
public enum BoxFilter {
    /// Filters `source` (`width × height`, row-major) into `destination`; `scratch` holds the
    /// horizontal pass. All three buffers have `width × height` samples; `destination` may be
    /// `source` (the horizontal pass has read all of it before the vertical pass writes), `scratch`
    /// must overlap neither.
    public static func mean(_ source: UnsafeBufferPointer<Float>, width w: Int, height h: Int, radius r: Int,
                            into destination: UnsafeMutableBufferPointer<Float>,
                            scratch: UnsafeMutableBufferPointer<Float>) {
        precondition(source.count >= w * h && destination.count >= w * h && scratch.count >= w * h && r >= 0)
        guard w > 0, h > 0 else { return }
        let src = UncheckedSendableBox(source.baseAddress!)
        let tmp = SharedMutableBuffer(scratch), dst = SharedMutableBuffer(destination)
        // 1 / (number of columns in the window) per column.
        var inverseColumns = [Float](repeating: 0, count: w)
        for x in 0..<w { inverseColumns[x] = 1 / Float(min(w - 1, x + r) - max(0, x - r) + 1) }
        // Horizontal sums (not yet divided), row by row: tmp[x] = Σ_k s[x + k], k in −r…r, inside the row.
        forEachRowBand(rowCount: h) { rows in
            for y in rows {
                let s = src.value + y * w, t = tmp.base + y * w
                t.update(from: s, count: w)
                for k in 1...max(1, r) where k <= r {
                    if k < w {
                        addShifted(t, s + k, count: w - k)  // right neighbours
                        addShifted(t + k, s, count: w - k)  // left neighbours
                    }
                }
            }
        }
        // Vertical sums of the horizontal sums, divided by the window's sample count.
        inverseColumns.withUnsafeBufferPointer { inverseBuffer in
            let inverse = UncheckedSendableBox(inverseBuffer.baseAddress!)
            forEachRowBand(rowCount: h) { rows in
                for y in rows {
                    let y0 = max(0, y - r), y1 = min(h - 1, y + r)
                    let o = dst.base + y * w
                    o.update(from: tmp.base + y0 * w, count: w)
                    if y1 > y0 {
                        for yy in (y0 + 1)...y1 { addShifted(o, tmp.base + yy * w, count: w) }
                    }
                    let inverseRows = 1 / Float(y1 - y0 + 1)
                    var x = 0
                    while x + 8 <= w {
                        let v = UnsafeRawPointer(o + x).loadUnaligned(as: SIMD8<Float>.self)
                        let c = UnsafeRawPointer(inverse.value + x).loadUnaligned(as: SIMD8<Float>.self)
                        UnsafeMutableRawPointer(o + x).storeBytes(of: v * c * inverseRows, as: SIMD8<Float>.self)
                        x += 8
                    }
                    while x < w { o[x] *= inverse.value[x] * inverseRows; x += 1 }
                }
            }
        }
    }

    /// `target[x] += source[x]` for `x` in `0..<count`, eight at a time (the buffers may not overlap
    /// in a way that matters: each element is read before it is written, and target ≠ source here).
    @inline(__always) static func addShifted(_ target: UnsafeMutablePointer<Float>, _ source: UnsafePointer<Float>, count: Int) {
        var x = 0
        while x + 8 <= count {
            let a = UnsafeRawPointer(target + x).loadUnaligned(as: SIMD8<Float>.self)
            let b = UnsafeRawPointer(source + x).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(target + x).storeBytes(of: a + b, as: SIMD8<Float>.self)
            x += 8
        }
        while x < count { target[x] += source[x]; x += 1 }
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
