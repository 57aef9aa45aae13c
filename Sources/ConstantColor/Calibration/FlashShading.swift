import Foundation

/// How the flash's colour and level vary across the frame (issue 7): a coarse grid, in
/// frame-relative coordinates so that it serves any image size, measured by `calibrate flat-field`
/// from a flash-only capture of a uniform grey card.
///
/// A phosphor-converted LED is bluer on its axis than at wide angles, and its irradiance falls off
/// towards the corners. At node (i, j) the grid holds
/// - `relativeWhite`: the local camera-RGB white of the flash divided, channel by channel, by the
///   white where the profile's `whiteCameraRGB` was measured (both normalized to green = 1): the
///   frame centre (1, 1, 1 there; `calibrate spectral`), or the median over a chart's neutral patches
///   (`FlashWhiteReference`, `calibrate chart`); a grey card that is not perfectly neutral cancels
///   out because the map is relative to the card itself.
/// - `relativeLevel`: the local flash irradiance (green channel) relative to the centre.
///
/// Node (i, j) sits at the centre of cell (i, j) of a `columns` × `rows` partition of the frame:
/// frame-relative position ((i + ½) / columns, (j + ½) / rows). Between nodes the map is bilinear
/// (Press et al., Numerical Recipes 3rd ed., §3.6);
/// in the outer half cell it extrapolates linearly from the last two nodes (the shading keeps
/// rising to the corners), and the result is kept at or above `minimumValue`.
///
/// Correction (`FlashShadingCorrection`): every channel of a flash-lit image is divided by the local
/// relative white, so a grey card renders neutral everywhere, with the white balance of the place
/// the profile's white was measured.
/// Level flattening (also dividing by `relativeLevel`) is a separate choice, off by default: the
/// fall-off is part of the dark-room image SPEC 2 describes (lightness differences across the frame
/// survive), and it also depends on the subject's distance and shape, which a flat-field card at one
/// distance does not share; colour shading does not depend on distance (it is a function of the
/// emission angle only), so it is always corrected when the map is present.
public struct FlashShading: Sendable, Equatable {
    /// Number of grid columns (≥ 2; `calibrate flat-field` makes at least 3, `ProfileWarnings` warns of 2).
    public let columns: Int
    /// Number of grid rows (≥ 2; as `columns`).
    public let rows: Int
    /// Relative camera-RGB white per node, row-major from the top-left node (`rows * columns`).
    public var relativeWhite: [SIMD3<Double>]
    /// Relative flash level per node, row-major (`rows * columns`).
    public var relativeLevel: [Double]
    /// Members of the JSON object this tool does not know, kept on rewrite.
    public var extra: [String: JSONValue]
    /// Width and height of the flat-field capture the map was measured on (nil: not recorded, as in
    /// maps written before it was). The grid is frame-relative, so it serves any size of the same
    /// aspect; a frame of another aspect (a portrait capture's map on a landscape pair) would put
    /// the flash's axis and corners elsewhere (`fits(width:height:)`).
    public var captureSize: SIMD2<Int>? = nil
    /// The flat-field capture's focal length (EXIF FocalLength), mm, where it had one: the map is
    /// laid on the frame, so a pair shot at another field of view puts the flash's shading elsewhere
    /// (a probe's card at 1.5× the pairs' focal length: corners 4.5 ΔE00 off, nearly all confident);
    /// `fuse` warns where a pair's differs (`focalLengthMismatch`).
    public var captureFocalLengthMillimetres: Double? = nil

    /// Relative difference of focal lengths beyond which a pair is said to be shot at another field
    /// of view than the map (5 %: a zoom's marked steps are further apart; a lens's own focal length is
    /// recorded the same every time).
    public static let focalLengthTolerance = 0.05

    /// Where both are known and differ by more than `focalLengthTolerance`, the pair's and the map's
    /// focal length; else nil.
    public func focalLengthMismatch(pairFocalLengthMillimetres pair: Double?) -> (pair: Double, map: Double)? {
        guard let pair, let map = captureFocalLengthMillimetres, pair > 0, map > 0,
              abs(log(pair / map)) > log(1 + Self.focalLengthTolerance) else { return nil }
        return (pair, map)
    }

    /// Whether a `width × height` frame has the aspect of the capture the map was measured on
    /// (within 2 %), or the capture's size is not recorded.
    public func fits(width: Int, height: Int) -> Bool {
        guard let c = captureSize else { return true }
        return Self.sameAspect(c, width: width, height: height)
    }

    /// Whether a `width × height` frame has the aspect of a `capture` (within 2 %): frame-relative
    /// positions measured on the one fall at the same places of the other (sizes not positive: yes).
    public static func sameAspect(_ capture: SIMD2<Int>, width: Int, height: Int) -> Bool {
        guard capture.x > 0, capture.y > 0, width > 0, height > 0 else { return true }
        return abs(log((Double(width) / Double(height)) / (Double(capture.x) / Double(capture.y)))) <= log(1.02)
    }

    /// The smallest value an interpolated white channel or level may take (guards extrapolation).
    public static let minimumValue = 1e-3

    /// Creates a map; the nodes are taken as given (see `normalizedToCentre()`).
    public init(columns: Int, rows: Int, relativeWhite: [SIMD3<Double>], relativeLevel: [Double],
                extra: [String: JSONValue] = [:]) {
        precondition(columns >= 2 && rows >= 2, "FlashShading: at least 2 x 2 nodes")
        precondition(relativeWhite.count == columns * rows && relativeLevel.count == columns * rows,
                     "FlashShading: node count does not match the grid")
        self.columns = columns; self.rows = rows
        self.relativeWhite = relativeWhite; self.relativeLevel = relativeLevel; self.extra = extra
    }

    /// Interpolation position along one axis: the lower node index and the (possibly extrapolating) weight.
    @inlinable static func axis(_ f: Double, nodes: Int) -> (Int, Double) {
        let g = f * Double(nodes) - 0.5
        let i = min(nodes - 2, max(0, Int(g.rounded(.down))))
        let t = min(1.5, max(-0.5, g - Double(i)))       // at most half a cell beyond the outer node
        return (i, t)
    }

    /// The map at a frame-relative point (x, y in [0, 1], x right, y down): relative white and level.
    public func value(atRelativeX x: Double, y: Double) -> (white: SIMD3<Double>, level: Double) {
        let (i, s) = Self.axis(x, nodes: columns), (j, t) = Self.axis(y, nodes: rows)
        let k = j * columns + i
        @inline(__always) func mix<V: FloatingPoint>(_ a: V, _ b: V, _ c: V, _ d: V, _ s: V, _ t: V) -> V {
            (1 - t) * ((1 - s) * a + s * b) + t * ((1 - s) * c + s * d)
        }
        let w = relativeWhite, l = relativeLevel
        var white = SIMD3<Double>()
        for c in 0..<3 {
            white[c] = max(Self.minimumValue, mix(w[k][c], w[k + 1][c], w[k + columns][c], w[k + columns + 1][c], s, t))
        }
        let level = max(Self.minimumValue, mix(l[k], l[k + 1], l[k + columns], l[k + columns + 1], s, t))
        return (white, level)
    }

    /// The same map rescaled so that its value at the frame centre is white (1, 1, 1) and level 1.
    public func normalizedToCentre() -> FlashShading {
        let c = value(atRelativeX: 0.5, y: 0.5)
        var out = self
        out.relativeWhite = relativeWhite.map { $0 / c.white }
        out.relativeLevel = relativeLevel.map { $0 / c.level }
        return out
    }

    /// The same map with its whites divided, channel by channel, by their median at `positions`
    /// (frame-relative): relative to the flash's white where a profile's white was measured
    /// (`FlashWhiteReference`), which `calibrate chart` takes as the per-channel median over its
    /// neutral patches (`FlashWhiteEstimate`), so that the correction leaves the white it measured
    /// as it measured it. Levels are unchanged.
    public func relativeToWhite(at positions: [SIMD2<Double>]) -> FlashShading {
        precondition(!positions.isEmpty)
        let whites = positions.map { value(atRelativeX: $0.x, y: $0.y).white }
        func median(_ c: Int) -> Double {
            let v = whites.map { $0[c] }.sorted(), k = v.count / 2
            return v.count % 2 == 1 ? v[k] : 0.5 * (v[k - 1] + v[k])
        }
        let reference = SIMD3(median(0), median(1), median(2))
        var out = self
        out.relativeWhite = relativeWhite.map { $0 / reference }
        return out
    }

    /// Reads the `shading` member of a flash profile; errors name the file and the key.
    ///
    /// `{"columns": C, "rows": R, "relativeWhiteCameraRGB": [[r, g, b] × R·C], "relativeLevel": [× R·C]}`,
    /// row-major from the top-left node; every value finite and positive.
    public init(json: JSONValue, file: String, key: String = "shading") throws {
        let r = try JSONObjectReader(json, file: file, prefix: key + ".")
        func count(_ name: String) throws -> Int {
            let v = try r.number(name)
            guard v == v.rounded(), v >= 2, v <= 1024 else {
                throw JSONFileError.invalidValue(file: file, key: "\(key).\(name)", expected: "an integer from 2 to 1024")
            }
            return Int(v)
        }
        let columns = try count("columns"), rows = try count("rows")
        let n = columns * rows
        guard let whites = r.members["relativeWhiteCameraRGB"] else {
            throw JSONFileError.missingKey(file: file, key: "\(key).relativeWhiteCameraRGB")
        }
        guard let rowsOfWhite = whites.array, rowsOfWhite.count == n,
              let triples = Optional(rowsOfWhite.compactMap(\.doubles)), triples.count == n,
              triples.allSatisfy({ $0.count == 3 && $0.allSatisfy { $0.isFinite && $0 > 0 } }) else {
            throw JSONFileError.invalidValue(file: file, key: "\(key).relativeWhiteCameraRGB",
                                             expected: "\(n) (columns x rows) triples of finite positive numbers")
        }
        guard r.members["relativeLevel"] != nil else { throw JSONFileError.missingKey(file: file, key: "\(key).relativeLevel") }
        guard let levels = r.members["relativeLevel"]?.doubles, levels.count == n, levels.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            throw JSONFileError.invalidValue(file: file, key: "\(key).relativeLevel",
                                             expected: "\(n) (columns x rows) finite positive numbers")
        }
        // Bounds a flash's field can have: its colour changes across it by tens of percent (a
        // phosphor LED's blue, ±6 % on the committed flat field), not by factors; its level falls to
        // the corners by cos⁴-like factors, not by orders of magnitude. A map beyond them is not a
        // flash's (a probe's [2, 1, 0.5] everywhere recoloured the whole output, [10³⁰, 1, 1] too,
        // and corners 10⁶ darker clipped 68 % of the flattened output, all `constantColor` at the
        // reference's confidence).
        if let k = triples.firstIndex(where: { $0.contains { !Self.whiteBounds.contains($0) } }) {
            throw JSONFileError.invalidValue(file: file, key: "\(key).relativeWhiteCameraRGB",
                                             expected: "each channel from 1/4 to 4 of the reference white's (node \(k) holds \(triples[k].map { String(format: "%g", $0) }.joined(separator: ", ")))")
        }
        if let k = levels.firstIndex(where: { !Self.levelBounds.contains($0) }) {
            throw JSONFileError.invalidValue(file: file, key: "\(key).relativeLevel",
                                             expected: "levels from 1/1000 to 1000 of the centre's (node \(k) holds \(String(format: "%g", levels[k])))")
        }
        self.init(columns: columns, rows: rows, relativeWhite: triples.map { SIMD3($0[0], $0[1], $0[2]) },
                  relativeLevel: levels, extra: r.unknownMembers(known: Self.knownKeys))
        // The level is relative to the frame centre's (`normalizedToCentre`, as `calibrate flat-field`
        // writes it): a map whose centre is not 1 is relative to something else.
        let centre = value(atRelativeX: 0.5, y: 0.5)
        guard abs(centre.level - 1) <= Self.centreTolerance else {
            throw JSONFileError.invalidValue(file: file, key: "\(key).relativeLevel",
                                             expected: "levels relative to the frame centre's (1 there within \(Int(Self.centreTolerance * 100)) %; the map gives \(String(format: "%.4g", centre.level)))")
        }
        if let size = r.members["captureSize"] {
            guard let v = size.doubles, v.count == 2, v.allSatisfy({ $0 >= 1 && $0 <= 1e6 && $0 == $0.rounded() }) else {
                throw JSONFileError.invalidValue(file: file, key: "\(key).captureSize", expected: "[width, height] in pixels (positive integers)")
            }
            captureSize = SIMD2(Int(v[0]), Int(v[1]))
        }
        if let f = r.members["captureFocalLengthMm"] {
            guard let v = f.double, v > 0, v.isFinite else {
                throw JSONFileError.invalidValue(file: file, key: "\(key).captureFocalLengthMm", expected: "a positive number of millimetres")
            }
            captureFocalLengthMillimetres = v
        }
    }

    static let knownKeys: Set<String> = ["columns", "rows", "relativeWhiteCameraRGB", "relativeLevel", "captureSize", "captureFocalLengthMm"]

    /// The relative whites a map may hold, per channel (`init(json:file:key:)`).
    static let whiteBounds = 0.25...4.0
    /// The relative levels a map may hold.
    static let levelBounds = 0.001...1000.0
    /// How far from 1 a map's level (and, without a white reference, its white) may be at the frame
    /// centre: 5 % (`calibrate flat-field` writes exactly 1 there).
    public static let centreTolerance = 0.05

    /// The map as JSON (unknown members included).
    public var json: JSONValue {
        var o = extra
        o["columns"] = .number(Double(columns))
        o["rows"] = .number(Double(rows))
        o["relativeWhiteCameraRGB"] = .array(relativeWhite.map { .array([$0.x, $0.y, $0.z].map(JSONValue.number)) })
        o["relativeLevel"] = .array(relativeLevel.map(JSONValue.number))
        if let c = captureSize { o["captureSize"] = .array([.number(Double(c.x)), .number(Double(c.y))]) }
        if let f = captureFocalLengthMillimetres { o["captureFocalLengthMm"] = .number(f) }
        return .object(o)
    }
}

/// The per-pixel correction of a `FlashShading` map: each channel divided by the local relative
/// white (and, with `flattenLevel`, by the relative level too), applied in place to camera-RGB
/// images lit by the flash (the dark-room estimate, the flash frame used by the gap fill).
public struct FlashShadingCorrection: Sendable {
    /// The map.
    public let shading: FlashShading
    /// Whether the fall-off is flattened as well as the colour (see `FlashShading`).
    public let flattenLevel: Bool

    /// Creates a correction.
    public init(_ shading: FlashShading, flattenLevel: Bool = false) {
        self.shading = shading; self.flattenLevel = flattenLevel
    }

    /// The per-channel gain at a frame-relative point: 1 / relative white (÷ level when flattening).
    public func gain(atRelativeX x: Double, y: Double) -> SIMD3<Double> {
        let v = shading.value(atRelativeX: x, y: y)
        return 1 / (flattenLevel ? v.white * v.level : v.white)
    }

    /// Multiplies every pixel of a 3-plane image by `gain` at its centre ((x + ½) / width, (y + ½) / height).
    ///
    /// Row bands over the cores. Each band interpolates the nodes along y once per row (white and
    /// level, `columns` values each), then along x into three planar gain rows (scratch allocated
    /// once per band, single precision), and scales the three planes row by row.
    public func apply(to image: inout PlanarImage) {
        precondition(image.channelCount == 3, "FlashShadingCorrection: a 3-plane image is required")
        let w = image.width, h = image.height, n = image.pixelCount
        guard w > 0, h > 0 else { return }
        let columns = shading.columns, rows = shading.rows
        // Along x: node index and weight per pixel column, once.
        var xs = [Int](repeating: 0, count: w), xt = [Float](repeating: 0, count: w)
        for x in 0..<w {
            let (i, t) = FlashShading.axis((Double(x) + 0.5) / Double(w), nodes: columns)
            xs[x] = i; xt[x] = Float(t)
        }
        // Nodes as four planes of Float: red, green, blue white, level (1 when not flattening).
        var nodes = [Float](repeating: 1, count: 4 * columns * rows)
        for k in 0..<(columns * rows) {
            for c in 0..<3 { nodes[c * columns * rows + k] = Float(shading.relativeWhite[k][c]) }
            if flattenLevel { nodes[3 * columns * rows + k] = Float(shading.relativeLevel[k]) }
        }
        let floor = Float(FlashShading.minimumValue)
        image.samples.withUnsafeMutableBufferPointer { buffer in
        xs.withUnsafeBufferPointer { xsBuffer in
        xt.withUnsafeBufferPointer { xtBuffer in
        nodes.withUnsafeBufferPointer { nodeBuffer in
            let out = SharedMutableBuffer(buffer)
            let inputs = UncheckedSendableBox((xsBuffer, xtBuffer, nodeBuffer))
            forEachRowBand(rowCount: h) { band in
                let (xs, xt, nodes) = inputs.value
                let nodeCount = columns * rows
                var rowNodes = [Float](repeating: 0, count: 4 * columns)
                var gains = [Float](repeating: 0, count: 3 * w)
                rowNodes.withUnsafeMutableBufferPointer { r in
                gains.withUnsafeMutableBufferPointer { g in
                    for y in band {
                        let (j, td) = FlashShading.axis((Double(y) + 0.5) / Double(h), nodes: rows)
                        let t = Float(td)
                        for p in 0..<4 {
                            for i in 0..<columns {
                                let a = nodes[p * nodeCount + j * columns + i], b = nodes[p * nodeCount + (j + 1) * columns + i]
                                r[p * columns + i] = a + t * (b - a)
                            }
                        }
                        let lc = 3 * columns
                        for x in 0..<w {
                            let i = xs[x], s = xt[x]
                            let level = max(floor, r[lc + i] + s * (r[lc + i + 1] - r[lc + i]))
                            for c in 0..<3 {
                                let a = r[c * columns + i], b = r[c * columns + i + 1]
                                g[c * w + x] = 1 / (max(floor, a + s * (b - a)) * level)
                            }
                        }
                        let row = y * w
                        for c in 0..<3 {
                            let o = out.base + c * n + row, gc = g.baseAddress! + c * w
                            for x in 0..<w { o[x] *= gc[x] }
                        }
                    }
                }
                }
            }
        }
        }
        }
        }
    }
}
