import Foundation

/// Any JSON value, kept as read so that unknown keys of a profile survive a read/write cycle.
public indirect enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    /// An integer literal that a `Double` would round (beyond 2⁵³ in magnitude, within 64 bits: a
    /// serial number, a timestamp in nanoseconds), kept exactly so that an unknown key survives.
    case exactInteger(Decimal)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) {
            // An integer beyond 2⁵³ that Double would round is kept as its exact digits.
            if abs(d) >= 9_007_199_254_740_992, d == d.rounded() {
                if let i = try? c.decode(Int64.self), Double(exactly: i) == nil {
                    self = .exactInteger(Decimal(string: String(i))!); return
                }
                if let u = try? c.decode(UInt64.self), Double(exactly: u) == nil {
                    self = .exactInteger(Decimal(string: String(u))!); return
                }
            }
            self = .number(d)
        }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let d): try c.encode(d)
        case .exactInteger(let i): try c.encode(i)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The number, if this is a number.
    public var double: Double? {
        switch self {
        case .number(let d): return d
        case .exactInteger(let i): return NSDecimalNumber(decimal: i).doubleValue
        default: return nil
        }
    }
    /// The string, if this is a string.
    public var string: String? { if case .string(let s) = self { return s }; return nil }
    /// The elements, if this is an array.
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members, if this is an object.
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
    /// An array of numbers, if this is one.
    public var doubles: [Double]? {
        guard let a = array else { return nil }
        let d = a.compactMap(\.double)
        return d.count == a.count ? d : nil
    }

    /// Parses JSON data; throws `JSONFileError` naming `file` on malformed input.
    public static func parse(_ data: Data, file: String) throws -> JSONValue {
        // The grammar first (`JSONSyntax`): where the text is wrong, and keys given twice.
        if let problem = JSONSyntax.firstProblem(in: data) { throw JSONFileError.malformed(file: file, detail: problem) }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let DecodingError.dataCorrupted(ctx) {
            let why = (ctx.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw JSONFileError.malformed(file: file, detail: why ?? ctx.debugDescription)
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx) {
            // The parser accepted the text but a value is not representable (e.g. 1e400, beyond Double).
            // The key path as the readers and the writer name it: `a.b[2]`.
            let path = ctx.codingPath.reduce("") { path, key in
                key.intValue.map { path + "[\($0)]" } ?? keyPath(path, key.stringValue)
            }
            throw JSONFileError.malformed(file: file, detail: "the value at \(path.isEmpty ? "the top level" : path) cannot be read (a number out of range?)")
        } catch {
            throw JSONFileError.malformed(file: file, detail: "\(error)")
        }
    }

    /// Reads and parses a JSON file.
    public static func read(path: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            throw JSONFileError.unreadable(file: path, reason: !exists ? "no such file" : isFolder.boolValue ? "is a folder, not a file"
                                           : "not readable (permissions?)")
        }
        do {
            return try parse(data, file: path)
        } catch JSONFileError.malformed(let file, let detail) {
            // Say what the file is where it is another format (an image given for a profile).
            if let kind = FileSignature.kind(of: [UInt8](data.prefix(16))), kind != "JSON text" {
                throw JSONFileError.malformed(file: file, detail: "it is \(kind), not JSON")
            }
            throw JSONFileError.malformed(file: file, detail: detail)
        }
    }

    /// Pretty, key-sorted JSON text for `file`. JSON (RFC 8259 §6) has no NaN or infinity: a
    /// non-finite number throws `JSONFileError.nonFiniteNumber` naming the file and the key path,
    /// so that nothing is written in place of a value that was lost.
    public func encodedData(file: String) throws -> Data {
        if let (path, value) = firstNonFiniteNumber(path: "") {
            throw JSONFileError.nonFiniteNumber(file: file, key: path.isEmpty ? "the top level" : path, value: value)
        }
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try e.encode(self)
    }

    /// The value with every NaN or infinite number replaced by null: for reports, where such a number
    /// means a quantity that could not be measured (no pixels to average, say) and null says so.
    public var nonFiniteNumbersAsNull: JSONValue {
        switch self {
        case .number(let d): return d.isFinite ? self : .null
        case .exactInteger: return self
        case .array(let a): return .array(a.map(\.nonFiniteNumbersAsNull))
        case .object(let o): return .object(o.mapValues(\.nonFiniteNumbersAsNull))
        case .null, .bool, .string: return self
        }
    }

    /// `path` extended by an object's `key`, as every message names a key: `a.b` (`a.b[2]` for an element).
    static func keyPath(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The key path (`a.b[2]`) and value of the first non-finite number, in key order; nil when
    /// every number is finite.
    func firstNonFiniteNumber(path: String) -> (String, Double)? {
        switch self {
        case .number(let d): return d.isFinite ? nil : (path, d)
        case .exactInteger: return nil
        case .array(let a):
            for (i, v) in a.enumerated() { if let hit = v.firstNonFiniteNumber(path: path + "[\(i)]") { return hit } }
            return nil
        case .object(let o):
            for k in o.keys.sorted() {
                if let hit = o[k]!.firstNonFiniteNumber(path: Self.keyPath(path, k)) { return hit }
            }
            return nil
        case .null, .bool, .string: return nil
        }
    }
}

/// Problems reading a JSON file; every case names the file.
public enum JSONFileError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(file: String, reason: String)
    /// The file is not valid JSON.
    case malformed(file: String, detail: String)
    /// A required key is missing.
    case missingKey(file: String, key: String)
    /// A key has a value of the wrong type or range.
    case invalidValue(file: String, key: String, expected: String)
    /// The schema version is newer than this tool understands.
    case unsupportedVersion(file: String, version: Int)
    /// A value to be written is NaN or infinite, which JSON cannot hold.
    case nonFiniteNumber(file: String, key: String, value: Double)

    public var description: String {
        switch self {
        case .unreadable(let f, let why): return "\(f): cannot read file: \(why)"
        case .malformed(let f, let d): return "\(f): malformed JSON: \(d)"
        case .missingKey(let f, let k): return "\(f): missing required key '\(k)'"
        case .invalidValue(let f, let k, let e): return "\(f): key '\(k)' must be \(e)"
        case .unsupportedVersion(let f, let v): return "\(f): schemaVersion \(v) is newer than this tool supports (1)"
        case .nonFiniteNumber(let f, let k, let v):
            return "\(f): not written: '\(k)' is \(v), which JSON cannot hold (a quantity that could not be computed?)"
        }
    }
}

/// Typed access to the members of a JSON object, with errors naming the file and key.
public struct JSONObjectReader {
    /// The members.
    public let members: [String: JSONValue]
    /// The file (for messages).
    public let file: String
    /// The key path prefix (for messages), e.g. "noise.".
    public let prefix: String

    /// Checks `schemaVersion`: the integer 1 (a later version is refused as newer, anything else as invalid).
    public func checkSchemaVersion() throws {
        let v = try number("schemaVersion")
        guard v != 1 else { return }
        if v > 1 && v == v.rounded() && v < 1e9 { throw JSONFileError.unsupportedVersion(file: file, version: Int(v)) }
        throw JSONFileError.invalidValue(file: file, key: prefix + "schemaVersion", expected: "the integer 1")
    }

    /// Wraps a value that must be an object.
    public init(_ value: JSONValue, file: String, prefix: String = "") throws {
        guard let o = value.object else {
            throw JSONFileError.invalidValue(file: file, key: prefix.isEmpty ? "(top level)" : String(prefix.dropLast()), expected: "an object")
        }
        members = o; self.file = file; self.prefix = prefix
    }

    /// A required finite number.
    public func number(_ key: String) throws -> Double {
        guard let v = members[key] else { throw JSONFileError.missingKey(file: file, key: prefix + key) }
        guard let d = v.double, d.isFinite else { throw JSONFileError.invalidValue(file: file, key: prefix + key, expected: "a finite number") }
        return d
    }
    /// An optional key's value: nil when absent; a null is refused, naming the key. The schemas allow
    /// null for no key, and read as absent it was a silent guess: `noise.referenceISO: null` became
    /// 100 (a probe, session 50), while other keys refused it.
    func optionalValue(_ key: String) throws -> JSONValue? {
        guard let v = members[key] else { return nil }
        guard v != .null else { throw JSONFileError.invalidValue(file: file, key: prefix + key, expected: "a value, not null (leave the key out where it has none)") }
        return v
    }
    /// An optional finite number (nil when absent; null refused).
    public func optionalNumber(_ key: String) throws -> Double? {
        guard try optionalValue(key) != nil else { return nil }
        return try number(key)
    }
    /// A required string.
    public func string(_ key: String) throws -> String {
        guard let v = members[key] else { throw JSONFileError.missingKey(file: file, key: prefix + key) }
        guard let s = v.string else { throw JSONFileError.invalidValue(file: file, key: prefix + key, expected: "a string") }
        return s
    }
    /// An optional string: nil when absent, refused when null or of another type (a name given as
    /// a number was read as no name at all).
    public func optionalString(_ key: String) throws -> String? {
        guard try optionalValue(key) != nil else { return nil }
        return try string(key)
    }
    /// An optional object's members: empty when absent, refused when null or of another type (a
    /// `metadata` string was dropped, and lost when the profile was written again).
    public func optionalMembers(_ key: String) throws -> [String: JSONValue] {
        guard let v = try optionalValue(key) else { return [:] }
        guard let o = v.object else { throw JSONFileError.invalidValue(file: file, key: prefix + key, expected: "an object") }
        return o
    }
    /// A required array of finite numbers of the given count (any count when nil).
    public func numbers(_ key: String, count: Int? = nil) throws -> [Double] {
        guard let v = members[key] else { throw JSONFileError.missingKey(file: file, key: prefix + key) }
        guard let d = v.doubles, d.allSatisfy(\.isFinite), count == nil || d.count == count! else {
            throw JSONFileError.invalidValue(file: file, key: prefix + key,
                                             expected: count.map { "an array of \($0) finite numbers" } ?? "an array of finite numbers")
        }
        return d
    }
    /// A required 3×3 matrix: three rows of three finite numbers.
    public func matrix3(_ key: String) throws -> Matrix3 {
        guard let v = members[key] else { throw JSONFileError.missingKey(file: file, key: prefix + key) }
        guard let rows = v.array?.compactMap(\.doubles), rows.count == 3,
              rows.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isFinite) }) else {
            throw JSONFileError.invalidValue(file: file, key: prefix + key, expected: "3 rows of 3 finite numbers")
        }
        return Matrix3(rows: rows)
    }
    /// A required nested object.
    public func object(_ key: String) throws -> JSONObjectReader {
        guard let v = members[key] else { throw JSONFileError.missingKey(file: file, key: prefix + key) }
        return try JSONObjectReader(v, file: file, prefix: prefix + key + ".")
    }
    /// An optional SPEC 4.2 spectral table, returned as it is (profiles keep it for provenance): when
    /// present, `wavelengthsNm` (at least two, within 360–830 nm, in any order, none twice) and each
    /// of `columns`, arrays of finite numbers of the same length. A table that contradicts itself (5
    /// sensitivities for 81 wavelengths) was kept without a word.
    public func optionalSpectralTable(_ key: String, columns: [String]) throws -> JSONValue? {
        guard let v = try optionalValue(key) else { return nil }
        let table = try JSONObjectReader(v, file: file, prefix: prefix + key + ".")
        let wavelengths = try table.numbers("wavelengthsNm")
        guard wavelengths.count >= 2, Set(wavelengths).count == wavelengths.count, wavelengths.allSatisfy({ $0 >= 360 && $0 <= 830 }) else {
            throw JSONFileError.invalidValue(file: file, key: table.prefix + "wavelengthsNm",
                                             expected: "at least two wavelengths within 360–830 nm, none given twice")
        }
        for c in columns { _ = try table.numbers(c, count: wavelengths.count) }
        return v
    }
    /// The members whose keys are not in `known`.
    public func unknownMembers(known: Set<String>) -> [String: JSONValue] {
        members.filter { !known.contains($0.key) }
    }
}
