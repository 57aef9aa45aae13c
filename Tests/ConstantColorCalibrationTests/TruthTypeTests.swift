import ConstantColor
@testable import ConstantColorCalibration
import Testing

/// `validate` reads a condition's truth.json keys by their types: a key of another type than `synth`
/// writes is an error naming it, not an absent key (a probe, session 50: `"ratioFlashToAmbient":
/// "0.5"` passed `--max-ratio-error` on a set that failed it, `"size": ["10", "10"]` passed the size
/// check, `"camera": 5` skipped the other-camera warning).
@Suite("truth.json keys read by their types")
struct TruthTypeTests {
    static let good: [String: JSONValue] = [
        "size": .array([.number(600), .number(400)]),
        "condition": .object(["ambientLux": .number(200)]),
        "camera": .object(["name": .string("Nikon 5100 (NPL)")]),
        "flash": .object(["name": .string("YAG")]),
        "exposure": .object(["ratioFlashToAmbient": .number(0.5), "effectiveAmbientToFlashRatio": .number(2.1)]),
        "labels": .object(["flash": .string("labels.tif")]),
    ]

    @Test func wellTypedOrAbsentKeysPass() {
        #expect(ValidationRun.truthTypeProblem(.object(Self.good)) == nil)
        #expect(ValidationRun.truthTypeProblem(.object([:])) == nil)
        var nulls = Self.good
        nulls["camera"] = .null; nulls["size"] = .null
        #expect(ValidationRun.truthTypeProblem(.object(nulls)) == nil)
    }

    @Test("a key of another type is named", arguments: [
        ("size", JSONValue.array([.string("10"), .string("10")]), "size"),
        ("exposure", JSONValue.string("garbage"), "exposure"),
        ("exposure", JSONValue.object(["ratioFlashToAmbient": .string("0.5")]), "exposure.ratioFlashToAmbient"),
        ("camera", JSONValue.number(5), "camera"),
        ("flash", JSONValue.object(["name": .number(3)]), "flash.name"),
        ("condition", JSONValue.string("x"), "condition"),
        ("labels", JSONValue.string("labels.tif"), "labels"),
    ])
    func wrongTypeIsNamed(key: String, value: JSONValue, named: String) {
        var truth = Self.good
        truth[key] = value
        #expect(ValidationRun.truthTypeProblem(.object(truth))?.key == named)
    }
}
