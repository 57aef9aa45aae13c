import Foundation

/// What belongs to the sensor (SPEC 4.1): black and white level, noise model and, optionally,
/// its spectral sensitivities. Stored as JSON with `"schemaVersion": 1`, `"kind": "camera"`.
public struct CameraProfile: Sendable, Equatable {
    /// Free-form name of the camera.
    public var name: String
    /// Black level in DN, subtracted from every sample.
    public var blackLevel: Double
    /// White (saturation) level in DN; samples at or near it are treated as clipped.
    public var whiteLevel: Double
    /// The sensor's noise model.
    public var noise: NoiseModel
    /// Spectral sensitivities as SPEC 4.2 JSON, when known.
    public var spectralSensitivity: JSONValue?
    /// Fit statistics and provenance.
    public var metadata: [String: JSONValue]
    /// Keys this tool does not know, kept so that nothing is lost on rewrite.
    public var extra: [String: JSONValue]

    /// Creates a profile.
    public init(name: String, blackLevel: Double, whiteLevel: Double, noise: NoiseModel,
                spectralSensitivity: JSONValue? = nil, metadata: [String: JSONValue] = [:],
                extra: [String: JSONValue] = [:]) {
        self.name = name; self.blackLevel = blackLevel; self.whiteLevel = whiteLevel
        self.noise = noise; self.spectralSensitivity = spectralSensitivity
        self.metadata = metadata; self.extra = extra
    }

    static let knownKeys: Set<String> = ["schemaVersion", "kind", "name", "blackLevel", "whiteLevel",
                                         "noise", "spectralSensitivity", "metadata"]

    /// Reads a profile from JSON; errors name the file and the key.
    public init(json: JSONValue, file: String) throws {
        let r = try JSONObjectReader(json, file: file)
        try r.checkSchemaVersion()
        if let kind = try r.optionalString("kind"), kind != "camera" {
            throw JSONFileError.invalidValue(file: file, key: "kind", expected: "\"camera\" (this is a \(kind) profile)")
        }
        name = try r.optionalString("name") ?? "unnamed camera"
        blackLevel = try r.number("blackLevel")
        whiteLevel = try r.number("whiteLevel")
        guard blackLevel >= 0 else {
            throw JSONFileError.invalidValue(file: file, key: "blackLevel", expected: "a non-negative code value")
        }
        guard whiteLevel > blackLevel else {
            throw JSONFileError.invalidValue(file: file, key: "whiteLevel", expected: "greater than blackLevel")
        }
        let n = try r.object("noise")
        noise = NoiseModel(readNoiseDN: try n.number("readNoiseDN"),
                           gainElectronsPerDN: try n.number("gainElectronsPerDN"),
                           referenceISO: try n.optionalNumber("referenceISO") ?? 100)
        guard noise.readNoiseDN >= 0 else { throw JSONFileError.invalidValue(file: file, key: "noise.readNoiseDN", expected: "non-negative") }
        guard noise.gainElectronsPerDN > 0 else { throw JSONFileError.invalidValue(file: file, key: "noise.gainElectronsPerDN", expected: "positive") }
        guard noise.referenceISO > 0 else { throw JSONFileError.invalidValue(file: file, key: "noise.referenceISO", expected: "positive") }
        // Noise as large as the whole range between black and white is no sensor's: every frame would
        // read as noise alone (read noise 1e6 DN, or a gain given in DN/e⁻ a million times off).
        let range = whiteLevel - blackLevel
        let sigmaAtWhite = (noise.readNoiseDN * noise.readNoiseDN + range / noise.gainElectronsPerDN).squareRoot()
        guard sigmaAtWhite < range else {
            throw JSONFileError.invalidValue(file: file, key: noise.readNoiseDN >= range ? "noise.readNoiseDN" : "noise.gainElectronsPerDN",
                                             expected: String(format: "a noise model whose noise at the white level is below the range between black and white (%.6g DN); ", range)
                                                + String(format: "with read noise %.6g DN and gain %.6g e⁻/DN it is %.6g DN", noise.readNoiseDN, noise.gainElectronsPerDN, sigmaAtWhite))
        }
        if n.members["correlation"] != nil {
            let c = try n.object("correlation")
            func factors(_ key: String) throws -> SIMD3<Double> {
                let v = try c.numbers(key, count: 3)
                // Below 1 needs anticorrelated neighbours (sharpening), which linear camera RGB does not have.
                guard v.allSatisfy({ $0 >= 1 }) else {
                    throw JSONFileError.invalidValue(file: file, key: c.prefix + key,
                                                     expected: "three numbers of at least 1 (1 = independent pixels)")
                }
                return SIMD3(v[0], v[1], v[2])
            }
            noise.correlation = NoiseCorrelation(blockFactor: try factors("blockFactor"), areaFactor: try factors("areaFactor"))
        }
        spectralSensitivity = try r.optionalSpectralTable("spectralSensitivity", columns: ["red", "green", "blue"])
        metadata = try r.optionalMembers("metadata")
        extra = r.unknownMembers(known: Self.knownKeys)
    }

    /// Reads a profile file.
    public init(path: String) throws {
        try self.init(json: try JSONValue.read(path: path), file: path)
    }

    /// The profile as JSON (unknown keys included).
    public var json: JSONValue {
        var o = extra
        o["schemaVersion"] = .number(1)
        o["kind"] = .string("camera")
        o["name"] = .string(name)
        o["blackLevel"] = .number(blackLevel)
        o["whiteLevel"] = .number(whiteLevel)
        var n: [String: JSONValue] = ["readNoiseDN": .number(noise.readNoiseDN),
                                      "gainElectronsPerDN": .number(noise.gainElectronsPerDN),
                                      "referenceISO": .number(noise.referenceISO)]
        if noise.correlation != .independent {
            let c = noise.correlation
            func array(_ v: SIMD3<Double>) -> JSONValue { .array([.number(v.x), .number(v.y), .number(v.z)]) }
            n["correlation"] = .object(["blockFactor": array(c.blockFactor), "areaFactor": array(c.areaFactor)])
        }
        o["noise"] = .object(n)
        if let s = spectralSensitivity { o["spectralSensitivity"] = s }
        if !metadata.isEmpty { o["metadata"] = .object(metadata) }
        return .object(o)
    }
}
