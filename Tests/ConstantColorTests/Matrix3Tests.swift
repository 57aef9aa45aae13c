import TestSupport
import ConstantColor
import Testing

private func maxDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
    zip(a.m, b.m).map { abs($0 - $1) }.max() ?? .infinity
}

@Suite struct Matrix3Tests {
    @Test func inverseRoundTripOnRandomMatrices() throws {
        var random = SplitMix(seed: 2024)
        var checked = 0
        for _ in 0..<500 {
            let m = Matrix3((0..<9).map { _ in Double.random(in: -2...2, using: &random) })
            // Skip the rare badly conditioned draw: the round trip's error grows with the
            // condition number, which this bound keeps below ~1e4.
            guard abs(m.determinant) > 0.05 else { continue }
            let inverse = try #require(m.inverse)
            #expect(maxDifference(m * inverse, .identity) <= 1e-10, "\(m.rows)")
            #expect(maxDifference(inverse * m, .identity) <= 1e-10, "\(m.rows)")
            checked += 1
        }
        #expect(checked > 400)
    }

    @Test func inverseIsScaleInvariant() throws {
        for scale in [1e-120, 1e-6, 1.0, 1e6, 1e120] {
            let m = Matrix3([2, 1, 0, 1, 3, 1, 0, 1, 4].map { $0 * scale })
            let inverse = try #require(m.inverse, "scale \(scale)")
            #expect(maxDifference(m * inverse, .identity) <= 1e-12, "scale \(scale)")
        }
    }

    @Test func singularMatricesHaveNoInverse() {
        // Exactly singular: a zero row, two equal rows, the classic 1...9.
        #expect(Matrix3([1, 2, 3, 0, 0, 0, 4, 5, 6]).inverse == nil)
        #expect(Matrix3([1, 2, 3, 1, 2, 3, 4, 5, 7]).inverse == nil)
        #expect(Matrix3([1, 2, 3, 4, 5, 6, 7, 8, 9]).inverse == nil)
        #expect(Matrix3([0, 0, 0, 0, 0, 0, 0, 0, 0]).inverse == nil)
        // Singular up to rounding: the third row is a combination of the first two, so the
        // determinant is a few ulps instead of 0.
        var random = SplitMix(seed: 99)
        for _ in 0..<100 {
            let r1 = (0..<3).map { _ in Double.random(in: -1...1, using: &random) }
            let r2 = (0..<3).map { _ in Double.random(in: -1...1, using: &random) }
            let a = Double.random(in: -1...1, using: &random), b = Double.random(in: -1...1, using: &random)
            let r3 = zip(r1, r2).map { a * $0 + b * $1 }
            #expect(Matrix3(rows: [r1, r2, r3]).inverse == nil, "\([r1, r2, r3])")
        }
    }

    @Test func nonFiniteMatricesHaveNoInverse() {
        #expect(Matrix3([.nan, 0, 0, 0, 1, 0, 0, 0, 1]).inverse == nil)
        #expect(Matrix3([.infinity, 0, 0, 0, 1, 0, 0, 0, 1]).inverse == nil)
    }

    @Test func determinantAndTranspose() {
        let m = Matrix3([2, -3, 1, 2, 0, -1, 1, 4, 5])
        #expect(m.determinant == 49)
        #expect(m.transposed == Matrix3([2, 2, 1, -3, 0, 4, 1, -1, 5]))
        #expect(m.transposed.determinant == 49)
        #expect(Matrix3.identity.determinant == 1)
    }

    @Test func productsAndConstructors() {
        let a = Matrix3([1, 2, 3, 4, 5, 6, 7, 8, 10])
        let b = Matrix3([0, 1, 0, 0, 0, 1, 1, 0, 0])
        #expect(a * .identity == a && .identity * a == a)
        #expect(a * b == Matrix3([3, 1, 2, 6, 4, 5, 10, 7, 8]))
        #expect(a * SIMD3(1, 0, -1) == SIMD3(-2, -2, -3))
        #expect(Matrix3(columns: SIMD3(1, 4, 7), SIMD3(2, 5, 8), SIMD3(3, 6, 10)) == a)
        #expect(Matrix3(rows: [[1, 2, 3], [4, 5, 6], [7, 8, 10]]) == a)
        #expect(a.rows == [[1, 2, 3], [4, 5, 6], [7, 8, 10]])
        #expect(Matrix3.diagonal(SIMD3(2, 3, 4)) * SIMD3(1, 1, 1) == SIMD3(2, 3, 4))
        #expect(a[2, 2] == 10)
        #expect(a.floats == [1, 2, 3, 4, 5, 6, 7, 8, 10])
    }
}
