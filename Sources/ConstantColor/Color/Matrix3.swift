/// A 3×3 matrix of `Double`, row-major, acting on column vectors.
public struct Matrix3: Sendable, Equatable, Codable {
    /// The nine entries, row by row.
    public var m: [Double]

    /// A matrix from its nine entries, row by row.
    public init(_ rowMajor: [Double]) {
        precondition(rowMajor.count == 9, "a 3x3 matrix has 9 entries")
        m = rowMajor
    }

    /// A matrix from three rows.
    public init(rows r: [[Double]]) {
        precondition(r.count == 3 && r.allSatisfy { $0.count == 3 })
        m = r[0] + r[1] + r[2]
    }

    /// The identity.
    public static let identity = Matrix3([1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// A diagonal matrix.
    public static func diagonal(_ d: SIMD3<Double>) -> Matrix3 {
        Matrix3([d.x, 0, 0, 0, d.y, 0, 0, 0, d.z])
    }

    /// A matrix whose columns are `a`, `b`, `c`.
    public init(columns a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) {
        m = [a.x, b.x, c.x, a.y, b.y, c.y, a.z, b.z, c.z]
    }

    /// Entry at `row`, `column`.
    @inlinable public subscript(row: Int, column: Int) -> Double {
        get { m[row * 3 + column] }
        set { m[row * 3 + column] = newValue }
    }

    /// Rows as arrays (for JSON).
    public var rows: [[Double]] { [Array(m[0..<3]), Array(m[3..<6]), Array(m[6..<9])] }

    /// Matrix × vector.
    public static func * (a: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.m[0] * v.x + a.m[1] * v.y + a.m[2] * v.z,
              a.m[3] * v.x + a.m[4] * v.y + a.m[5] * v.z,
              a.m[6] * v.x + a.m[7] * v.y + a.m[8] * v.z)
    }

    /// Matrix × matrix.
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 {
            r[i * 3 + j] = a.m[i * 3] * b.m[j] + a.m[i * 3 + 1] * b.m[3 + j] + a.m[i * 3 + 2] * b.m[6 + j]
        } }
        return Matrix3(r)
    }

    /// The determinant.
    public var determinant: Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The inverse by the adjugate, or `nil` when the matrix is singular or not finite.
    ///
    /// Singularity is judged after scaling each row to a largest entry of 1 (row equilibration),
    /// so the test does not depend on the matrix's units: the matrix is singular when that
    /// scaled determinant is at most 1e-12 (by Hadamard's inequality it is at most 3^(3/2) for
    /// any matrix, so this means a condition number beyond ~1e12, where rounding would leave
    /// only a few correct digits in the inverse). inverse(A) = inverse(D·A)·D with D the
    /// row scaling.
    public var inverse: Matrix3? {
        guard m.allSatisfy(\.isFinite) else { return nil }
        var rowScale = SIMD3<Double>()
        for i in 0..<3 {
            let largest = max(abs(m[i * 3]), abs(m[i * 3 + 1]), abs(m[i * 3 + 2]))
            guard largest > 0 else { return nil }
            rowScale[i] = 1 / largest
        }
        guard rowScale.x.isFinite, rowScale.y.isFinite, rowScale.z.isFinite else { return nil }
        let b = Matrix3.diagonal(rowScale) * self
        let d = b.determinant
        guard abs(d) > 1e-12 else { return nil }
        let e = b.m
        let c = [
            e[4] * e[8] - e[5] * e[7], e[2] * e[7] - e[1] * e[8], e[1] * e[5] - e[2] * e[4],
            e[5] * e[6] - e[3] * e[8], e[0] * e[8] - e[2] * e[6], e[2] * e[3] - e[0] * e[5],
            e[3] * e[7] - e[4] * e[6], e[1] * e[6] - e[0] * e[7], e[0] * e[4] - e[1] * e[3],
        ]
        return Matrix3(c.map { $0 / d }) * Matrix3.diagonal(rowScale)
    }

    /// The transpose.
    public var transposed: Matrix3 {
        Matrix3([m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]])
    }

    /// The entries as `Float`, row-major, for pixel kernels.
    public var floats: [Float] { m.map { Float($0) } }
}
