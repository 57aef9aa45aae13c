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

    /// The inverse by the adjugate; `nil` when the matrix is singular (|det| below 1e-300 or not finite).
    public var inverse: Matrix3? {
        let d = determinant
        guard d.isFinite, abs(d) > 1e-300 else { return nil }
        let c = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        return Matrix3(c.map { $0 / d })
    }

    /// The transpose.
    public var transposed: Matrix3 {
        Matrix3([m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]])
    }

    /// The entries as `Float`, row-major, for pixel kernels.
    public var floats: [Float] { m.map { Float($0) } }
}
