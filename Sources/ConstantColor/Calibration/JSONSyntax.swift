import Foundation

/// A strict reading of JSON text's grammar (RFC 8259) before it is decoded: the first syntax error
/// with its line and column, and keys that appear twice in one object.
///
/// Why: Foundation's decoder says only "The given data was not valid JSON." for every syntax error,
/// which leaves a person editing a profile by hand to search the whole file; and it keeps the first
/// of two equal keys where Python's `json` and `jq` keep the last (RFC 8259 §4: "The names within
/// an object SHOULD be unique", and readers then disagree), so `"blackLevel": 1024, "blackLevel": -5`
/// was fused with 1024 while every other tool reads −5. A file that means two things is refused.
/// Keys are compared as the strings they decode to (`"a"` and `"\u0061"` are one key; so are
/// canonically equivalent spellings, which this reader's dictionaries cannot keep apart).
public enum JSONSyntax {
    /// Deepest nesting of arrays and objects read (deeper text is refused rather than risking the
    /// stack; no profile, chart or report comes near it).
    public static let maximumDepth = 256

    /// Nil when `data` is one JSON value (a leading UTF-8 byte-order mark allowed, RFC 8259 §8.1)
    /// with no key twice in an object; else what is wrong, and where ("line 3, column 14: …").
    public static func firstProblem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        // UTF-16 or UTF-32 text (a byte-order mark, or a zero byte among the first two: JSON text
        // starts with an ASCII character) is refused as such: RFC 8259 §8.1 has JSON exchanged as
        // UTF-8, and a message about byte 0xFF would not say what to do.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.prefix(2).contains(0) {
            return "the file is UTF-16 or UTF-32 text; JSON files are UTF-8 (RFC 8259 §8.1): save it as UTF-8"
        }
        var reader = Reader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3; reader.start = 3 }
        do throws(Problem) {
            reader.skipWhitespace()
            try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.index == bytes.count else { throw reader.problem("text after the JSON value ends") }
            return nil
        } catch {
            return error.text
        }
    }

    /// A problem and where it is.
    struct Problem: Error { var text: String }

    /// A cursor over the bytes.
    struct Reader {
        let bytes: [UInt8]
        var index = 0
        /// Where the text starts (after a byte-order mark): columns count from there.
        var start = 0

        /// "line L, column C: what" for the current position (columns count UTF-8 characters).
        func problem(_ what: String, at position: Int? = nil) -> Problem {
            let end = min(position ?? index, bytes.count)
            var line = 1, column = 1
            for b in bytes[min(start, end)..<end] {
                if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            }
            return Problem(text: "line \(line), column \(column): \(what)")
        }

        /// `text` as a message shows it: on one line, control characters as JSON escapes.
        static func shown(_ text: String) -> String {
            var out = ""
            for u in text.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default: out += u.value < 0x20 || (0x7F..<0xA0).contains(u.value) ? String(format: "\\u%04X", u.value) : String(u)
                }
            }
            return out
        }

        /// What is at the current position, for a message.
        var found: String {
            guard index < bytes.count else { return "the end of the file" }
            let b = bytes[index]
            if b >= 0x21 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
            return String(format: "byte 0x%02X", b)
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(Problem) {
            guard index < bytes.count else { throw problem("a value was expected, found the end of the file") }
            switch bytes[index] {
            case UInt8(ascii: "{"): try object(depth: depth + 1)
            case UInt8(ascii: "["): try array(depth: depth + 1)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default:
                let hint = bytes[index] == UInt8(ascii: "N") || bytes[index] == UInt8(ascii: "I")
                    ? " (JSON has no NaN or Infinity)" : bytes[index] == UInt8(ascii: "/") ? " (JSON has no comments)" : ""
                throw problem("a value was expected, found \(found)\(hint)")
            }
        }

        mutating func literal(_ word: String) throws(Problem) {
            let w = Array(word.utf8)
            guard bytes.count - index >= w.count, Array(bytes[index..<(index + w.count)]) == w else {
                throw problem("a value was expected, found \(found)")
            }
            index += w.count
        }

        mutating func object(depth: Int) throws(Problem) {
            guard depth <= JSONSyntax.maximumDepth else { throw problem("nested deeper than \(JSONSyntax.maximumDepth) levels") }
            index += 1
            // Keys as the decoder keys its dictionary: as Swift strings, which are equal when
            // canonically equivalent ("é" and "e" + U+0301, the Kelvin sign and "K"). Such keys are
            // two to RFC 8259 but one to this reader, which would keep one value and lose the other.
            var keys: [String: Int] = [:]
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw problem("a key in double quotes was expected, found \(found)")
                }
                let keyStart = index
                let key = try string()
                if let first = keys[key] {
                    let at = problem("", at: first).text.dropLast(2)
                    throw problem("the key \"\(Reader.shown(key))\" appears twice in one object (first at \(at)): JSON readers disagree on which one counts",
                                  at: keyStart)
                }
                keys[key] = keyStart
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw problem("':' was expected after the key, found \(found)") }
                index += 1
                skipWhitespace()
                try value(depth: depth)
                skipWhitespace()
                guard index < bytes.count else { throw problem("',' or '}' was expected, found the end of the file") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return }
                throw problem("',' or '}' was expected, found \(found)")
            }
        }

        mutating func array(depth: Int) throws(Problem) {
            guard depth <= JSONSyntax.maximumDepth else { throw problem("nested deeper than \(JSONSyntax.maximumDepth) levels") }
            index += 1
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipWhitespace()
                try value(depth: depth)
                skipWhitespace()
                guard index < bytes.count else { throw problem("',' or ']' was expected, found the end of the file") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return }
                throw problem("',' or ']' was expected, found \(found)")
            }
        }

        mutating func number() throws(Problem) {
            let start = index
            func digits() -> Int {
                let s = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
                return index - s
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
                throw problem("a digit was expected in the number, found \(found)")
            }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    throw problem("a number may not start with 0 followed by a digit", at: start)
                }
            } else {
                _ = digits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw problem("a digit was expected after the decimal point, found \(found)") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw problem("a digit was expected in the exponent, found \(found)") }
            }
        }

        /// The string starting at the opening quote, decoded (escapes resolved).
        mutating func string() throws(Problem) -> String {
            let opening = index
            index += 1
            var scalars = String.UnicodeScalarView()
            var run = index  // start of the current run of plain bytes
            func flush(_ end: Int) throws(Problem) {
                guard run < end else { return }
                // Decoded scalar by scalar (a leading U+FEFF is a character here, not a mark to drop),
                // and the first byte that is not UTF-8 named where it is.
                var parser = Unicode.UTF8.ForwardParser()
                var iterator = bytes[run..<end].makeIterator()
                var offset = run
                while true {
                    switch parser.parseScalar(from: &iterator) {
                    case .valid(let encoded):
                        scalars.append(Unicode.UTF8.decode(encoded))
                        offset += encoded.count
                    case .error:
                        throw problem("the string is not UTF-8 text", at: offset)
                    case .emptyInput:
                        return
                    }
                }
            }
            while true {
                guard index < bytes.count else { throw problem("the string has no closing quote", at: opening) }
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    try flush(index)
                    index += 1
                    return String(scalars)
                }
                if b < 0x20 { throw problem(String(format: "control character 0x%02X in a string (write it as an escape)", b)) }
                guard b == UInt8(ascii: "\\") else { index += 1; continue }
                try flush(index)
                index += 1
                guard index < bytes.count else { throw problem("the string has no closing quote", at: opening) }
                let e = bytes[index]
                let simple: [UInt8: Unicode.Scalar] = [UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/",
                                                      UInt8(ascii: "b"): "\u{08}", UInt8(ascii: "f"): "\u{0C}", UInt8(ascii: "n"): "\n",
                                                      UInt8(ascii: "r"): "\r", UInt8(ascii: "t"): "\t"]
                if let s = simple[e] {
                    scalars.append(s)
                    index += 1
                } else if e == UInt8(ascii: "u") {
                    func hex4(_ at: Int) -> UInt32? {
                        guard at + 4 <= bytes.count, let s = String(bytes: bytes[at..<(at + 4)], encoding: .ascii),
                              s.allSatisfy(\.isHexDigit) else { return nil }
                        return UInt32(s, radix: 16)
                    }
                    let escape = index - 1
                    guard let u = hex4(index + 1) else { throw problem("\\u must be followed by four hexadecimal digits", at: escape) }
                    index += 5
                    if (0xD800..<0xDC00).contains(u), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                       bytes[index + 1] == UInt8(ascii: "u"), let low = hex4(index + 2), (0xDC00..<0xE000).contains(low) {
                        // A surrogate pair is one scalar.
                        scalars.append(Unicode.Scalar(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))!)
                        index += 6
                    } else if let scalar = Unicode.Scalar(u) {
                        scalars.append(scalar)
                    } else {
                        // (Foundation's decoder refuses it too; said here with its place.)
                        throw problem(String(format: "\\u%04X is half of a surrogate pair without its other half: it names no character", u), at: escape)
                    }
                } else {
                    let shown = e >= 0x21 && e < 0x7F ? "'\\\(Character(UnicodeScalar(e)))'" : String(format: "a backslash before byte 0x%02X", e)
                    throw problem("\(shown) is not a JSON escape", at: index - 1)
                }
                run = index
            }
        }
    }
}
