import Testing
@testable import ConstantColor

/// The guided model's geometry: its evaluation at full resolution (`interpolateRow`, whose vector
/// paths must equal bilinear interpolation through `GuidedModel.taps`, and `interpolateColumns`,
/// which must give the same bytes piece by piece) and its halving onto blocks
/// twice as large (`halved`, how the wide models are kept).
@Suite("Guided model: row interpolation and halving")
struct GuidedModelTests {
    /// A model of a `width × height` frame on `subsampling` blocks with random planes (weights
    /// positive, as inverse variances are).
    static func randomModel(width: Int, height: Int, subsampling: Int, seed: UInt64) -> GuidedModel {
        var rng = SplitMix(seed: seed)
        let lw = (width + subsampling - 1) / subsampling, lh = (height + subsampling - 1) / subsampling, ln = lw * lh
        let planes = (0..<(GuidedModel.planeCount * ln)).map { i in
            let plane = i / ln
            return Float(plane == 9 ? 0.5 + rng.uniform() : rng.uniform() * 200 - 100)
        }
        return GuidedModel(width: width, height: height, subsampling: subsampling, planes: planes)
    }

    /// Row `y` evaluated directly: each plane interpolated bilinearly at the pixel, the weighted
    /// sums divided by the interpolated weight.
    static func reference(_ m: GuidedModel, row y: Int) -> [[Double]] {
        let lw = m.lowWidth, ln = lw * m.lowHeight
        let (y0, y1, ty) = GuidedModel.taps(y, subsampling: m.subsampling, count: m.lowHeight)
        func value(_ j: Int, _ x: Int) -> Double {
            let (x0, x1, tx) = GuidedModel.taps(x, subsampling: m.subsampling, count: lw)
            func at(_ X: Int, _ Y: Int) -> Double { Double(m.planes[j * ln + Y * lw + X]) }
            let top = at(x0, y0) + Double(tx) * (at(x1, y0) - at(x0, y0))
            let bottom = at(x0, y1) + Double(tx) * (at(x1, y1) - at(x0, y1))
            return top + Double(ty) * (bottom - top)
        }
        return (0..<10).map { j in
            (0..<m.width).map { x in j < 9 ? value(j, x) / value(9, x) : value(10, x) }
        }
    }

    /// Row `y` as the confidence pass evaluates it.
    static func interpolated(_ m: GuidedModel, row y: Int) -> [[Float]] {
        let w = m.width, stride = w + 16
        var taps = (x0: [Int](), x1: [Int](), t: [Float]())
        for x in 0..<w {
            let (a, b, t) = GuidedModel.taps(x, subsampling: m.subsampling, count: m.lowWidth)
            taps.x0.append(a); taps.x1.append(b); taps.t.append(t)
        }
        var row = [Float](repeating: .nan, count: GuidedModel.evaluatedPlaneCount * m.lowWidth)
        var out = [Float](repeating: .nan, count: 10 * stride)
        m.planes.withUnsafeBufferPointer { p in
        taps.x0.withUnsafeBufferPointer { x0 in
        taps.x1.withUnsafeBufferPointer { x1 in
        taps.t.withUnsafeBufferPointer { t in
        row.withUnsafeMutableBufferPointer { r in
        out.withUnsafeMutableBufferPointer { o in
            m.interpolateRow(y, planes: p.baseAddress!, taps: (x0.baseAddress!, x1.baseAddress!, t.baseAddress!),
                             row: r.baseAddress!, into: o.baseAddress!, stride: stride)
        }}}}}}
        // Nothing written past the row's end (the confidence pass pads its rows to 8 pixels only).
        #expect((0..<10).allSatisfy { j in out[(j * stride + w)..<((j + 1) * stride)].allSatisfy(\.isNaN) })
        return (0..<10).map { j in Array(out[(j * stride)..<(j * stride + w)]) }
    }

    @Test("every pixel of a row equals bilinear interpolation through the taps, on 2×2, 4×4 and 3×3 blocks (vector paths, their ends and the pixel-by-pixel path), and nothing is written past the row",
          arguments: [2, 4, 3])
    func rowInterpolation(subsampling: Int) {
        // Widths whose last block is partial or whole, too short for the vector loops, and long.
        for (i, w) in [5, 23, 37, 40, 64, 101, 130, 257].enumerated() {
            let m = Self.randomModel(width: w, height: 11, subsampling: subsampling, seed: UInt64(100 * subsampling + i))
            for y in [0, 1, 5, 10] {
                let expected = Self.reference(m, row: y), got = Self.interpolated(m, row: y)
                for j in 0..<10 {
                    for x in 0..<w {
                        let e = expected[j][x], g = Double(got[j][x])
                        // (Float rounding of coefficients up to 200 in size: the sums up to 100 over weights from 0.5.)
                        #expect(abs(g - e) <= 2e-5 * max(200, abs(e)), "s\(subsampling) w\(w) y\(y) plane \(j) x\(x): \(g) vs \(e)")
                    }
                }
            }
        }
    }

    @Test("columns written piece by piece, left to right, with gaps, each piece from where the last one's writing ended (as the confidence pass asks for the wide models' coefficients), are the whole row's bytes, and the returned end covers the piece",
          arguments: [2, 4, 3])
    func columnsInPieces(subsampling: Int) {
        var rng = SplitMix(seed: UInt64(7 * subsampling))
        for (i, w) in [5, 23, 37, 64, 101, 257].enumerated() {
            let m = Self.randomModel(width: w, height: 9, subsampling: subsampling, seed: UInt64(300 * subsampling + i))
            let stride = w + 16
            var x0 = [Int](), x1 = [Int](), t = [Float]()
            for x in 0..<w {
                let (a, b, f) = GuidedModel.taps(x, subsampling: subsampling, count: m.lowWidth)
                x0.append(a); x1.append(b); t.append(f)
            }
            var row = [Float](repeating: .nan, count: GuidedModel.evaluatedPlaneCount * m.lowWidth)
            var whole = [Float](repeating: .nan, count: 10 * stride), pieces = whole
            var requested = [Bool](repeating: false, count: w)
            m.planes.withUnsafeBufferPointer { p in
            x0.withUnsafeBufferPointer { x0 in
            x1.withUnsafeBufferPointer { x1 in
            t.withUnsafeBufferPointer { t in
            row.withUnsafeMutableBufferPointer { r in
            whole.withUnsafeMutableBufferPointer { wholeOut in
            pieces.withUnsafeMutableBufferPointer { pieceOut in
                let taps = (x0.baseAddress!, x1.baseAddress!, t.baseAddress!)
                m.verticalRow(5, into: r.baseAddress!, planes: p.baseAddress!)
                let end = m.interpolateColumns(0..<w, row: r.baseAddress!, taps: taps, into: wholeOut.baseAddress!, stride: stride)
                #expect(end == w)
                var written = 0, x = 0
                while x < w {
                    let length = 1 + Int(rng.uniform() * 20)
                    let start = max(x, written), end = min(w, x + length)
                    if start < end {
                        let piece = start..<end
                        let next = m.interpolateColumns(piece, row: r.baseAddress!, taps: taps, into: pieceOut.baseAddress!, stride: stride)
                        #expect(next >= piece.upperBound && next <= w, "w\(w) \(piece): end \(next)")
                        // Every column up to the returned end is relied on (the confidence pass does not ask again).
                        for c in piece.lowerBound..<next { requested[c] = true }
                        written = next
                    }
                    x += length + (rng.uniform() < 0.3 ? Int(rng.uniform() * 40) : 0)  // a gap now and then
                }
            }}}}}}}
            for j in 0..<10 {
                for x in 0..<w where requested[x] {
                    #expect(pieces[j * stride + x].bitPattern == whole[j * stride + x].bitPattern,
                            "s\(subsampling) w\(w) plane \(j) x\(x): \(pieces[j * stride + x]) vs \(whole[j * stride + x])")
                }
                let untouched = pieces[(j * stride + w)..<((j + 1) * stride)].allSatisfy { $0.isNaN }
                #expect(untouched, "w\(w) plane \(j): written past the row")
            }
        }
    }

    @Test("halving: the size of a model on blocks twice as large, each evaluated plane the mean of its 2×2 samples (of those there are at an odd far edge)")
    func halving() {
        for (w, h) in [(40, 24), (37, 21), (6, 3)] {
            let m = Self.randomModel(width: w, height: h, subsampling: 2, seed: UInt64(w * h))
            let half = m.halved()
            #expect(half.subsampling == 4 && half.width == w && half.height == h)
            let lw = m.lowWidth, lh = m.lowHeight, ln = lw * lh, hn = half.lowWidth * half.lowHeight
            for j in 0..<GuidedModel.evaluatedPlaneCount {
                for Y in 0..<half.lowHeight {
                    for X in 0..<half.lowWidth {
                        let xs = Set([2 * X, min(lw - 1, 2 * X + 1)]), ys = Set([2 * Y, min(lh - 1, 2 * Y + 1)])
                        let samples = ys.flatMap { y in xs.map { x in Double(m.planes[j * ln + y * lw + x]) } }
                        let mean = samples.reduce(0, +) / Double(samples.count)
                        let got = Double(half.planes[j * hn + Y * half.lowWidth + X])
                        #expect(abs(got - mean) <= 1e-5 * max(1, abs(mean)), "\(w)x\(h) plane \(j) at \(X),\(Y)")
                    }
                }
            }
        }
    }
}
