/// The flash's camera-RGB white from a chart's neutral patches.
///
/// A neutral patch of reference luminance Y (white Y = 1) lit by the flash gives camera RGB
/// ≈ Y · w, where w is the response to a perfect white. Each neutral patch therefore gives an
/// estimate rgbᵢ / Yᵢ; the per-channel median of these estimates is robust to one bad patch
/// (and, as a median, to the flash's fall-off across the row). The result keeps the capture's
/// scale: balanced RGB `rgb / w` is 1 for a perfect white at the chart's exposure.
public enum FlashWhiteEstimate {
    /// Why the white cannot be estimated.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The chart has fewer neutral patches than needed.
        case tooFewNeutralPatches(found: Int)
        /// A channel's estimate is not positive (no flash signal).
        case noSignal(channel: Int)

        public var description: String {
            switch self {
            case .tooFewNeutralPatches(let n):
                return "the chart has \(n) neutral patch(es) (reference C*ab < 3); at least \(FlashWhiteEstimate.minimumNeutralPatches) are needed to estimate the flash white"
            case .noSignal(let c):
                return "the neutral patches give no positive signal in channel \(["red", "green", "blue"][c]); is the flash in the picture?"
            }
        }
    }

    /// The fewest neutral patches the white is estimated from.
    public static let minimumNeutralPatches = 2

    /// Per-channel median over the neutral patches of cameraRGBᵢ / Yᵢ.
    ///
    /// - Parameters:
    ///   - cameraRGB: each patch's camera RGB (black-subtracted, any linear scale).
    ///   - referenceY: each patch's reference luminance Y (white = 1).
    ///   - neutral: indices of the neutral patches.
    public static func estimate(cameraRGB: [SIMD3<Double>], referenceY: [Double], neutral: [Int]) throws(Failure) -> SIMD3<Double> {
        guard neutral.count >= minimumNeutralPatches else { throw .tooFewNeutralPatches(found: neutral.count) }
        var w = SIMD3<Double>(0, 0, 0)
        for c in 0..<3 {
            var ratios = neutral.map { cameraRGB[$0][c] / referenceY[$0] }
            w[c] = PatchSampling.median(&ratios)
            guard w[c] > 0, w[c].isFinite else { throw .noSignal(channel: c) }
        }
        return w
    }
}
