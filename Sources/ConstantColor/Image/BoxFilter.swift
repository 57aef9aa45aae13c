/// Box (moving-average) filter of a single plane: each output sample is the mean of the input over
/// the `(2r+1) × (2r+1)` window around it, clipped to the image (so the mean is over the samples that
/// exist). Two separable passes of direct sums: `2r+1` vectorizable adds per sample and pass, which
/// beats a running sum (a serial dependency chain) for the small radii the pipeline uses, and has
/// no drift (moments such as `mean(I²) − mean(I)²` cancel, so rounding error matters).
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
        // Each output is one sum of 2r+1 loads (shifted vectors in the interior), written once.
        forEachRowBand(rowCount: h) { rows in
            for y in rows {
                let s = src.value + y * w, t = tmp.base + y * w
                @inline(__always) func clipped(_ x: Int) -> Float {
                    var sum: Float = 0
                    for k in max(0, x - r)...min(w - 1, x + r) { sum += s[k] }
                    return sum
                }
                let interiorEnd = w - r  // x + r < w for x < interiorEnd
                var x = 0
                while x < min(r, w) { t[x] = clipped(x); x += 1 }
                while x + 8 <= interiorEnd {
                    var sum = UnsafeRawPointer(s + x - r).loadUnaligned(as: SIMD8<Float>.self)
                    for k in stride(from: 1 - r, through: r, by: 1) {
                        sum += UnsafeRawPointer(s + x + k).loadUnaligned(as: SIMD8<Float>.self)
                    }
                    UnsafeMutableRawPointer(t + x).storeBytes(of: sum, as: SIMD8<Float>.self)
                    x += 8
                }
                while x < w { t[x] = clipped(x); x += 1 }
            }
        }
        // Vertical sums of the horizontal sums, divided by the window's sample count: each output
        // vector is one sum over the window's rows (which stay in cache from row to row).
        inverseColumns.withUnsafeBufferPointer { inverseBuffer in
            let inverse = UncheckedSendableBox(inverseBuffer.baseAddress!)
            forEachRowBand(rowCount: h) { rows in
                for y in rows {
                    let y0 = max(0, y - r), y1 = min(h - 1, y + r)
                    let o = dst.base + y * w, first = tmp.base + y0 * w
                    let inverseRows = 1 / Float(y1 - y0 + 1)
                    var x = 0
                    while x + 8 <= w {
                        var sum = UnsafeRawPointer(first + x).loadUnaligned(as: SIMD8<Float>.self)
                        var row = first + w
                        for _ in y0..<y1 {
                            sum += UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<Float>.self)
                            row += w
                        }
                        let c = UnsafeRawPointer(inverse.value + x).loadUnaligned(as: SIMD8<Float>.self)
                        UnsafeMutableRawPointer(o + x).storeBytes(of: sum * c * inverseRows, as: SIMD8<Float>.self)
                        x += 8
                    }
                    while x < w {
                        var sum: Float = 0
                        for yy in y0...y1 { sum += tmp.base[yy * w + x] }
                        o[x] = sum * inverse.value[x] * inverseRows
                        x += 1
                    }
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
