import Foundation
import Testing
@testable import ConstantColor

/// `JSONSyntax`: RFC 8259's grammar read before decoding, for errors with their place and keys
/// given twice.
@Suite("JSON text: syntax errors with their place, keys given twice refused")
struct JSONSyntaxTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func problem(_ text: String) -> String? { JSONSyntax.firstProblem(in: Data(text.utf8)) }

    @Test("valid JSON of every kind passes, and decodes as Foundation decodes it")
    func valid() throws {
        let texts = [
            #"{"a": "\u0061b", "b": [1, -0.5e+3, 0, 0.25, 1E2, true, false, null, {}, []], "c": "\ud83d\ude00 \" \\ \/ \b\f\n\r\t", "d": {"a": 1}}"#,
            "\u{FEFF}{\"bom\": 1}", "  [ ]  ", "\"text\"", "-0", "-0.0e-0", "null", "{\"é\": \"ü\", \"e\": 2}",
            // A U+FEFF inside a key is a character of it (it was dropped, and the key read as "a").
            "{\"\u{FEFF}a\": 1, \"a\": 2}",
        ]
        for text in texts {
            #expect(Self.problem(text) == nil, "\(text): \(Self.problem(text) ?? "")")
        }
        let decoded = try JSONValue.parse(Data(texts[0].utf8), file: "t.json")
        #expect(decoded.object?["a"] == .string("ab") && decoded.object?["c"]?.string?.hasPrefix("😀") == true)
        // Equal keys in different objects are no duplicate.
        #expect(Self.problem(#"{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]}"#) == nil)
    }

    @Test("every JSON file the repository holds (profiles, schema, fixtures' truths) passes")
    func repositoryFiles() throws {
        var checked = 0
        for folder in ["calibration", "fixtures"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") } ?? []
            for f in files {
                let data = try Data(contentsOf: base.appendingPathComponent(f))
                #expect(JSONSyntax.firstProblem(in: data) == nil, "\(folder)/\(f): \(JSONSyntax.firstProblem(in: data) ?? "")")
                checked += 1
            }
        }
        #expect(checked >= 20, "\(checked) files")
    }

    @Test("a key given twice in one object is refused, naming it and both places; escapes compare as the characters they stand for")
    func duplicateKeys() {
        #expect(Self.problem("{\n  \"blackLevel\": 1024,\n  \"blackLevel\": -5\n}")
                == "line 3, column 3: the key \"blackLevel\" appears twice in one object (first at line 2, column 3): JSON readers disagree on which one counts")
        #expect(Self.problem(#"{"noise": {"gain": 1, "gain": 2}}"#)?.contains("the key \"gain\" appears twice") == true)
        #expect(Self.problem(#"{"a": 1, "\u0061": 2}"#)?.contains("the key \"a\" appears twice") == true)
        // Canonically equivalent keys are one to this reader's dictionaries, which would keep one
        // value and lose the other without a word: refused as well.
        #expect(Self.problem("{\"é\": 1, \"e\u{301}\": 2}")?.contains("appears twice") == true)
        #expect(Self.problem("{\"K\": 1, \"\u{212A}\": 2}")?.contains("appears twice") == true)
        // A key shown in a message stays on one line.
        #expect(Self.problem(#"{"a\nb": 1, "a\nb": 2}"#)?.contains(#"the key "a\nb" appears twice"#) == true)
        // Through the profile reader: the file is named, and nothing is decoded.
        #expect(throws: JSONFileError.malformed(file: "cam.json", detail: "line 1, column 22: the key \"blackLevel\" appears twice in one object (first at line 1, column 2): JSON readers disagree on which one counts")) {
            try JSONValue.parse(Data(#"{"blackLevel": 1024, "blackLevel": -5}"#.utf8), file: "cam.json")
        }
    }

    @Test("syntax errors are said with their line and column and what was expected")
    func syntaxErrors() {
        let cases: [(String, String)] = [
            ("{\"a\": 1,\n \"b\": }", "line 2, column 7: a value was expected, found '}'"),
            ("{\"a\": 1} x", "line 1, column 10: text after the JSON value ends"),
            ("{\"a\": NaN}", "line 1, column 7: a value was expected, found 'N' (JSON has no NaN or Infinity)"),
            ("{\"a\": Infinity}", "line 1, column 7: a value was expected, found 'I' (JSON has no NaN or Infinity)"),
            ("{\"a\": 1 // one\n}", "line 1, column 9: ',' or '}' was expected, found '/'"),
            ("// a comment\n{}", "line 1, column 1: a value was expected, found '/' (JSON has no comments)"),
            ("{\"a\": 01}", "line 1, column 7: a number may not start with 0 followed by a digit"),
            ("{\"a\": 1.}", "line 1, column 9: a digit was expected after the decimal point, found '}'"),
            ("{\"a\": 1e}", "line 1, column 9: a digit was expected in the exponent, found '}'"),
            ("{\"a\": \"open}", "line 1, column 7: the string has no closing quote"),
            ("{\"a\": \"\\x\"}", "line 1, column 8: '\\x' is not a JSON escape"),
            ("{\"a\": \"\\u12\"}", "line 1, column 8: \\u must be followed by four hexadecimal digits"),
            ("{\"a\": \"tab\there\"}", "line 1, column 11: control character 0x09 in a string (write it as an escape)"),
            ("{a: 1}", "line 1, column 2: a key in double quotes was expected, found 'a'"),
            ("{\"a\" 1}", "line 1, column 6: ':' was expected after the key, found '1'"),
            ("[1, 2", "line 1, column 6: ',' or ']' was expected, found the end of the file"),
            ("{\"a\": [1, 2,]}", "line 1, column 13: a value was expected, found ']'"),
            ("", "line 1, column 1: a value was expected, found the end of the file"),
            ("{\"é\": tru}", "line 1, column 7: a value was expected, found 't'"),
        ]
        for (text, expected) in cases {
            #expect(Self.problem(text) == expected, "\(text)")
        }
        // Bytes that are not UTF-8 inside a string, named where the bad byte is; nesting beyond the
        // limit (not a stack overflow).
        #expect(JSONSyntax.firstProblem(in: Data([0x22, 0xC3, 0x28, 0x22])) == "line 1, column 2: the string is not UTF-8 text")
        #expect(JSONSyntax.firstProblem(in: Data([0x22] + Array("abcd".utf8) + [0xC3, 0x28, 0x22])) == "line 1, column 6: the string is not UTF-8 text")
        // Columns count from after a byte-order mark.
        #expect(Self.problem("\u{FEFF}{\"a\": }") == "line 1, column 7: a value was expected, found '}'")
        // A lone surrogate names no character; a backslash before a non-ASCII byte is named as such.
        #expect(Self.problem(#"{"\uD800": 1}"#) == #"line 1, column 3: \uD800 is half of a surrogate pair without its other half: it names no character"#)
        #expect(JSONSyntax.firstProblem(in: Data(#"{"a": "\"#.utf8) + Data([0xC3, 0xA9, 0x22, 0x7D]))
                == "line 1, column 8: a backslash before byte 0xC3 is not a JSON escape")
        // UTF-16 text is said as such (Foundation's decoder read it; RFC 8259 has JSON in UTF-8).
        let utf16 = Data([0xFF, 0xFE]) + "{\"a\": 1}".data(using: .utf16LittleEndian)!
        #expect(JSONSyntax.firstProblem(in: utf16) == "the file is UTF-16 or UTF-32 text; JSON files are UTF-8 (RFC 8259 §8.1): save it as UTF-8")
        #expect(JSONSyntax.firstProblem(in: "{\"a\": 1}".data(using: .utf16BigEndian)!)?.hasPrefix("the file is UTF-16") == true)
        let deep = String(repeating: "[", count: JSONSyntax.maximumDepth + 1) + String(repeating: "]", count: JSONSyntax.maximumDepth + 1)
        #expect(Self.problem(deep)?.contains("nested deeper than \(JSONSyntax.maximumDepth) levels") == true)
        let limit = String(repeating: "[", count: JSONSyntax.maximumDepth) + String(repeating: "]", count: JSONSyntax.maximumDepth)
        #expect(Self.problem(limit) == nil)
    }
}
