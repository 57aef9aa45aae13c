import ConstantColor

/// Whether a patch's sampled square holds one uniform surface, as SPEC 5's "median of its central
/// square" assumes: a chart description whose centres or `halfSize` do not fit the image puts part
/// of a square on the neighbouring patch or the chart's gaps, and an object or a highlight on the
/// chart does the same. The median then hides the mixture from the matrix fit, and the photon
/// transfer takes the step for noise — so it is looked for, not assumed.
///
/// The square is cut into 3 × 3 sub-squares (at a third and two thirds of each side); per
/// channel, the sub-squares' means (unclipped pixels; a sub-square with fewer than half usable is
/// skipped) are compared with their least-squares plane, which absorbs the flash's fall-off and a
/// glare gradient across the square. A sub-square's departure counts when it exceeds both
/// `noiseLimit` standard errors of a sub-square's mean and `relativeLimit` of the plane's mean level:
/// - the standard error is `σ·√(S/m)` for `m` pixels, σ the pixels' noise measured robustly in the
///   square (1.4826 · MAD of differences of pixels `PhotonTransfer.pixelDistance` apart, / √2, along
///   rows or along columns, whichever is smaller, so that a step between two surfaces does not
///   count as noise) and `S = min(m, correlationAllowance)`
///   the factor of a demosaiced frame's correlated noise on a mean (`NoiseCorrelation.areaFactor`,
///   measured up to 7.1 for bilinear demosaicing) — an upper bound, since the noise model is not known yet;
/// - a ColorChecker patch is uniform to about 1 %, so 3 % of curvature or texture in a square is
///   not taken for a second surface.
///
/// No square of the committed captures, of demosaiced (bilinear, Malvar) dark-room and 800 lux
/// captures or of the black-box reviews' captures is flagged; the committed dark-room capture with
/// its description moved by 8, 12, 16 or 20 px is refused (largest departures 14–38 %).
public enum PatchUniformity {
    /// Departures must exceed this many standard errors of a sub-square's mean.
    public static let noiseLimit = 6.0
    /// … and this fraction of the square's mean level.
    public static let relativeLimit = 0.03
    /// Upper bound of the noise correlation's area factor (`NoiseCorrelation`) assumed for the standard error.
    public static let correlationAllowance = 8.0

    /// The largest departure of a square from one surface, over the channels.
    public struct Departure: Sendable, Equatable {
        /// The channel (0 red, 1 green, 2 blue).
        public var channel: Int
        /// The departure relative to the plane's mean level (|mean| of the sub-squares).
        public var relative: Double
        /// The departure in standard errors of a sub-square's mean.
        public var standardErrors: Double
        /// Whether it exceeds both limits.
        public var isNonUniform: Bool { standardErrors > PatchUniformity.noiseLimit && relative > PatchUniformity.relativeLimit }
    }

    /// The worst departure of a sub-square of `square` in `signal` (black-subtracted, 3 planes) from
    /// one surface — the one nearest to failing both limits, over the channels — or nil when the
    /// square is too small to tell (sides under 6 pixels) or has too few usable pixels.
    public static func departure(signal: PlanarImage, square: PatchSquare, clipped: [UInt8]? = nil) -> Departure? {
        let w = signal.width, side = min(square.columns.count, square.rows.count)
        guard side >= 6, side > PhotonTransfer.pixelDistance else { return nil }
        let x0 = square.columns.lowerBound, y0 = square.rows.lowerBound
        func usable(_ x: Int, _ y: Int) -> Bool { clipped.map { $0[y * w + x] == 0 } ?? true }
        var worst: Departure?
        // How near a departure is to failing both limits (≥ 1: it fails them).
        func margin(_ d: Departure) -> Double { min(d.standardErrors / noiseLimit, d.relative / relativeLimit) }
        for c in 0..<min(3, signal.channelCount) {
            // The pixels' noise, robustly: differences `pixelDistance` apart along rows, and along
            // columns; the smaller, since a boundary parallel to one axis spoils only the differences
            // across it (a square half on the next patch spoils most of them).
            let lag = PhotonTransfer.pixelDistance
            func robustSigma(dx: Int, dy: Int) -> Double? {
                var differences: [Double] = []
                differences.reserveCapacity(square.pixelCount)
                for y in square.rows.lowerBound..<(square.rows.upperBound - dy) {
                    for x in square.columns.lowerBound..<(square.columns.upperBound - dx) where usable(x, y) && usable(x + dx, y + dy) {
                        differences.append(Double(signal[x + dx, y + dy, c]) - Double(signal[x, y, c]))
                    }
                }
                guard differences.count >= 12 else { return nil }
                return RobustScale.medianAndSigma(differences).sigma / 2.0.squareRoot()
            }
            guard let sigma = [robustSigma(dx: lag, dy: 0), robustSigma(dx: 0, dy: lag)].compactMap({ $0 }).min() else { continue }
            // Sub-square means, their centres and pixel counts: the square cut at a third and two
            // thirds of each side (sizes differ by at most one pixel; every pixel is in one).
            let xs = (0...3).map { x0 + $0 * square.columns.count / 3 }, ys = (0...3).map { y0 + $0 * square.rows.count / 3 }
            var means: [Double] = [], positions: [SIMD2<Double>] = [], counts: [Double] = []
            for v in 0..<3 {
                for u in 0..<3 {
                    var sum = 0.0, count = 0
                    for y in ys[v]..<ys[v + 1] {
                        for x in xs[u]..<xs[u + 1] where usable(x, y) {
                            sum += Double(signal[x, y, c]); count += 1
                        }
                    }
                    guard 2 * count >= (xs[u + 1] - xs[u]) * (ys[v + 1] - ys[v]) else { continue }
                    means.append(sum / Double(count)); counts.append(Double(count))
                    positions.append(SIMD2(Double(xs[u] + xs[u + 1]), Double(ys[v] + ys[v + 1])) / 2)
                }
            }
            guard means.count >= 6 else { continue }
            let plane = LinearLeastSquares.plane(means, at: positions)
            let level = abs(means.reduce(0, +) / Double(means.count))
            var d: Departure?
            for k in means.indices {
                let departure = abs(means[k] - plane(positions[k]))
                let standardError = sigma * (min(counts[k], correlationAllowance) / counts[k]).squareRoot()
                let here = Departure(channel: c, relative: level > 0 ? departure / level : .infinity,
                                     standardErrors: standardError > 0 ? departure / standardError : (departure > 0 ? .infinity : 0))
                if d.map({ margin(here) > margin($0) }) ?? true { d = here }
            }
            guard let d else { continue }
            if worst.map({ margin(d) > margin($0) }) ?? true { worst = d }
        }
        return worst
    }
}
