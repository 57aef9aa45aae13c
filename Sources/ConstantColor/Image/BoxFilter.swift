import Dispatch

/// Box (moving-average) filter of a single plane: each output sample is the mean of the input over
/// the `(2r+1) × (2r+1)` window around it, clipped to the image (so the mean is over the samples that
/// exist). Two separable passes. Horizontally, vectorizable sums of the window's own samples, which
/// beat a running sum (a serial dependency chain along the row) for the radii the pipeline uses (3, 6
/// and 12): directly for radii up to 3, in two levels above (`horizontalSums`). Vertically, direct sums for radius ≤ 3 and for windows clipped at the top or bottom, and block
/// sums in Double for whole windows above radius 3 (`mean(_:width:height:radius:into:)`). Neither subtracts, so no sum carries the rounding of rows
/// outside its window (moments such as `mean(I²) − mean(I)²` cancel, so rounding error matters: a
/// running sum, adding the row that enters and subtracting the one that leaves, kept the rounding
/// of a bright row for 2r rows below it and put 61 % of error into a window's variance just below a
/// 200:1 edge, in a float simulation), and the result does not depend on how the rows are split
/// into bands.
public enum BoxFilter {
    /// Filters `source` (`width × height`, row-major) into `destination` (both `width × height`
    /// samples); `destination` may be `source`.
    ///
    /// One pass per row band: each source row's horizontal sums go into a ring of `2r+1` rows, and
    /// each output row is the sum of the ring's rows (directly, or through the block sums), so the
    /// plane is read once and written once. In place, a band must not read rows that a neighbouring band has
    /// already overwritten: the horizontal sums of the `r` rows beyond each band's ends are taken
    /// first, before any band writes.
    public static func mean(_ source: UnsafeBufferPointer<Float>, width w: Int, height h: Int, radius r: Int,
                            into destination: UnsafeMutableBufferPointer<Float>) {
        // One band per core: each band takes the horizontal sums of the r rows beyond its ends again.
        mean(source, width: w, height: h, radius: r, into: destination, bands: rowBands(rowCount: h, bandsPerCore: 1))
    }

    /// The same over the given row bands (consecutive, covering the rows; tests choose them, so that
    /// band edges are exercised on any machine).
    static func mean(_ source: UnsafeBufferPointer<Float>, width w: Int, height h: Int, radius r: Int,
                     into destination: UnsafeMutableBufferPointer<Float>, bands: [Range<Int>]) {
        precondition(source.count >= w * h && destination.count >= w * h && r >= 0)
        guard w > 0, h > 0 else { return }
        let src = UncheckedSendableBox(source.baseAddress!)
        let dst = SharedMutableBuffer(destination)
        // 1 / (number of columns in the window) per column.
        var inverseColumns = [Float](repeating: 0, count: w)
        for x in 0..<w { inverseColumns[x] = 1 / Float(min(w - 1, x + r) - max(0, x - r) + 1) }
        // Horizontal sums of the rows just outside each band: r above, r below (band b's slots
        // [2r·b, 2r·b + r) above, [2r·b + r, 2r·(b+1)) below).
        let edgeRows = UnsafeMutablePointer<Float>.allocate(capacity: max(1, bands.count * 2 * r * w))
        let edgeScratch = UnsafeMutablePointer<Float>.allocate(capacity: w)  // (`horizontalSums`' runs)
        defer { edgeRows.deallocate(); edgeScratch.deallocate() }
        for (b, band) in bands.enumerated() {
            for k in 0..<r {
                let above = band.lowerBound - r + k, below = band.upperBound + k
                if above >= 0 { horizontalSums(src.value + above * w, width: w, radius: r, into: edgeRows + (2 * r * b + k) * w,
                                                scratch: edgeScratch) }
                if below < h { horizontalSums(src.value + below * w, width: w, radius: r, into: edgeRows + (2 * r * b + r + k) * w,
                                               scratch: edgeScratch) }
            }
        }
        let edges = UncheckedSendableBox(UnsafePointer(edgeRows))
        inverseColumns.withUnsafeBufferPointer { inverseBuffer in
            let inverse = UncheckedSendableBox(inverseBuffer.baseAddress!)
            withoutActuallyEscaping({ (b: Int) in
                // Wider windows (radius above 3) whole in the image: block sums (`blocked`, below).
                let blocked = r > 3, blockRows = 2 * r + 1
                let band = bands[b], ringRows = 2 * r + 1
                let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringRows * w)
                let runs = UnsafeMutablePointer<Float>.allocate(capacity: w)  // (`horizontalSums`' scratch)
                // Suffix sums of the block holding y − r (from y − r on) and the prefix sum of the
                // next block (through row `prefixThrough`), in Double.
                let suffix = UnsafeMutablePointer<Double>.allocate(capacity: blocked ? blockRows * w : 0)
                let prefix = UnsafeMutablePointer<Double>.allocate(capacity: blocked ? w : 0)
                var suffixBlock = -1, prefixThrough = -1
                defer { ring.deallocate(); runs.deallocate(); suffix.deallocate(); prefix.deallocate() }
                @inline(__always) func slot(_ yy: Int) -> UnsafeMutablePointer<Float> { ring + (yy % ringRows) * w }
                /// Puts row `yy`'s horizontal sums into the ring: from the band's own rows (not yet
                /// overwritten: output row y is written after rows up to y + r were read) or the edges.
                func fill(_ yy: Int) {
                    if yy < band.lowerBound {
                        slot(yy).update(from: edges.value + (2 * r * b + yy - (band.lowerBound - r)) * w, count: w)
                    } else if yy >= band.upperBound {
                        slot(yy).update(from: edges.value + (2 * r * b + r + yy - band.upperBound) * w, count: w)
                    } else {
                        horizontalSums(src.value + yy * w, width: w, radius: r, into: slot(yy), scratch: runs)
                    }
                }
                for yy in max(0, band.lowerBound - r)..<min(h, band.lowerBound + r) { fill(yy) }
                let rows = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: ringRows)
                defer { rows.deallocate() }
                for y in band {
                    if y + r < h { fill(y + r) }
                    let y0 = max(0, y - r), y1 = min(h - 1, y + r), count = y1 - y0 + 1
                    for k in 0..<count { rows[k] = UnsafePointer(slot(y0 + k)) }  // in row order
                    let o = dst.base + y * w
                    let inverseRows = 1 / Float(count)
                    var x = 0
                    @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
                        UnsafeRawPointer(p + x).loadUnaligned(as: SIMD8<Float>.self)
                    }
                    @inline(__always) func put(_ sum: SIMD8<Float>) {
                        let c = UnsafeRawPointer(inverse.value + x).loadUnaligned(as: SIMD8<Float>.self)
                        UnsafeMutableRawPointer(o + x).storeBytes(of: sum * c * inverseRows, as: SIMD8<Float>.self)
                    }
                    // A wide window whole in the image, by block sums (van Herk 1992, Gil & Werman 1993:
                    // rows cut into blocks of 2r+1 from the image's first row, so a window is the end of
                    // one block and the start of the next): the suffix sum of y − r's block from y − r
                    // on, plus the prefix sum of the next block through y + r. No subtraction, so every
                    // sum holds only the window's own rows and rounds like a direct sum; about three adds
                    // a sample instead of 2r+1. The order of the adds is fixed by the row (suffixes back
                    // from the block's end, prefixes on from the next block's start), so the result does
                    // not depend on the bands. The sums are in Double, where 2r+1 floats within about
                    // 2²⁴ of each other add exactly: an output is then its rows' exact sum rounded once,
                    // whichever block boundary it straddles (a constant plane stays uniform, which
                    // registration's featureless test needs).
                    if blocked && y - r >= 0 && y + r < h {
                        let i = y - r, k = i / blockRows, start = k * blockRows, end = start + blockRows - 1
                        typealias D8 = SIMD8<Double>
                        @inline(__always) func loadD(_ p: UnsafePointer<Double>, _ x: Int) -> D8 {
                            UnsafeRawPointer(p + x).loadUnaligned(as: D8.self)
                        }
                        @inline(__always) func loadF(_ p: UnsafePointer<Float>, _ x: Int) -> D8 {
                            D8(UnsafeRawPointer(p + x).loadUnaligned(as: SIMD8<Float>.self))
                        }
                        /// `target[x] = a[x] + Double(b[x])` over the row (`a` nil: 0).
                        @inline(__always) func add(_ a: UnsafePointer<Double>?, _ b: UnsafePointer<Float>, into target: UnsafeMutablePointer<Double>) {
                            var x = 0
                            while x + 8 <= w {
                                let sum = (a.map { loadD($0, x) } ?? D8()) + loadF(b, x)
                                UnsafeMutableRawPointer(target + x).storeBytes(of: sum, as: D8.self)
                                x += 8
                            }
                            while x < w { target[x] = (a?[x] ?? 0) + Double(b[x]); x += 1 }
                        }
                        if suffixBlock != k {
                            // From the block's end back to y − r (all in the ring: end ≤ y + r).
                            add(nil, UnsafePointer(slot(end)), into: suffix + (end - start) * w)
                            for j in stride(from: end - 1, through: i, by: -1) {
                                let t = suffix + (j - start) * w
                                add(UnsafePointer(t + w), UnsafePointer(slot(j)), into: t)
                            }
                            suffixBlock = k
                        }
                        let tail = UnsafePointer(suffix + (i - start) * w)
                        // The next block's rows through y + r: one more, or from its first row.
                        let head: UnsafePointer<Double>? = y + r <= end ? nil : UnsafePointer(prefix)
                        if y + r > end {
                            var from = prefixThrough + 1
                            if prefixThrough <= end {
                                add(nil, UnsafePointer(slot(end + 1)), into: prefix)
                                from = end + 2
                            }
                            for j in stride(from: from, through: y + r, by: 1) { add(UnsafePointer(prefix), UnsafePointer(slot(j)), into: prefix) }
                            prefixThrough = y + r
                        }
                        while x + 8 <= w {
                            put(SIMD8<Float>(loadD(tail, x) + (head.map { loadD($0, x) } ?? D8())))
                            x += 8
                        }
                        while x < w {
                            o[x] = Float(tail[x] + (head?[x] ?? 0)) * inverse.value[x] * inverseRows
                            x += 1
                        }
                        continue
                    }
                    // Seven rows (the pipeline's radius 3, the guided filter's, or a clipped wider
                    // window): the rows' pointers in registers and the adds unrolled in one chain.
                    if count == 7 {
                        let r0 = rows[0], r1 = rows[1], r2 = rows[2], r3 = rows[3], r4 = rows[4], r5 = rows[5], r6 = rows[6]
                        while x + 8 <= w {
                            var sum = load(r0)
                            sum += load(r1); sum += load(r2); sum += load(r3); sum += load(r4); sum += load(r5); sum += load(r6)
                            put(sum)
                            x += 8
                        }
                    }
                    // Other counts (radii 1 and 2, clipped windows at the image's ends): four partial
                    // sums, so that the adds are not one chain of dependent latencies.
                    while x + 8 <= w {
                        put(fourChainSum(count: count) { load(rows[$0]) })
                        x += 8
                    }
                    // The row's last samples one by one, added as the vector loops add them (one chain
                    // for seven rows, else four), so that no sample depends on its lane.
                    while x < w {
                        var sum: Float
                        if count == 7 {
                            sum = 0
                            for k in 0..<count { sum += rows[k][x] }
                        } else {
                            sum = fourChainSum(count: count) { SIMD8(repeating: rows[$0][x]) }[0]
                        }
                        o[x] = sum * inverse.value[x] * inverseRows
                        x += 1
                    }
                }
            }) { body in
                let box = UncheckedSendableBox(body)
                DispatchQueue.concurrentPerform(iterations: bands.count) { box.value($0) }
            }
        }
    }

    /// One row's horizontal sums (not yet divided): `t[x] = Σ_k s[x + k]`, k in −r…r, inside the
    /// row. Radius 3 (the guided filter's) as one unrolled sum of seven loads; radii 1 and 2 as four
    /// partial sums; wider radii in two levels (`runLength`): sums of `m` consecutive samples into
    /// `scratch` (`width` floats), then each window as ⌊(2r+1)/m⌋ of them and the samples left over —
    /// 8 adds instead of 24 for radius 12. Every add is of samples inside the window, so no sum
    /// carries the rounding of samples outside it, and the vector loops and the one-by-one ends add
    /// in the same order (no sample depends on its lane).
    @inline(__always)
    static func horizontalSums(_ s: UnsafePointer<Float>, width w: Int, radius r: Int, into t: UnsafeMutablePointer<Float>,
                               scratch g: UnsafeMutablePointer<Float>) {
        @inline(__always) func clipped(_ x: Int) -> Float {
            var sum: Float = 0
            for k in max(0, x - r)...min(w - 1, x + r) { sum += s[k] }
            return sum
        }
        let interiorEnd = w - r  // x + r < w for x < interiorEnd
        var x = 0
        while x < min(r, w) { t[x] = clipped(x); x += 1 }
        @inline(__always) func load(_ p: UnsafePointer<Float>, _ k: Int) -> SIMD8<Float> {
            UnsafeRawPointer(p + k).loadUnaligned(as: SIMD8<Float>.self)
        }
        if r == 3 {
            // The pipeline's radius (the guided filter's), unrolled: the same adds in the same order.
            while x + 8 <= interiorEnd {
                var sum = load(s, x - 3)
                sum += load(s, x - 2); sum += load(s, x - 1); sum += load(s, x); sum += load(s, x + 1); sum += load(s, x + 2)
                sum += load(s, x + 3)
                UnsafeMutableRawPointer(t + x).storeBytes(of: sum, as: SIMD8<Float>.self)
                x += 8
            }
            while x < w { t[x] = clipped(x); x += 1 }
            return
        }
        let side = 2 * r + 1, m = runLength(side: side)
        guard m > 1, interiorEnd > x else {
            // Radii 1 and 2: four partial sums, so that the adds are not one chain of dependent latencies.
            while x + 8 <= interiorEnd {
                let sum = fourChainSum(count: side) { load(s, x - r + $0) }
                UnsafeMutableRawPointer(t + x).storeBytes(of: sum, as: SIMD8<Float>.self)
                x += 8
            }
            while x < w { t[x] = x < interiorEnd ? fourChainSum(count: side) { SIMD8(repeating: s[x - r + $0]) }[0] : clipped(x); x += 1 }
            return
        }
        // Level 1: g[i] = s[i] + … + s[i + m − 1], for the runs the interior windows use (i from 0
        // through interiorEnd − 1 − r + (q − 1)·m ≤ w − m).
        let q = side / m, runsEnd = interiorEnd - r + (q - 1) * m
        // Four vectors at a time, each added in the same order as one alone: the adds of one vector
        // are a chain of dependent latencies, and four chains side by side keep the adder busy
        // (one at a time, the two levels' loops were most of the wide windows' horizontal pass).
        @inline(__always) func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, _ k: Int) {
            UnsafeMutableRawPointer(p + k).storeBytes(of: v, as: SIMD8<Float>.self)
        }
        var i = 0
        while i + 32 <= runsEnd {
            var s0 = load(s, i), s1 = load(s, i + 8), s2 = load(s, i + 16), s3 = load(s, i + 24)
            for k in 1..<m {
                s0 += load(s, i + k); s1 += load(s, i + 8 + k); s2 += load(s, i + 16 + k); s3 += load(s, i + 24 + k)
            }
            store(s0, g, i); store(s1, g, i + 8); store(s2, g, i + 16); store(s3, g, i + 24)
            i += 32
        }
        while i + 8 <= runsEnd {
            var sum = load(s, i)
            for k in 1..<m { sum += load(s, i + k) }
            store(sum, g, i)
            i += 8
        }
        while i < runsEnd {
            var sum = s[i]
            for k in 1..<m { sum += s[i + k] }
            g[i] = sum
            i += 1
        }
        // Level 2: q runs from x − r, then the samples left over, in one order.
        let leftOver = side - q * m
        while x + 32 <= interiorEnd {
            let a = x - r
            var s0 = load(g, a), s1 = load(g, a + 8), s2 = load(g, a + 16), s3 = load(g, a + 24)
            for j in 1..<q {
                let b = a + j * m
                s0 += load(g, b); s1 += load(g, b + 8); s2 += load(g, b + 16); s3 += load(g, b + 24)
            }
            for k in 0..<leftOver {
                let b = a + q * m + k
                s0 += load(s, b); s1 += load(s, b + 8); s2 += load(s, b + 16); s3 += load(s, b + 24)
            }
            store(s0, t, x); store(s1, t, x + 8); store(s2, t, x + 16); store(s3, t, x + 24)
            x += 32
        }
        while x + 8 <= interiorEnd {
            var sum = load(g, x - r)
            for j in 1..<q { sum += load(g, x - r + j * m) }
            for k in 0..<leftOver { sum += load(s, x - r + q * m + k) }
            store(sum, t, x)
            x += 8
        }
        while x < interiorEnd {
            var sum = g[x - r]
            for j in 1..<q { sum += g[x - r + j * m] }
            for k in 0..<leftOver { sum += s[x - r + q * m + k] }
            t[x] = sum
            x += 1
        }
        while x < w { t[x] = clipped(x); x += 1 }
    }

    /// The run length of the two-level horizontal sum of a `side`-sample window: the integer nearest
    /// √side (fewest adds: m − 1 per run plus ⌊side/m⌋ − 1 + the remainder per window), 1 below
    /// side 9 (radii 1–3, summed directly).
    static func runLength(side: Int) -> Int {
        side < 9 ? 1 : Int(Double(side).squareRoot().rounded())
    }

    /// `Σ term(j)` for j in 0..<count (count ≥ 1) in four partial sums — term 0 and every fourth from
    /// 4 in one, the others (and the remainder) in the other three — so that the adds are not one
    /// chain of dependent latencies. The vector loops and their scalar tails (through a broadcast
    /// vector's first lane: the same adds) both add this way, so that no sample depends on its lane.
    @inline(__always)
    static func fourChainSum(count: Int, _ term: (Int) -> SIMD8<Float>) -> SIMD8<Float> {
        var s0 = term(0), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var j = 1
        while j + 4 <= count {
            s1 += term(j); s2 += term(j + 1); s3 += term(j + 2); s0 += term(j + 3)
            j += 4
        }
        while j < count { s1 += term(j); j += 1 }
        return (s0 + s1) + (s2 + s3)
    }

    /// Convenience: the box mean of a row-major plane as a new array.
    public static func mean(_ plane: [Float], width: Int, height: Int, radius: Int) -> [Float] {
        var out = [Float](repeating: 0, count: width * height)
        plane.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in mean(s, width: width, height: height, radius: radius, into: o) }
        }
        return out
    }
}
