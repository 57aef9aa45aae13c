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
        guard w.allSatisfy({ $0 > 0 }) else {
            throw JSONFileError.invalidValue(file: file, key: "whiteCameraRGB", expected: "three positive numbers")
        }
        let matrix = try r.matrix3("matrixToXYZD65")
        guard matrix.inverse != nil else {
            throw JSONFileError.invalidValue(file: file, key: "matrixToXYZD65", expected: "an invertible matrix")
        }
        self.init(name: try r.optionalString("name") ?? "unnamed flash",
                  cameraName: try r.optionalString("camera"),
                  whiteCameraRGB: SIMD3(w[0], w[1], w[2]), matrixToXYZD65: matrix,
                  spectralPowerDistribution: r.members["spectralPowerDistribution"],
                  shading: try r.members["shading"].map { try FlashShading(json: $0, file: file) },
                  colorimetricUncertainty: try r.members[ColorimetricUncertainty.jsonKey].map {
                      try ColorimetricUncertainty(json: $0, file: file)
                  },
                  metadata: try r.optionalMembers("metadata"),
                  extra: r.unknownMembers(known: Self.knownKeys))
        whiteReference = try r.members[FlashWhiteReference.jsonKey].map { try FlashWhiteReference(json: $0, file: file) }
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
