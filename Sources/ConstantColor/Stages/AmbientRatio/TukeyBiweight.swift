/// Tukey's biweight (Beaton & Tukey 1974) of standardized residuals, with the scale from the data:
/// c = 4.685 robust standard deviations, σ = 1.4826 · MAD (median absolute residual). The robust
/// weights of stage 4a's iteratively reweighted fits (banding rows, fall-off curvature).
enum TukeyBiweight {
    /// The weight `(1 − u²)²` for `|u| < 1`, else 0, of each residual `z` (already multiplied by
    /// √(its noise weight)), `u = z / c`.
    static func weights(_ z: [Float]) -> [Double] {
        var a = z.map { abs($0) }
        let mad = a.withUnsafeMutableBufferPointer { $0.partitionAtMedian($0.count / 2) }
        let c = 4.685 * 1.4826 * Double(max(mad, 1e-12))
        return z.map { v in
            let u = Double(v) / c
            return abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0
        }
    }
}
