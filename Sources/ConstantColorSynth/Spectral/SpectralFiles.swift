import ConstantColor

/// A spectral table that is well-formed JSON but not a usable spectrum; names the file and the key.
public struct SpectralFileError: Error, Equatable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The key whose values are wrong.
    public var key: String
    /// What is wrong with them.
    public var problem: SpectralGridError

    /// Creates the error.
    public init(file: String, key: String, problem: SpectralGridError) {
        self.file = file; self.key = key; self.problem = problem
    }

    public var description: String { "\(file): key '\(key)': \(problem)" }
}

extension SpectralDistribution {
    /// Reads one distribution in SPEC 4.2 form, `{"wavelengthsNm": [...], "values": [...]}`.
    public init(json: JSONValue, file: String, extrapolation: SpectralExtrapolation = .constant) throws {
        let r = try JSONObjectReader(json, file: file)
        let w = try r.numbers("wavelengthsNm")
        let v = try r.numbers("values")
        let name = r.members["name"]?.string ?? file
        self = try Self.resampled(w, v, name: name, file: file, key: "values", extrapolation: extrapolation)
    }

    /// Reads a SPEC 4.2 distribution file.
    public init(path: String, extrapolation: SpectralExtrapolation = .constant) throws {
        try self.init(json: try JSONValue.read(path: path), file: path, extrapolation: extrapolation)
    }

    /// The distribution as SPEC 4.2 JSON on the working grid.
    public var json: JSONValue {
        .object(["name": .string(name),
                 "wavelengthsNm": .array(WorkingGrid.wavelengthsNm.map(JSONValue.number)),
                 "values": .array(values.map(JSONValue.number))])
    }

    /// `samplingNote(wavelengthsNm:channels:)` of a table in SPEC 4.2 form — a distribution's
    /// `values`, or a camera's `red`, `green` and `blue` — naming the file; nil when its sampling is
    /// fine or the table cannot be read (reading it says why).
    public static func samplingNote(json: JSONValue, file: String) -> String? {
        guard let object = json.object, let w = object["wavelengthsNm"]?.doubles else { return nil }
        let keys = object["values"] != nil ? ["values"] : ["red", "green", "blue"]
        let channels = keys.compactMap { object[$0]?.doubles }
        return samplingNote(wavelengthsNm: w, channels: channels).map { "\(file): \($0)" }
    }

    /// The same for a file; nil also when it cannot be read.
    public static func samplingNote(path: String) -> String? {
        (try? JSONValue.read(path: path)).flatMap { samplingNote(json: $0, file: path) }
    }

    static func resampled(_ w: [Double], _ v: [Double], name: String, file: String, key: String,
                          extrapolation: SpectralExtrapolation) throws -> SpectralDistribution {
        do {
            return try SpectralDistribution(wavelengthsNm: w, values: v, name: name, extrapolation: extrapolation)
        } catch {
            throw SpectralFileError(file: file, key: key, problem: error)
        }
    }
}

/// Several named distributions on one grid:
/// `{"wavelengthsNm": [...], "names": [n₁, ...], "values": [[...], ...]}`, `values[i]` belonging
/// to `names[i]` (the form of `fixtures/spectra/colorchecker-*.json`, the CMFs and the daylight basis).
public struct SpectralSet: Sendable, Equatable {
    /// Name of the set.
    public var name: String
    /// Where the data come from (the file's `source`).
    public var source: String
    /// The members, in file order.
    public var members: [SpectralDistribution]

    /// Creates a set.
    public init(name: String, source: String, members: [SpectralDistribution]) {
        self.name = name; self.source = source; self.members = members
    }

    /// Names of the members.
    public var names: [String] { members.map(\.name) }

    /// The member called `name`, if any.
    public subscript(name: String) -> SpectralDistribution? { members.first { $0.name == name } }

    /// Reads a set; every member is resampled with `extrapolation`.
    public init(json: JSONValue, file: String, extrapolation: SpectralExtrapolation = .constant) throws {
        let r = try JSONObjectReader(json, file: file)
        let w = try r.numbers("wavelengthsNm")
        guard let namesValue = r.members["names"] else { throw JSONFileError.missingKey(file: file, key: "names") }
        guard let names = namesValue.array?.compactMap(\.string), names.count == namesValue.array?.count, !names.isEmpty else {
            throw JSONFileError.invalidValue(file: file, key: "names", expected: "a non-empty array of strings")
        }
        guard let rows = r.members["values"] else { throw JSONFileError.missingKey(file: file, key: "values") }
        guard let table = rows.array, table.count == names.count else {
            throw JSONFileError.invalidValue(file: file, key: "values", expected: "an array of \(names.count) arrays (one per name)")
        }
        var members: [SpectralDistribution] = []
        for (i, row) in table.enumerated() {
            guard let v = row.doubles else {
                throw JSONFileError.invalidValue(file: file, key: "values[\(i)]", expected: "an array of numbers")
            }
            members.append(try SpectralDistribution.resampled(w, v, name: names[i], file: file,
                                                              key: "values[\(i)]", extrapolation: extrapolation))
        }
        self.init(name: r.members["name"]?.string ?? file, source: r.members["source"]?.string ?? "", members: members)
    }

    /// Reads a set file.
    public init(path: String, extrapolation: SpectralExtrapolation = .constant) throws {
        try self.init(json: try JSONValue.read(path: path), file: path, extrapolation: extrapolation)
    }
}

/// A camera's spectral sensitivities (SPEC 4.2: `{"wavelengthsNm", "red", "green", "blue"}`),
/// zero outside the measured range.
public struct CameraSensitivity: Sendable, Equatable {
    /// Name of the camera.
    public var name: String
    /// Red, green and blue channel sensitivities on the working grid.
    public var red: SpectralDistribution, green: SpectralDistribution, blue: SpectralDistribution

    /// Creates sensitivities from three channels.
    public init(name: String, red: SpectralDistribution, green: SpectralDistribution, blue: SpectralDistribution) {
        self.name = name; self.red = red; self.green = green; self.blue = blue
    }

    /// Reads SPEC 4.2 camera JSON (also the `spectralSensitivity` of a camera profile).
    public init(json: JSONValue, file: String) throws {
        let r = try JSONObjectReader(json, file: file)
        let w = try r.numbers("wavelengthsNm")
        let name = r.members["name"]?.string ?? file
        func channel(_ key: String) throws -> SpectralDistribution {
            let values = try r.numbers(key)
            // A sensitivity is a response, not negative beyond its measurement's noise (1 % of the
            // channel's peak); a negative lobe would subtract light from the channel.
            let peak = values.max() ?? 0
            if let i = values.indices.first(where: { values[$0] < -0.01 * max(peak, 0) }), i < w.count {
                throw JSONFileError.invalidValue(file: file, key: key,
                                                 expected: "a sensitivity, not negative (it is \(values[i]) at \(w[i]) nm, against a peak of \(peak))")
            }
            return try SpectralDistribution.resampled(w, values, name: "\(name) \(key)", file: file, key: key, extrapolation: .zero)
        }
        self.init(name: name, red: try channel("red"), green: try channel("green"), blue: try channel("blue"))
    }

    /// Reads a camera sensitivity file.
    public init(path: String) throws {
        try self.init(json: try JSONValue.read(path: path), file: path)
    }

    /// The sensitivities as SPEC 4.2 JSON on the working grid (for a camera profile).
    public var json: JSONValue {
        .object(["name": .string(name),
                 "wavelengthsNm": .array(WorkingGrid.wavelengthsNm.map(JSONValue.number)),
                 "red": .array(red.values.map(JSONValue.number)),
                 "green": .array(green.values.map(JSONValue.number)),
                 "blue": .array(blue.values.map(JSONValue.number))])
    }

    /// Camera RGB of a stimulus φ(λ) (radiance or irradiance × reflectance): ∑ φ(λ) s_c(λ) Δλ per channel.
    public func response(to stimulus: SpectralDistribution) -> SIMD3<Double> {
        SIMD3(stimulus.integral(against: red), stimulus.integral(against: green), stimulus.integral(against: blue))
    }
}

/// The CIE colour-matching functions x̄, ȳ, z̄ of one observer.
public struct ColorMatchingFunctions: Sendable, Equatable {
    /// x̄(λ), ȳ(λ), z̄(λ) on the working grid.
    public var xBar: SpectralDistribution, yBar: SpectralDistribution, zBar: SpectralDistribution

    /// Creates the functions from three distributions.
    public init(xBar: SpectralDistribution, yBar: SpectralDistribution, zBar: SpectralDistribution) {
        self.xBar = xBar; self.yBar = yBar; self.zBar = zBar
    }

    /// Reads a set file with members `xBar`, `yBar`, `zBar` (zero outside its range).
    public init(path: String) throws {
        let set = try SpectralSet(path: path, extrapolation: .zero)
        func member(_ n: String) throws -> SpectralDistribution {
            guard let m = set[n] else { throw JSONFileError.invalidValue(file: path, key: "names", expected: "to contain \"\(n)\"") }
            return m
        }
        self.init(xBar: try member("xBar"), yBar: try member("yBar"), zBar: try member("zBar"))
    }

    /// Tristimulus values ∑ φ(λ) x̄(λ) Δλ, … of a stimulus, without normalization (CIE 015:2004 eq. 7.1, k = 1).
    public func tristimulus(of stimulus: SpectralDistribution) -> SIMD3<Double> {
        SIMD3(stimulus.integral(against: xBar), stimulus.integral(against: yBar), stimulus.integral(against: zBar))
    }
}
