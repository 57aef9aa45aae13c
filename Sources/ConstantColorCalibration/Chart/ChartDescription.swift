import ConstantColor
import ConstantColorIO

/// One patch of a chart description (SPEC 4.3).
public struct ChartPatch: Sendable, Equatable {
    /// The patch's name ("dark skin").
    public var name: String
    /// Center in continuous pixel coordinates of the frame: x right, y down; pixel (i, j) covers
    /// [i, i+1) × [j, j+1).
    public var center: SIMD2<Double>
    /// Half the side of the sampled square, pixels.
    public var halfSize: Double
    /// Reference CIE L*a*b* relative to D65 (adapted with Bradford when the file gives D50).
    public var labD65: SIMD3<Double>

    /// Creates a patch.
    public init(name: String, center: SIMD2<Double>, halfSize: Double, labD65: SIMD3<Double>) {
        self.name = name; self.center = center; self.halfSize = halfSize; self.labD65 = labD65
    }

    /// The reference as CIE XYZ with the D65 white at Y = 1 (CIE 15:2004 §8.2.1, inverse).
    public var xyzD65: SIMD3<Double> { ColorScience.xyz(fromLab: labD65, white: ColorScience.whiteD65XYZ) }

    /// Reference chroma C*ab = √(a*² + b*²) (CIE 15:2004 §8.2.1).
    public var chroma: Double { (labD65.y * labD65.y + labD65.z * labD65.z).squareRoot() }
}

/// A chart description (SPEC 4.3): patches with their sampled squares and reference L*a*b*.
///
/// Accepted JSON: the chart object itself, `{"illuminant": "D65"|"D50", "patches": [...]}`, or any
/// object holding it under `"chart"` (a fixture's `truth.json`).
public struct ChartDescription: Sendable, Equatable {
    /// The illuminant the file's L*a*b* values were given under ("D65" or "D50").
    public var sourceIlluminant: String
    /// The patches, reference values relative to D65.
    public var patches: [ChartPatch]

    /// Reference chroma C*ab below which a patch counts as neutral (the ColorChecker's grey row
    /// has C*ab < 1; its least saturated coloured patch has C*ab > 15).
    public static let neutralChromaLimit = 3.0

    /// Creates a description from patches already relative to D65.
    public init(patches: [ChartPatch]) {
        sourceIlluminant = "D65"; self.patches = patches
    }

    /// Parses a chart description; every error is one line naming `file` and the key.
    public init(json: JSONValue, file: String) throws {
        var root = try JSONObjectReader(json, file: file)
        if root.members["patches"] == nil, root.members["chart"] != nil {
            root = try root.object("chart")
        }
        guard let list = root.members["patches"] else {
            // Neither a chart file nor an object holding one (a truth.json without its chart).
            throw root.prefix.isEmpty ? JSONFileError.missingKey(file: file, key: "patches' (a chart description) or 'chart")
                                      : JSONFileError.missingKey(file: file, key: root.prefix + "patches")
        }
        // Required: D50 values (as many published ColorChecker tables give them) read as D65 would be
        // off by several ΔE00, silently; a value of another type is refused, not taken as D65.
        let illuminant = try root.string("illuminant")
        guard illuminant == "D65" || illuminant == "D50" else {
            throw JSONFileError.invalidValue(file: file, key: root.prefix + "illuminant", expected: "\"D65\" or \"D50\"")
        }
        guard let items = list.array, !items.isEmpty else {
            throw JSONFileError.invalidValue(file: file, key: root.prefix + "patches", expected: "a non-empty array of patches")
        }
        var patches: [ChartPatch] = []
        for (k, item) in items.enumerated() {
            let p = try JSONObjectReader(item, file: file, prefix: root.prefix + "patches[\(k)].")
            let name = (try? p.string("name")) ?? "patch \(k + 1)"
            // Patches are told apart by name in every message and in the profile's metadata: a name
            // given twice (a copy-paste slip) made the fit blame the wrong patch.
            if let first = patches.firstIndex(where: { $0.name == name }) {
                throw JSONFileError.invalidValue(file: file, key: p.prefix + "name",
                                                 expected: "a name no other patch has ('\(name)' is patches[\(first)]'s)")
            }
            let c = try p.numbers("center", count: 2)
            guard c.allSatisfy({ abs($0) <= 1e7 }) else {
                throw JSONFileError.invalidValue(file: file, key: p.prefix + "center", expected: "[x, y] in pixels (within ±10⁷)")
            }
            let h = try p.number("halfSize")
            guard h > 0, h <= 1e7 else { throw JSONFileError.invalidValue(file: file, key: p.prefix + "halfSize", expected: "positive (pixels, at most 10⁷)") }
            // The sampled square holds the pixels whose centres (i + 0.5, j + 0.5) lie in it: none for
            // a half size well under half a pixel, which was then said to be a clipped patch.
            guard PatchSquare(center: SIMD2(c[0], c[1]), halfSize: h).pixelCount > 0 else {
                throw JSONFileError.invalidValue(file: file, key: p.prefix + "halfSize",
                                                 expected: "large enough that the square of side 2·halfSize around the center holds a pixel centre (\(h) holds none)")
            }
            let l = try p.numbers("lab", count: 3)
            let lab = SIMD3(l[0], l[1], l[2])
            guard lab.x >= 0, lab.x <= 100 else {
                throw JSONFileError.invalidValue(file: file, key: p.prefix + "lab", expected: "[L, a, b] with L in 0...100")
            }
            // The colours of objects lie within about ±170 in a* and b* (the optimal colours'
            // limits under D65): beyond ±200 a value is a typo (a* = 500 was fitted, with a warning).
            guard abs(lab.y) <= Self.largestAB, abs(lab.z) <= Self.largestAB else {
                throw JSONFileError.invalidValue(file: file, key: p.prefix + "lab",
                                                 expected: "[L, a, b] with a and b within ±\(Int(Self.largestAB)) (the colours of objects)")
            }
            // Two squares that share pixels sample one surface twice (or each other's edge): a
            // patch pasted twice under a new name was fitted as a 25th colour. Compared as the
            // pixels sampled (`PatchSquare`: centres in the half-open square), so squares that
            // only touch (a grid's patches side by side) share none.
            let centre = SIMD2(c[0], c[1])
            let square = PatchSquare(center: centre, halfSize: h)
            if let other = patches.firstIndex(where: { q in
                let s = PatchSquare(center: q.center, halfSize: q.halfSize)
                return s.columns.overlaps(square.columns) && s.rows.overlaps(square.rows) }) {
                throw JSONFileError.invalidValue(file: file, key: p.prefix + "center",
                                                 expected: "a square that does not overlap another patch's (it overlaps patches[\(other)], '\(patches[other].name)')")
            }
            patches.append(ChartPatch(name: name, center: centre, halfSize: h,
                                      labD65: illuminant == "D50" ? ColorScience.labD65(fromLabD50: lab) : lab))
        }
        sourceIlluminant = illuminant
        self.patches = patches
    }

    /// Reads a chart description file.
    public init(path: String) throws {
        try self.init(json: try JSONValue.read(path: path), file: path)
    }

    /// The largest |a*| or |b*| a patch's reference may have (`init(json:file:)`).
    public static let largestAB = 200.0

    /// Indices of the neutral patches (reference C*ab < `neutralChromaLimit`).
    public var neutralIndices: [Int] {
        patches.indices.filter { patches[$0].chroma < Self.neutralChromaLimit }
    }

    /// The fewest chromatic patches (C*ab at least `neutralChromaLimit`) a camera matrix is fitted
    /// to: a white-preserving 3×3 matrix keeps six degrees of freedom (Finlayson & Drew 1997), each
    /// patch's chromaticity fixes two, so three patches determine it exactly — a fit error of zero
    /// whatever the matrix's error elsewhere — and six give each parameter two equations.
    public static let minimumChromaticPatches = 6
    /// The least RMS chroma (C*ab) the chromatic patches must have along their weakest direction in
    /// a*b* (the smaller principal axis of their (a*, b*) about grey): colours along one line through
    /// grey (reds and cyans only) leave the other direction's matrix terms unfitted. The ColorChecker's
    /// 18 chromatic patches have 28.
    public static let minimumChromaticSpread = 10.0

    /// Why these patches cannot fix a camera matrix (too few chromatic patches, or chromatic patches
    /// along one line through grey); nil where they can. A matrix fitted to them came out 22 ΔE00 off
    /// on a full chart (6 neutral patches only: a fit error of 0.62 on its own patches).
    public var chromaticCoverageProblem: String? {
        let chromatic = patches.filter { $0.chroma >= Self.neutralChromaLimit }
        guard chromatic.count >= Self.minimumChromaticPatches else {
            return "\(chromatic.count) chromatic patch\(chromatic.count == 1 ? "" : "es") (C*ab ≥ \(Self.neutralChromaLimit)) of \(patches.count): a camera matrix needs at least \(Self.minimumChromaticPatches), of several hues (a white-preserving 3×3 matrix has six free parameters; fewer patches fit them exactly and the fit error says nothing)"
        }
        // The second moments of (a*, b*) about grey; the smaller eigenvalue of the 2×2 matrix.
        let n = Double(chromatic.count)
        let aa = chromatic.reduce(0) { $0 + $1.labD65.y * $1.labD65.y } / n
        let bb = chromatic.reduce(0) { $0 + $1.labD65.z * $1.labD65.z } / n
        let ab = chromatic.reduce(0) { $0 + $1.labD65.y * $1.labD65.z } / n
        let smaller = (aa + bb) / 2 - (((aa - bb) / 2) * ((aa - bb) / 2) + ab * ab).squareRoot()
        let spread = max(0, smaller).squareRoot()
        guard spread >= Self.minimumChromaticSpread else {
            return String(format: "the %d chromatic patches' colours lie along one line through grey (RMS chroma %.1f across it, at least %.0f needed): a camera matrix needs patches of several hues (reds, greens, blues, yellows)", chromatic.count, spread, Self.minimumChromaticSpread)
        }
        return nil
    }
}
