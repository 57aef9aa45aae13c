#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The result's decision (SPEC 2.8).
public enum FusionDecision: String, Sendable, Codable {
    /// The constant-color image can be used.
    case constantColor
    /// Confidence is too low: use the fallback (a normal photo).
    case fallback
}

/// Stage 8 of SPEC: center-weighted mean confidence and the decision.
public enum ConfidenceSummary {
    /// The default threshold.
    public static let defaultThreshold = 0.85

    /// `Σ w c / Σ w` with `w = exp(−((x − cx)² + (y − cy)²) / (2σ²))`, `σ = 0.25 · min(width, height)`,
    /// pixel centers at half-integers (SPEC 2.8). Optionally restricted to a rectangle of interest.
    /// - Precondition: `region` lies inside the map with a positive width and height (check a
    ///   rectangle from a user first; `check --roi` does).
    public static func centerWeightedMean(_ confidence: PlanarImage, region: (x: Int, y: Int, width: Int, height: Int)? = nil) -> Double {
        let w = confidence.width, h = confidence.height
        precondition(region.map { $0.x >= 0 && $0.y >= 0 && $0.x + $0.width <= w && $0.y + $0.height <= h } ?? true)
        let r = region ?? (0, 0, w, h)
        let cx = Double(r.x) + Double(r.width) / 2, cy = Double(r.y) + Double(r.height) / 2
        let sigma = 0.25 * Double(min(r.width, r.height))
        guard sigma > 0 else { return 0 }
        // The weight is separable: exp(−dx²/2σ²)·exp(−dy²/2σ²).
        let wx = (r.x..<(r.x + r.width)).map { exp(-pow(Double($0) + 0.5 - cx, 2) / (2 * sigma * sigma)) }
        let wy = (r.y..<(r.y + r.height)).map { exp(-pow(Double($0) + 0.5 - cy, 2) / (2 * sigma * sigma)) }
        let wxSum = wx.reduce(0, +)
        // Row sums in parallel bands (each row's sum is the same whatever the bands), then the rows.
        var rowSums = [Double](repeating: 0, count: r.height)
        confidence.samples.withUnsafeBufferPointer { cBuffer in
        wx.withUnsafeBufferPointer { wxBuffer in
        rowSums.withUnsafeMutableBufferPointer { sBuffer in
            let inputs = UncheckedSendableBox((cBuffer, wxBuffer))
            let sums = SharedMutableBuffer(sBuffer)
            forEachRowBand(rowCount: r.height) { rows in
                let (c, wx) = inputs.value
                for j in rows {
                    let row = c.baseAddress! + (r.y + j) * w + r.x
                    var rowSum = 0.0
                    for i in 0..<r.width { rowSum += wx[i] * Double(row[i]) }
                    sums[j] = rowSum
                }
            }
        }}}
        var num = 0.0, den = 0.0
        for j in 0..<r.height {
            num += wy[j] * rowSums[j]
            den += wy[j] * wxSum
        }
        return den > 0 ? num / den : 0
    }

    /// `constantColor` when `meanConfidence ≥ threshold`, else `fallback`.
    public static func decision(meanConfidence: Double, threshold: Double) -> FusionDecision {
        meanConfidence >= threshold ? .constantColor : .fallback
    }
}
