/// Small linear least-squares problems of the calibration fits (flash fall-off from chart patches,
/// flash shading from a flat field): a few basis functions, well conditioned, solved by the normal
/// equations.
enum LinearLeastSquares {
    /// Ordinary least squares `values ≈ basis · x` by the normal equations; nil when singular.
    /// `basis` has one row per observation, all of the same length.
    static func fit(basis: [[Double]], values: [Double]) -> [Double]? {
        guard let m = basis.first?.count else { return nil }
        var ata = [Double](repeating: 0, count: m * m), atb = [Double](repeating: 0, count: m)
        for (row, v) in zip(basis, values) {
            for a in 0..<m {
                atb[a] += row[a] * v
                for b in 0..<m { ata[a * m + b] += row[a] * row[b] }
            }
        }
        return solve(ata, atb, size: m)
    }

    /// Solves the symmetric system A x = b by Gaussian elimination with partial pivoting; nil when singular.
    static func solve(_ a: [Double], _ b: [Double], size n: Int) -> [Double]? {
        var a = a, b = b
        let scale = a.map(abs).max() ?? 0
        for k in 0..<n {
            guard let p = (k..<n).max(by: { abs(a[$0 * n + k]) < abs(a[$1 * n + k]) }), abs(a[p * n + k]) > 1e-12 * scale else { return nil }
            if p != k {
                for j in 0..<n { a.swapAt(k * n + j, p * n + j) }
                b.swapAt(k, p)
            }
            for i in (k + 1)..<n {
                let f = a[i * n + k] / a[k * n + k]
                for j in k..<n { a[i * n + j] -= f * a[k * n + j] }
                b[i] -= f * b[k]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = b[i]
            for j in (i + 1)..<n { s -= a[i * n + j] * x[j] }
            x[i] = s / a[i * n + i]
        }
        return x
    }

    /// The least-squares plane `a + b·(x − x̄) + c·(y − ȳ)` through `values` at `positions`, as a
    /// function of the position (the mean where the positions do not span a plane).
    static func plane(_ values: [Double], at positions: [SIMD2<Double>]) -> (SIMD2<Double>) -> Double {
        let count = Double(values.count)
        guard count > 0 else { return { _ in 0 } }
        let centre = positions.reduce(SIMD2<Double>(), +) / count
        let mean = values.reduce(0, +) / count
        var sxx = 0.0, sxy = 0.0, syy = 0.0, sxv = 0.0, syv = 0.0
        for (p, v) in zip(positions, values) {
            let d = p - centre, e = v - mean
            sxx += d.x * d.x; sxy += d.x * d.y; syy += d.y * d.y; sxv += d.x * e; syv += d.y * e
        }
        let det = sxx * syy - sxy * sxy
        guard det > 1e-9 * max(1, sxx * syy) else { return { _ in mean } }
        let b = (syy * sxv - sxy * syv) / det, c = (sxx * syv - sxy * sxv) / det
        return { p in mean + b * (p.x - centre.x) + c * (p.y - centre.y) }
    }
}
