/// Samples of one channel piled up at one value, the largest below the camera profile's clipping
/// level: where a sensor or raw converter saturates below the profile's white level (a converter's
/// scaling, a white level typed for another camera or ISO), every pixel it clips reads that same
/// value, while light that is measured spreads over the values below it. Such pixels carry no
/// measurement of their light; counted as unclipped, a first user's patches clipped at 60 000 DN with
/// a white level of 65 535 kept confidence 0.96–1.00 at 28–42 ΔE00 off (`constantColor`).
///
/// The test, per channel, on the largest sample below the clipping level (`level`): at least
/// `minimumCount` samples equal it, at least `minimumCount` lie in the `bandFraction` of the range
/// below it (a continuum of measured values, which a frame of one value, e.g. a synthetic test's,
/// does not have), and the samples at the level are more than `densityFactor` times as many as the
/// band holds on each value it uses (codes 1/65 536 of the range apart or more: 12-bit codes scaled
/// to 16 bits use every 16th value, and the band's density is counted on the values used).
public struct SaturationPlateau: Sendable, Equatable, Codable {
    /// Channel (0 red, 1 green, 2 blue).
    public var channel: Int
    /// The value the samples pile up at, DN.
    public var levelDN: Double
    /// Pixels whose sample in the channel is at the level.
    public var pixelCount: Int
    /// `pixelCount` over the frame's pixels.
    public var fraction: Double

    /// Fewest samples at the level, and in the band below it, for a plateau.
    public static let minimumCount = 16
    /// How many times the band's density (samples per value used) the level must hold.
    public static let densityFactor = 20.0
    /// The band below the level whose density is compared, as a fraction of the black-to-white range.
    public static let bandFraction = 0.02
    /// Bins per black-to-white range in which the band's values used are counted.
    static let binsPerRange = 65_536.0

    /// The largest sample of each channel below the clipping level and how many samples equal it,
    /// accumulated over a frame's row bands (`merge`).
    struct Top: Sendable {
        var value = SIMD3<Float>(repeating: -.infinity)
        var count = SIMD3<Int>(repeating: 0)

        /// The tops of two parts of a frame together.
        func merged(_ other: Top) -> Top {
            var out = Top()
            for c in 0..<3 {
                out.value[c] = max(value[c], other.value[c])
                out.count[c] = (value[c] == out.value[c] ? count[c] : 0) + (other.value[c] == out.value[c] ? other.count[c] : 0)
            }
            return out
        }

        /// Eight lanes' maxima and counts reduced to one.
        static func reduced(values: SIMD8<Float>, counts: SIMD8<Int32>) -> (Float, Int) {
            let top = values.max()
            var count = 0
            for lane in 0..<8 where values[lane] == top { count += Int(counts[lane]) }
            return (top, count)
        }
    }

    /// Whether the samples at `level` (`count` of them) form a plateau, given the samples of the
    /// channel below it (`plane`, normalized values with `level` normalized alike; `binWidth`: the
    /// width of a `binsPerRange` bin in the same units). One pass over the plane.
    static func isPlateau(plane: UnsafeBufferPointer<Float>, level: Float, count: Int, binWidth: Float) -> Bool {
        guard count >= minimumCount, binWidth > 0 else { return false }
        let bins = Int(bandFraction * binsPerRange)
        let low = level - Float(bins) * binWidth
        var used = [Bool](repeating: false, count: bins + 1)
        var inBand = 0
        for v in plane where v < level && v >= low {
            inBand += 1
            used[min(bins, Int(((level - v) / binWidth).rounded(.up)))] = true
        }
        let values = used.reduce(0) { $0 + ($1 ? 1 : 0) }
        guard inBand >= minimumCount, values > 0 else { return false }
        return Double(count) > densityFactor * Double(inBand) / Double(values)
    }
}
