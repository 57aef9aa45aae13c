import Foundation

/// What belongs to the flash in a given camera (SPEC 4.1): its camera-RGB white, the 3×3 matrix
/// from flash-white-balanced camera RGB to CIE XYZ (D65 white) and, optionally, its spectral power
/// distribution. Stored as JSON with `"schemaVersion": 1`, `"kind": "flash"`.
public struct FlashProfile: Sendable, Equatable {
    /// Free-form name of the flash.
    public var name: String
    /// The camera this response was measured with.
    public var cameraName: String?
    /// Camera RGB of a perfect white lit by the flash, any scale (normalized to green = 1 on read).
    public var whiteCameraRGB: SIMD3<Double>
    /// Maps flash-white-balanced camera RGB (white = 1,1,1) to XYZ with the D65 white at Y = 1.
    public var matrixToXYZD65: Matrix3
    /// Spectral power distribution as SPEC 4.2 JSON, when known.
    public var spectralPowerDistribution: JSONValue?
    /// How the flash's colour and level vary across the frame (`calibrate flat-field`), when measured.
    public var shading: FlashShading?
    /// Where in the frame `whiteCameraRGB` was measured (`calibrate chart`: the neutral patches); nil:
    /// the frame centre. `calibrate flat-field` makes the shading map relative to the white there.
    public var whiteReference: FlashWhiteReference?
    /// Fit statistics and provenance.
    public var metadata: [String: JSONValue]
    /// Keys this tool does not know, kept on rewrite.
    public var extra: [String: JSONValue]
    /// Expected error of the matrix by colour (optional key `colorimetricUncertainty`), learned at calibration.
    public var colorimetricUncertainty: ColorimetricUncertainty?

    /// Creates a profile; the white is normalized to green = 1.
    public init(name: String, cameraName: String?, whiteCameraRGB: SIMD3<Double>, matrixToXYZD65: Matrix3,
                spectralPowerDistribution: JSONValue? = nil, shading: FlashShading? = nil,
                colorimetricUncertainty: ColorimetricUncertainty? = nil,
                metadata: [String: JSONValue] = [:], extra: [String: JSONValue] = [:]) {
        self.name = name; self.cameraName = cameraName; self.shading = shading
        self.colorimetricUncertainty = colorimetricUncertainty
        self.whiteCameraRGB = whiteCameraRGB / whiteCameraRGB.y
        self.matrixToXYZD65 = matrixToXYZD65
        self.spectralPowerDistribution = spectralPowerDistribution
        self.metadata = metadata; self.extra = extra
    }

    static let knownKeys: Set<String> = ["schemaVersion", "kind", "name", "camera", "whiteCameraRGB",
                                         "matrixToXYZD65", "spectralPowerDistribution", "shading",
                                         ColorimetricUncertainty.jsonKey, FlashWhiteReference.jsonKey, "metadata"]

    /// Reads a profile from JSON; errors name the file and the key.
    public init(json: JSONValue, file: String) throws {
        let r = try JSONObjectReader(json, file: file)
        try r.checkSchemaVersion()
        if let kind = try r.optionalString("kind"), kind != "flash" {
            throw JSONFileError.invalidValue(file: file, key: "kind", expected: "\"flash\" (this is a \(kind) profile)")
        }
        let w = try r.numbers("whiteCameraRGB", count: 3)
        if let problem = Self.whiteProblem(SIMD3(w[0], w[1], w[2])) {
            throw JSONFileError.invalidValue(file: file, key: "whiteCameraRGB", expected: problem)
        }
        let matrix = try r.matrix3("matrixToXYZD65")
        if let problem = Self.matrixProblem(matrix) {
            throw JSONFileError.invalidValue(file: file, key: "matrixToXYZD65", expected: problem)
        }
        self.init(name: try r.optionalString("name") ?? "unnamed flash",
                  cameraName: try r.optionalString("camera"),
                  whiteCameraRGB: SIMD3(w[0], w[1], w[2]), matrixToXYZD65: matrix,
                  spectralPowerDistribution: try r.optionalSpectralTable("spectralPowerDistribution", columns: ["values"]),
                  shading: try r.members["shading"].map { try FlashShading(json: $0, file: file) },
                  colorimetricUncertainty: try r.members[ColorimetricUncertainty.jsonKey].map {
                      try ColorimetricUncertainty(json: $0, file: file)
                  },
                  metadata: try r.optionalMembers("metadata"),
                  extra: r.unknownMembers(known: Self.knownKeys))
        whiteReference = try r.members[FlashWhiteReference.jsonKey].map { try FlashWhiteReference(json: $0, file: file) }
        // Without a white reference the map's whites are relative to the frame centre's (where
        // `whiteCameraRGB` was measured): (1, 1, 1) there.
        if whiteReference == nil, let centre = shading?.value(atRelativeX: 0.5, y: 0.5).white,
           let c = (0..<3).first(where: { abs(centre[$0] - 1) > FlashShading.centreTolerance }) {
            throw JSONFileError.invalidValue(file: file, key: "shading.relativeWhiteCameraRGB",
                                             expected: "whites relative to the frame centre's without a \(FlashWhiteReference.jsonKey) (1 there within \(Int(FlashShading.centreTolerance * 100)) %; channel \(c) gives \(String(format: "%.4g", centre[c])))")
        }
    }

    /// Largest ratio of a channel of the flash white to green, or of green to it: a white flash in a
    /// camera whose three channels see it is far inside (daylight and xenon in raw camera RGB: red and
    /// blue 0.4–0.9 of green); beyond it a channel is not seeing the flash, or a value lost its scale.
    public static let whiteChannelRatioLimit = 50.0

    /// Throws `JSONFileError.invalidValue`, naming the key, for a profile that contradicts itself as
    /// `init(json:file:)` refuses it: a white that is not three positive numbers within
    /// `whiteChannelRatioLimit` of green, a matrix that is not invertible, does not map the white to
    /// D65's or collapses colours (`matrixConditionLimit`). `source` names the profile in the message
    /// (a profile built in code has no file). `FusionPipeline.run` calls it.
    public func validate(source: String) throws {
        if let problem = Self.whiteProblem(whiteCameraRGB) {
            throw JSONFileError.invalidValue(file: source, key: "whiteCameraRGB", expected: problem)
        }
        if let problem = Self.matrixProblem(matrixToXYZD65) {
            throw JSONFileError.invalidValue(file: source, key: "matrixToXYZD65", expected: problem)
        }
    }

    /// Why `white` (camera RGB, any scale) is no flash's white, or nil.
    static func whiteProblem(_ white: SIMD3<Double>) -> String? {
        guard white.x > 0, white.y > 0, white.z > 0, white.x.isFinite, white.y.isFinite, white.z.isFinite else {
            return "three positive numbers"
        }
        let ratios = white / white.y
        guard ratios.x.isFinite, ratios.z.isFinite,
              [ratios.x, ratios.z].allSatisfy({ $0 <= whiteChannelRatioLimit && $0 >= 1 / whiteChannelRatioLimit }) else {
            return "a flash white whose red and blue are within 1/\(Int(whiteChannelRatioLimit))–\(Int(whiteChannelRatioLimit))× its green "
                + String(format: "(they are %.3g and %.3g×): no white flash gives a camera channel so much more or less light than green", ratios.x, ratios.z)
        }
        return nil
    }

    /// Largest distance in CIE 1976 u′v′ (CIE 15:2004 §8.1) of the white's chromaticity, the matrix
    /// applied to (1, 1, 1), from D65's. A white-preserving fit (`calibrate`) maps it exactly; an
    /// unconstrained fit misses by a few thousandths (about 1–3 ΔE00); a forward matrix to XYZ with
    /// the D50 white (a DNG's) is 0.023 away, the identity 0.014.
    public static let whiteChromaticityTolerance = 0.01

    /// Largest condition number (Frobenius norms, ‖M‖·‖M⁻¹‖) accepted: a camera's colour filters
    /// overlap, so its matrix amplifies noise (the committed and held-out ones 3.7–14 in this measure, the Sigma's
    /// the largest), but not by a thousand: such a matrix collapses colours onto a plane.
    public static let matrixConditionLimit = 1000.0

    /// Why `matrix` cannot map flash-white-balanced camera RGB to XYZ with the D65 white (SPEC 4.1), or nil.
    static func matrixProblem(_ matrix: Matrix3) -> String? {
        guard matrix.rows.joined().allSatisfy(\.isFinite), let inverse = matrix.inverse else { return "an invertible matrix" }
        let white = matrix * SIMD3<Double>(1, 1, 1)
        guard white.x.isFinite, white.y.isFinite, white.z.isFinite, white.y >= 1e-3, white.y <= 1e3 else {
            return "a matrix that maps the flash white (1, 1, 1) to the D65 white at Y = 1 "
                + String(format: "(it gives Y = %.3g)", white.y)
        }
        func uv(_ v: SIMD3<Double>) -> SIMD2<Double> {
            let d = v.x + 15 * v.y + 3 * v.z
            return SIMD2(4 * v.x, 9 * v.y) / d
        }
        let d65 = WhitePoint.d65XYZ
        let offset = uv(white) - uv(d65), distance = (offset * offset).sum().squareRoot()
        guard distance.isFinite, distance <= whiteChromaticityTolerance else {
            let xyz = white / (white.x + white.y + white.z)
            return "a matrix that maps the flash white (1, 1, 1) to the D65 white "
                + String(format: "(it gives x, y = %.4f, %.4f, %.3f from D65's 0.3127, 0.3290 in u′v′; ", xyz.x, xyz.y, distance)
                + "a forward matrix to XYZ with the D50 white, as a DNG's, needs Bradford adaptation to D65)"
        }
        func frobenius(_ m: Matrix3) -> Double { m.rows.joined().reduce(0) { $0 + $1 * $1 }.squareRoot() }
        let condition = frobenius(matrix) * frobenius(inverse)
        guard condition.isFinite, condition <= matrixConditionLimit else {
            return String(format: "a camera's matrix, whose condition number is not above %.0f (this one's is %.3g: it collapses colours onto a plane)",
                          matrixConditionLimit, condition)
        }
        return nil
    }

    /// This profile with a flat field's shading map (`calibrate flat-field`; relative to the card's
    /// centre) made relative to the white where `whiteCameraRGB` was measured (`whiteReference`,
    /// when there is one) and set as its `shading`. (The caller checks that the reference's capture
    /// has the flat field's aspect: `FlashWhiteReference.hasAspect`.)
    public func adding(shading map: FlashShading) -> FlashProfile {
        var out = self
        out.shading = whiteReference.map { map.relativeToWhite(at: $0.relativePositions) } ?? map
        return out
    }

    /// Reads a profile file.
    public init(path: String) throws {
        try self.init(json: try JSONValue.read(path: path), file: path)
    }

    /// The profile as JSON (unknown keys included).
    public var json: JSONValue {
        var o = extra
        o["schemaVersion"] = .number(1)
        o["kind"] = .string("flash")
        o["name"] = .string(name)
        if let c = cameraName { o["camera"] = .string(c) }
        o["whiteCameraRGB"] = .array([whiteCameraRGB.x, whiteCameraRGB.y, whiteCameraRGB.z].map(JSONValue.number))
        o["matrixToXYZD65"] = .array(matrixToXYZD65.rows.map { .array($0.map(JSONValue.number)) })
        if let s = spectralPowerDistribution { o["spectralPowerDistribution"] = s }
        if let s = shading { o["shading"] = s.json }
        if let w = whiteReference { o[FlashWhiteReference.jsonKey] = w.json }
        if !metadata.isEmpty { o["metadata"] = .object(metadata) }
        if let u = colorimetricUncertainty { o[ColorimetricUncertainty.jsonKey] = u.json }
        return .object(o)
    }
}
