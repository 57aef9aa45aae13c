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

extension TukeyBiweight {
    /// A robust mean of measurements with known standard deviations (stage 4a's edge profiles).
    struct Location {
        /// The biweight mean.
        var centre: Double
        /// Its standard error: neighbouring profiles counted as correlated (a factor 2), grown with
        /// the scatter beyond the stated noise (√(χ²/dof) when above 1).
        var standardError: Double
        /// Measurements inside the biweight's support.
        var count: Int
        /// The factor `standardError` holds for the scatter beyond the stated noise, √(χ²/dof) or 1.
        var scatterInflation: Double = 1
    }

    /// A measurement's weight in the biweight location around `centre`: `(1 − u²)²/σ²` for
    /// `u = (value − centre)/(4.685·σ)` inside the support (|u| < 1), else nil.
    static func locationWeight(value: Double, sigma: Double, centre: Double) -> Double? {
        let u = (value - centre) / (4.685 * sigma)
        guard abs(u) < 1 else { return nil }
        return (1 - u * u) * (1 - u * u) / (sigma * sigma)
    }

    /// The weighted median of `samples` (weights 1/σ²), then Tukey's biweight around it with each
    /// measurement's own scale, c = 4.685·σᵢ (Beaton & Tukey 1974), iterated until the centre moves
    /// less than `tolerance` (at most `iterations` times); nil when no weight is left.
    static func location(_ samples: [(value: Double, sigma: Double)], iterations: Int, tolerance: Double) -> Location? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted { $0.value < $1.value }
        let total = sorted.reduce(0) { $0 + 1 / ($1.sigma * $1.sigma) }
        var acc = 0.0, centre = sorted[0].value
        for s in sorted {
            acc += 1 / (s.sigma * s.sigma)
            if acc >= total / 2 { centre = s.value; break }
        }
        var sw = 0.0, n = 0, chi = 0.0
        for _ in 0..<iterations {
            var swv = 0.0
            sw = 0; n = 0; chi = 0
            for s in samples {
                guard let wgt = locationWeight(value: s.value, sigma: s.sigma, centre: centre) else { continue }
                sw += wgt; swv += wgt * s.value; n += 1
                chi += (s.value - centre) * (s.value - centre) / (s.sigma * s.sigma)
            }
            guard sw > 0 else { return nil }
            let next = swv / sw
            if abs(next - centre) < tolerance { centre = next; break }
            centre = next
        }
        let inflation = max(1, chi / Double(max(1, n - 1))).squareRoot()
        return Location(centre: centre, standardError: 2 * inflation / sw.squareRoot(), count: n, scatterInflation: inflation)
    }
}
