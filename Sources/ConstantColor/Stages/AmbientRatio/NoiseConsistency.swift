/// Whether the two frames' own pixel noise agrees with their noise models (`FrameNoise`: the camera
/// profile's at each frame's EXIF ISO), relative to each other.
///
/// A frame's noise model in normalized units depends on its ISO through the gain only: the shot
/// variance of a normalized sample `v` is `(b/scale)·v`, and an ISO tag `m` times the capture's
/// multiplies `scale` (the exposure normalization) and `b` (data numbers per electron) alike — the
/// normalized signal comes out `m` times too small while the model's shot variance stays that of
/// the true signal, `m` times the sample's real variance at its (too small) level. So an ISO that is
/// not the capture's shows as noise `m` times below its model; an exposure time or f-number that is
/// off does not (the model scales with the signal). The illumination edges
/// (`IlluminationEdgeRatio`) find an exposure ratio off by up to ten stops, but only where the
/// ambient frame's edges stand out from its modelled noise: an ambient ISO typed 100 times too high
/// overstated that noise a hundredfold, no edge was measured, EXIF's ratio stood with its ±4 %, and
/// a review's pair came out constantColor 0.91 with the ambient light left in.
///
/// Measured on the pixel scale, where scene structure is weakest: the second difference along a row,
/// `e = x_i − (x_{i−1} + x_{i+1})/2`, whose variance for independent noise is
/// `v_i + (v_{i−1} + v_{i+1})/4` (model variances at the samples' values: linear in them, so
/// unbiased), summed over the three channels and segments of `segmentLength` pixels without a clipped
/// one. A segment's ratio of `Σe²` to its predicted sum is about 1 on noise alone and higher over
/// texture; a low quantile of the segments (`quantile`) is the frame's noise floor relative to its
/// model. Correlated noise (demosaicing) lowers it in both frames alike, so only the ratio of the
/// ambient frame's to the flash frame's is read: about 1 when both ISO tags are right, `1/m` when
/// the ambient one is `m` times too high (or the flash one `m` times too low).
public struct NoiseConsistency: Sendable, Equatable {
    /// The flash frame's noise floor over its model's (`quantile` of the segments' ratios).
    public var flashScale: Double
    /// The ambient frame's, likewise.
    public var ambientScale: Double

    /// `ambientScale / flashScale`: about 1 when the two frames' ISO tags describe them.
    public var relativeScale: Double { ambientScale / flashScale }

    /// The factor, at least 1, by which the frames' noise says their exposure ratio may be off:
    /// `max(s, 1/s)` of `relativeScale` s.
    public var ratioErrorFactor: Double { max(relativeScale, 1 / relativeScale) }

    /// `ratioErrorFactor` from which the frames are said to disagree with their ISO tags: 30. The
    /// shadow edges find an exposure ratio off by up to ten stops where they can be measured (ISO
    /// typed 10× and 30× too high on the committed 200 lux pair: found at 10.2× and 30.6×); this
    /// check is for the factors that hide them (100×: 0.0065 here). Legitimate pairs read far from 1
    /// too, so the limit stays well away from them (a review): a finely textured subject (±20 % per
    /// pixel in both frames) 0.13, an ambient frame at ISO 6400 from a sensor whose read noise does
    /// not grow with the ISO as the profile's model says 0.21, a read-noise-dominated 10 lux frame
    /// that follows the model (its darkest pixels flagged below black and left out) 0.38.
    public static let disagreementFactor = 30.0

    /// Whether the frames' noise disagrees with their ISO tags by more than `disagreementFactor`.
    public var disagrees: Bool { ratioErrorFactor > Self.disagreementFactor }

    /// Pixels per segment.
    static let segmentLength = 32
    /// The segments' quantile taken as the noise floor.
    static let quantile = 0.1
    /// At most this many rows are sampled per frame (evenly spaced).
    static let sampledRows = 384

    /// Both frames' scales; nil when either has too few unclipped segments with a predicted
    /// variance (a frame smaller than a segment, or all clipped).
    public static func measure(flash: LinearFrame, ambient: LinearFrame) -> NoiseConsistency? {
        guard let f = scale(of: flash), let a = scale(of: ambient), f > 0, a > 0 else { return nil }
        return NoiseConsistency(flashScale: f, ambientScale: a)
    }

    /// One frame's noise floor over its model: the `quantile` of its segments' ratios (nil: fewer than 32 segments).
    static func scale(of frame: LinearFrame) -> Double? {
        let w = frame.image.width, h = frame.image.height, n = w * h
        let segmentsPerRow = (w - 2) / segmentLength
        guard segmentsPerRow > 0, h > 2 else { return nil }
        let step = max(1, h / sampledRows), rows = Array(stride(from: 1, to: h - 1, by: step))
        var ratios = [Double](repeating: .nan, count: rows.count * segmentsPerRow)
        let noise = frame.noise
        ratios.withUnsafeMutableBufferPointer { out in
        frame.image.samples.withUnsafeBufferPointer { samples in
        frame.clipped.withUnsafeBufferPointer { clipped in
            let target = SharedMutableBuffer(out), inputs = UncheckedSendableBox((samples, clipped))
            forEachRowBand(rowCount: rows.count, minimumRowsPerBand: 8) { band in
                let (x, flags) = inputs.value
                for r in band {
                    let start = rows[r] * w
                    segments: for s in 0..<segmentsPerRow {
                        let first = start + 1 + s * segmentLength
                        for i in (first - 1)...(first + segmentLength) where flags[i] != 0 { continue segments }
                        // (Σ over the segment of v_{i−1} + v_{i+1} is the sum of v over it, less its
                        // last, plus the ones on either side: each variance is evaluated once.)
                        var observed: Float = 0, predicted: Float = 0
                        for c in 0..<3 {
                            let p = x.baseAddress! + c * n
                            var centre: Float = 0
                            for i in first..<(first + segmentLength) {
                                let e = p[i] - 0.5 * (p[i - 1] + p[i + 1])
                                observed += e * e
                                centre += noise.variance(p[i])
                            }
                            let last = first + segmentLength - 1
                            let neighbours = 2 * centre - noise.variance(p[first]) - noise.variance(p[last])
                                + noise.variance(p[first - 1]) + noise.variance(p[last + 1])
                            predicted += centre + 0.25 * neighbours
                        }
                        if predicted > 0 && observed.isFinite { target[r * segmentsPerRow + s] = Double(observed / predicted) }
                    }
                }
            }
        }}}
        let valid = ratios.filter { !$0.isNaN }.sorted()
        guard valid.count >= 32 else { return nil }
        return valid[Int(quantile * Double(valid.count - 1))]
    }
}
