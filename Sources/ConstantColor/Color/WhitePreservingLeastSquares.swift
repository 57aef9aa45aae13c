/// The 3×3 matrix M minimizing ∑ ‖M bᵢ − tᵢ‖² subject to M (1, 1, 1)ᵀ = white: white-point
/// preserving least squares (Finlayson & Drew 1997, "Constrained least-squares regression in color
/// spaces", J. Electronic Imaging 6(4) 484–493), solved row by row with a Lagrange multiplier:
/// m = m₀ + (BᵀB)⁻¹1 (w_r − 1ᵀm₀) / (1ᵀ(BᵀB)⁻¹1), with m₀ = (BᵀB)⁻¹Bᵀt_r the unconstrained row.
public enum WhitePreservingLeastSquares {
    /// Fits M; nil when the inputs do not span three dimensions (BᵀB singular).
    ///
    /// - Parameters:
    ///   - balanced: white-balanced camera RGB bᵢ (a perfect white is (1, 1, 1)).
    ///   - targets: target XYZ tᵢ (same count).
    ///   - white: the XYZ that (1, 1, 1) must map to exactly.
    public static func fit(balanced: [SIMD3<Double>], targets: [SIMD3<Double>], white: SIMD3<Double>) -> Matrix3? {
        precondition(balanced.count == targets.count, "one target per sample")
        guard balanced.count >= 3 else { return nil }
        var btb = Matrix3([0, 0, 0, 0, 0, 0, 0, 0, 0])
        for v in balanced { for i in 0..<3 { for j in 0..<3 { btb[i, j] += v[i] * v[j] } } }
        guard let inverse = btb.inverse else { return nil }
        let u = inverse * SIMD3(1, 1, 1)
        let denominator = u.x + u.y + u.z
        guard denominator != 0 else { return nil }
        var rows: [[Double]] = []
        for r in 0..<3 {
            var bt = SIMD3<Double>(0, 0, 0)
            for (v, t) in zip(balanced, targets) { bt += v * t[r] }
            let m0 = inverse * bt
            let m = m0 + u * ((white[r] - (m0.x + m0.y + m0.z)) / denominator)
            rows.append([m.x, m.y, m.z])
        }
        return Matrix3(rows: rows)
    }
}
