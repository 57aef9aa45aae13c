import ConstantColor
import Foundation

/// A `FlashShading` map from a flat-field capture: a uniform grey card filling the frame, lit by the
/// flash alone (flat-field calibration as in EMVA 1288 Release 4.0, section 8: flat − dark).
///
/// The signal is the capture minus the dark frame (pixel by pixel) when one is given, else minus
/// the black level. Pixels with any channel at or above black + 98 % of the range (clipped), or at
/// or below zero signal (dark), are left out. Each of the `columns` × `rows` cells gives one node:
/// per channel, the mean of its valid samples whose deviation from the cell's least-squares plane is
/// within 4 robust standard deviations (1.4826 · MAD, Hampel 1974) of the deviations' median, so dust
/// and hot pixels do not count. The node's white is its
/// RGB over its green, its level its green; the map is then normalized to the frame centre
/// (`FlashShading.normalizedToCentre`).
///
/// Refused (`FlatFieldError`): more than 1 % of the pixels clipped, a median green signal under 2 %
/// of the range (too dark to measure a few-percent shading), or a frame that does not look like a
/// uniform card — a cell with fewer than half its pixels valid, more than 10 % of a cell's pixels
/// farther from the cell's least-squares plane (the fall-off across a cell is shading) than 6 noise
/// σ + 5 %, a node whose log level departs by more than 0.05
/// from a smooth surface (a quartic in the position: what a flash's fall-off can do), a node whose
/// log red/green or blue/green departs by more than 0.03 from such a surface (a colour step: two
/// cards, a coloured object), or a relative white channel outside [0.7, 1.4] (a coloured card or
/// light, not an LED's angular shift).
public struct FlatFieldCalibration: Sendable {
    /// The fitted map, normalized to the frame centre.
    public var shading: FlashShading
    /// The median green signal of the valid pixels, DN above black.
    public var medianGreenSignalDN: Double
    /// Fraction of pixels clipped in some channel.
    public var clippedFraction: Double
    /// The largest relative standard error of a node's blue-over-green ratio (noise of the map's colour).
    public var maxRelativeWhiteStandardError: Double
    /// The largest departure of a node's log level from the smooth surface.
    public var maxLogLevelResidual: Double

    /// Fraction of the range at and above which a sample counts as clipped (as `ExposureNormalization`).
    public static let clippingFraction = 0.98
    /// Largest departure of a node's log level from the smooth surface: a flash's fall-off (inverse
    /// square and cos⁴ over the field) is smooth; a step is a second card, a shadow or an object.
    public static let levelSmoothnessLimit = 0.05
    /// Largest departure of a node's log red/green or blue/green from the smooth surface. A white
    /// LED's colour drifts with angle only as its phosphor's path length does (a few percent from the
    /// centre to the edge, smoothly), far more slowly than the level falls off.
    public static let colourSmoothnessLimit = 0.03
    /// How many of a cell's standard errors its colour's departure from the smooth surface may
    /// exceed `colourSmoothnessLimit` by before it counts: 5 (noise alone passes that in about one
    /// of 1.7 million cells per channel; the finest grid `calibrate flat-field` takes, 256 × 256, has
    /// 65 536). A grid that fine detects only larger steps: its cells' noise is larger.
    public static let noiseAllowance = 5.0

    /// Fits the map.
    ///
    /// - Parameters:
    ///   - capture: the flat-field capture in DN, 3 planes.
    ///   - dark: a dark frame of the same size in DN (lens capped), subtracted pixel by pixel; when nil
    ///     `blackLevel` is subtracted.
    ///   - ambient: where the room cannot be made dark, an ambient-only frame of the same card, camera
    ///     unmoved, in DN: its signal above `blackLevel`, times `ambientToCaptureScale` (the capture's
    ///     t·ISO/N² over the ambient frame's), is subtracted too, as `ChartCalibration` does (room light
    ///     rising smoothly across the card passes the uniformity checks and bends the map: +11–30 %
    ///     across a card put its white 5 % off). Pixels clipped in it are left out.
    ///   - blackLevel, whiteLevel: the sensor's levels, DN.
    ///   - noise: the camera's noise model and the capture's ISO (for the uniformity check).
    ///   - columns, rows: the grid (each cell must hold at least 16 pixels).
    ///   - file: the capture's path, for messages.
    public init(capture: PlanarImage, dark: PlanarImage? = nil, ambient: PlanarImage? = nil, ambientToCaptureScale: Double = 1,
                blackLevel: Double, whiteLevel: Double,
                noise: NoiseModel, iso: Double, columns: Int = 16, rows: Int = 12, file: String) throws(FlatFieldError) {
        guard capture.channelCount == 3 else { throw .notRGB(file: file, channels: capture.channelCount) }
        let w = capture.width, h = capture.height, n = capture.pixelCount
        guard columns >= 2, rows >= 2, w / columns >= 4, h / rows >= 4 else {
            throw .tooSmall(file: file, width: w, height: h, columns: columns, rows: rows)
        }
        if let dark, dark.width != w || dark.height != h || dark.channelCount != 3 {
            throw .darkMismatch(file: file, dark: "\(dark.width)x\(dark.height)x\(dark.channelCount)", capture: "\(w)x\(h)x3")
        }
        if let ambient, ambient.width != w || ambient.height != h || ambient.channelCount != 3 {
            throw .ambientMismatch(file: file, ambient: "\(ambient.width)x\(ambient.height)x\(ambient.channelCount)", capture: "\(w)x\(h)x3")
        }
        let clipDN = Float(blackLevel + Self.clippingFraction * (whiteLevel - blackLevel))
        let black = Float(blackLevel)
        // Signal and validity per pixel.
        var signal = PlanarImage(width: w, height: h, channelCount: 3)
        var valid = [Bool](repeating: true, count: n)
        var clippedCount = 0
        let offsets = dark?.samples ?? [Float](repeating: black, count: 3 * n)
        let ambientScale = Float(ambientToCaptureScale)
        for i in 0..<n {
            var isClipped = false, isDark = false
            for c in 0..<3 {
                let v = capture.samples[c * n + i]
                if v >= clipDN { isClipped = true }
                var s = v - offsets[c * n + i]
                if let ambient {
                    let a = ambient.samples[c * n + i]
                    if a >= clipDN { isClipped = true }
                    s -= (a - black) * ambientScale
                }
                if s <= 0 { isDark = true }
                signal.samples[c * n + i] = s
            }
            if isClipped { clippedCount += 1 }
            valid[i] = !isClipped && !isDark
        }
        let clippedFraction = Double(clippedCount) / Double(n)
        if clippedFraction > 0.01 { throw .clipped(file: file, fraction: clippedFraction) }
        var greens: [Float] = []
        greens.reserveCapacity(n)
        for i in 0..<n where valid[i] { greens.append(signal.samples[n + i]) }
        let medianGreen = greens.isEmpty ? 0 : PatchSampling.median(&greens)
        let range = whiteLevel - blackLevel
        if medianGreen < 0.02 * range { throw .tooDark(file: file, medianSignalDN: medianGreen, rangeDN: range) }

        // Robust means per cell and channel.
        let coefficients = noise.coefficients(iso: iso)
        var means = [SIMD3<Double>](repeating: .zero, count: columns * rows)
        var standardErrors = [SIMD3<Double>](repeating: .zero, count: columns * rows)
        var values: [Double] = [], scratch: [Double] = [], deviations: [Double] = [], positions: [SIMD2<Double>] = []
        for j in 0..<rows {
            let y0 = j * h / rows, y1 = (j + 1) * h / rows
            for i in 0..<columns {
                let x0 = i * w / columns, x1 = (i + 1) * w / columns
                let cellCount = (x1 - x0) * (y1 - y0)
                for c in 0..<3 {
                    values.removeAll(keepingCapacity: true)
                    positions.removeAll(keepingCapacity: true)
                    for y in y0..<y1 {
                        for x in x0..<x1 where valid[y * w + x] {
                            values.append(Double(signal.samples[c * n + y * w + x])); positions.append(SIMD2(Double(x), Double(y)))
                        }
                    }
                    guard 2 * values.count >= cellCount else {
                        throw .notUniform(file: file, reason: "cell (\(i), \(j)) has \(values.count) of \(cellCount) pixels usable (clipped or dark)")
                    }
                    // The fall-off across a cell is shading, not scatter (a coarse grid's cells span
                    // more of it than the 5 % allowed): the check and the robust trim use the
                    // deviations from the cell's least-squares plane.
                    let plane = LinearLeastSquares.plane(values, at: positions)
                    deviations.removeAll(keepingCapacity: true)
                    for k in values.indices { deviations.append(values[k] - plane(positions[k])) }
                    let (median, robustSigma) = RobustScale.medianAndSigma(deviations, scratch: &scratch)
                    let sigma = max(robustSigma, 1e-9)
                    // Uniformity: a card's pixels scatter by their noise (and the gentle shading) only.
                    let level = values.reduce(0, +) / Double(values.count)
                    let noiseSigma = (coefficients.readVarianceDN2 + coefficients.shotDNPerDN * max(level, 0)).squareRoot()
                    let far = 6 * noiseSigma + 0.05 * level
                    var outliers = 0, sum = 0.0, deviationSum = 0.0, deviationSum2 = 0.0, kept = 0.0
                    for (v, d) in zip(values, deviations) {
                        if abs(d - median) > far { outliers += 1 }
                        if abs(d - median) <= 4 * sigma { sum += v; deviationSum += d; deviationSum2 += d * d; kept += 1 }
                    }
                    if 10 * outliers > values.count {
                        throw .notUniform(file: file, reason: "cell (\(i), \(j)) is not uniform (\(Int((100 * Double(outliers) / Double(values.count)).rounded())) % of its pixels far from its smooth level: an edge, a pattern or another object)")
                    }
                    means[j * columns + i][c] = sum / kept
                    // The mean's standard error from the scatter about the plane (the fall-off is not noise).
                    let deviationMean = deviationSum / kept
                    standardErrors[j * columns + i][c] = (max(0, deviationSum2 / kept - deviationMean * deviationMean) / kept).squareRoot()
                }
            }
        }
        for k in means.indices where !(means[k].min() > 0) {
            throw .notUniform(file: file, reason: "cell (\(k % columns), \(k / columns)) has no signal")
        }
        var white = means.map { $0 / $0.y }
        var level = means.map(\.y)
        let raw = FlashShading(columns: columns, rows: rows, relativeWhite: white, relativeLevel: level).normalizedToCentre()
        white = raw.relativeWhite; level = raw.relativeLevel

        // Smoothness: log level, and the log of each relative white channel, against a quartic
        // surface in the cell-centre position.
        let basis: [[Double]] = (0..<(columns * rows)).map { k in
            let u = (Double(k % columns) + 0.5) / Double(columns) - 0.5, v = (Double(k / columns) + 0.5) / Double(rows) - 0.5
            let r2 = u * u + v * v
            return [1, u, v, u * u, u * v, v * v, r2 * r2]
        }
        // The largest departure of `values` from the surface beyond `noiseAllowance` standard errors
        // of each cell's value (`noise`; none given: 0), the departure itself there, and the cell
        // where it is (0, 0 and 0 when the grid has too few cells for the surface).
        func departure(_ values: [Double], noise: [Double]? = nil) -> (excess: Double, largest: Double, cell: Int) {
            guard let coefficients = LinearLeastSquares.fit(basis: basis, values: values) else { return (0, 0, 0) }
            var worst = (excess: -Double.infinity, largest: 0.0, cell: 0)
            for (k, (b, l)) in zip(basis, values).enumerated() {
                let d = abs(l - zip(coefficients, b).reduce(0) { $0 + $1.0 * $1.1 })
                let excess = d - Self.noiseAllowance * (noise?[k] ?? 0)
                if excess > worst.excess { worst = (excess, d, k) }
            }
            return worst
        }
        let residualMax = departure(level.map { log($0) }).largest
        if residualMax > Self.levelSmoothnessLimit {
            throw .notUniform(file: file, reason: String(format: "its level is not a smooth fall-off (a cell departs by %.0f %% from a smooth surface)", 100 * (exp(residualMax) - 1)))
        }
        for (c, name) in [(0, "red"), (2, "blue")] {
            // Each cell's log c/green is known to its pixels' noise: on a fine grid of small cells
            // that alone reached the limit (the committed card at 64 × 48 cells, 0.8–1.1 % per cell,
            // was refused as "not a smooth change"). A departure counts beyond `noiseAllowance` of it.
            let noise = means.indices.map { k in
                ((standardErrors[k][c] / means[k][c]) * (standardErrors[k][c] / means[k][c])
                    + (standardErrors[k].y / means[k].y) * (standardErrors[k].y / means[k].y)).squareRoot()
            }
            let d = departure(white.map { log($0[c]) }, noise: noise)
            if d.excess > Self.colourSmoothnessLimit {
                throw .notUniform(file: file, reason: String(format: "its colour is not a smooth change (cell (%d, %d)'s %@ relative to green departs by %.1f %% from a smooth surface, beyond its noise of %.1f %%): two cards, a coloured object or a second light?", d.cell % columns, d.cell / columns, name, 100 * (exp(d.largest) - 1), 100 * noise[d.cell]))
            }
        }
        if let bad = white.firstIndex(where: { $0.min() < 0.7 || $0.max() > 1.4 }) {
            let v = white[bad]
            throw .notUniform(file: file, reason: String(format: "cell (%d, %d) has a colour far from the centre's (relative white %.2f, %.2f, %.2f): a coloured card or a second light?", bad % columns, bad / columns, v.x, v.y, v.z))
        }
        var seMax = 0.0
        for k in means.indices {
            let m = means[k], se = standardErrors[k]
            seMax = max(seMax, ((se.z / m.z) * (se.z / m.z) + (se.y / m.y) * (se.y / m.y)).squareRoot())
        }
        shading = FlashShading(columns: columns, rows: rows, relativeWhite: white, relativeLevel: level)
        shading.captureSize = SIMD2(w, h)
        medianGreenSignalDN = medianGreen
        self.clippedFraction = clippedFraction
        maxRelativeWhiteStandardError = seMax
        maxLogLevelResidual = residualMax
    }
}

/// Why a flat-field capture was refused; every message names the file.
public enum FlatFieldError: Error, Equatable, CustomStringConvertible {
    /// Not 3 channels.
    case notRGB(file: String, channels: Int)
    /// Too few pixels for the grid.
    case tooSmall(file: String, width: Int, height: Int, columns: Int, rows: Int)
    /// Too many clipped pixels.
    case clipped(file: String, fraction: Double)
    /// Too little signal.
    case tooDark(file: String, medianSignalDN: Double, rangeDN: Double)
    /// It does not look like a uniform card.
    case notUniform(file: String, reason: String)
    /// The dark frame's size or channels differ from the capture's.
    case darkMismatch(file: String, dark: String, capture: String)
    /// The ambient frame's size or channels differ from the capture's.
    case ambientMismatch(file: String, ambient: String, capture: String)

    public var description: String { "\(file): \(problem)" }

    /// The file concerned.
    public var file: String {
        switch self {
        case .notRGB(let f, _), .tooSmall(let f, _, _, _, _), .clipped(let f, _), .tooDark(let f, _, _), .notUniform(let f, _),
             .darkMismatch(let f, _, _), .ambientMismatch(let f, _, _):
            return f
        }
    }

    /// What is wrong, without the file's name.
    public var problem: String {
        switch self {
        case .notRGB(_, let c): return "the flat field has \(c) channel(s); camera RGB is required"
        case .tooSmall(_, let w, let h, let c, let r):
            return "\(w)x\(h) is too small for a \(c)x\(r) grid (at least 4x4 pixels per cell)"
        case .clipped(_, let p):
            return String(format: "%.1f %% of the flat field's pixels are clipped; lower the exposure so the card stays below the white level", 100 * p)
        case .tooDark(_, let s, let r):
            return String(format: "the flat field is too dark (median green signal %.0f DN, under 2 %% of the %.0f DN range); expose the card brighter", s, r)
        case .notUniform(_, let why):
            return "does not look like a uniform grey card filling the frame: \(why)"
        case .darkMismatch(_, let d, let c):
            return "the dark frame is \(d) (width x height x channels) but the capture is \(c); they must match"
        case .ambientMismatch(_, let a, let c):
            return "the ambient frame is \(a) (width x height x channels) but the capture is \(c); it must be the same card's, camera unmoved"
        }
    }
}
