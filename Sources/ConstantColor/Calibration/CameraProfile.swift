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
    /// The same inside `noise` (a vendor's own terms beside the model's).
    public var noiseExtra: [String: JSONValue] = [:]

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
    /// The keys of `noise` this tool reads.
    static let knownNoiseKeys: Set<String> = ["readNoiseDN", "gainElectronsPerDN", "referenceISO", "correlation"]

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
        if let (key, expected) = Self.levelProblem(blackLevel: blackLevel, whiteLevel: whiteLevel) {
            throw JSONFileError.invalidValue(file: file, key: key, expected: expected)
        }
        let n = try r.object("noise")
        noise = NoiseModel(readNoiseDN: try n.number("readNoiseDN"),
                           gainElectronsPerDN: try n.number("gainElectronsPerDN"),
                           referenceISO: try n.optionalNumber("referenceISO") ?? 100)
        if let (key, expected) = Self.noiseProblem(noise, blackLevel: blackLevel, whiteLevel: whiteLevel) {
            throw JSONFileError.invalidValue(file: file, key: key, expected: expected)
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
        noiseExtra = n.unknownMembers(known: Self.knownNoiseKeys)
    }

    /// Throws `JSONFileError.invalidValue`, naming the key, for a profile that contradicts itself as
    /// `init(json:file:)` refuses it: levels that are not numbers with white above black ≥ 0, a noise
    /// model without a positive gain and ISO and a read noise ≥ 0, or whose noise at the white level
    /// exceeds the range between black and white, correlation factors under 1. `source` names the
    /// profile in the message (a profile built in code has no file). `FusionPipeline.run` calls it.
    public func validate(source: String) throws {
        if let (key, expected) = Self.levelProblem(blackLevel: blackLevel, whiteLevel: whiteLevel)
            ?? Self.noiseProblem(noise, blackLevel: blackLevel, whiteLevel: whiteLevel) {
            throw JSONFileError.invalidValue(file: source, key: key, expected: expected)
        }
        let c = noise.correlation
        for (key, v) in [("blockFactor", c.blockFactor), ("areaFactor", c.areaFactor)] where !(v.min() >= 1 && v.max().isFinite) {
            throw JSONFileError.invalidValue(file: source, key: "noise.correlation." + key,
                                             expected: "three numbers of at least 1 (1 = independent pixels)")
        }
    }

    /// The largest white level a profile may give.
    public static let largestLevel = 1e9

    /// The key and what it must be where the levels are not a black ≥ 0 below a white, or nil.
    static func levelProblem(blackLevel: Double, whiteLevel: Double) -> (key: String, expected: String)? {
        guard blackLevel >= 0 && blackLevel.isFinite else { return ("blackLevel", "a non-negative code value") }
        guard whiteLevel > blackLevel && whiteLevel.isFinite else { return ("whiteLevel", "greater than blackLevel") }
        // A code value: 16-bit frames end at 65535, float frames' scale is the converter's. Beyond
        // `largestLevel` it is a typo, and the noise test below blamed the gain for it (1e308).
        guard whiteLevel <= largestLevel else { return ("whiteLevel", "a code value of at most 10⁹ (16-bit frames end at 65535)") }
        return nil
    }

    /// The key and what it must be where `noise` is no sensor's between these levels, or nil.
    static func noiseProblem(_ noise: NoiseModel, blackLevel: Double, whiteLevel: Double) -> (key: String, expected: String)? {
        guard noise.readNoiseDN >= 0 && noise.readNoiseDN.isFinite else { return ("noise.readNoiseDN", "non-negative") }
        guard noise.gainElectronsPerDN > 0 && noise.gainElectronsPerDN.isFinite else { return ("noise.gainElectronsPerDN", "positive") }
        guard noise.referenceISO > 0 && noise.referenceISO.isFinite else { return ("noise.referenceISO", "positive") }
        // An ISO a camera records (`ExposureSettings.plausibleRanges`): 0.001 made every frame's noise
        // 10⁵ times the calibration's, and a lit ambient frame read as holding no light.
        let isoRange = ExposureSettings.plausibleRanges[2].range
        guard isoRange.contains(noise.referenceISO) else {
            return ("noise.referenceISO", "an ISO speed a camera records (\(Int(isoRange.lowerBound))…\(Int(isoRange.upperBound)))")
        }
        // Noise as large as the whole range between black and white is no sensor's: every frame would
        // read as noise alone (read noise 1e6 DN, or a gain given in DN/e⁻ a million times off).
        let range = whiteLevel - blackLevel
        let sigmaAtWhite = (noise.readNoiseDN * noise.readNoiseDN + range / noise.gainElectronsPerDN).squareRoot()
        guard sigmaAtWhite < range else {
            return (noise.readNoiseDN >= range ? "noise.readNoiseDN" : "noise.gainElectronsPerDN",
                    String(format: "a noise model whose noise at the white level is below the range between black and white (%.6g DN); ", range)
                        + String(format: "with read noise %.6g DN and gain %.6g e⁻/DN it is %.6g DN", noise.readNoiseDN, noise.gainElectronsPerDN, sigmaAtWhite))
        }
        return nil
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
        var n = noiseExtra
        n["readNoiseDN"] = .number(noise.readNoiseDN)
        n["gainElectronsPerDN"] = .number(noise.gainElectronsPerDN)
        n["referenceISO"] = .number(noise.referenceISO)
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
