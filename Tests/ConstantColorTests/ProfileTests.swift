import Foundation
import Testing
@testable import ConstantColor

@Suite("Calibration profiles")
struct ProfileTests {
    let cameraJSON = """
    {"schemaVersion": 1, "kind": "camera", "name": "c", "blackLevel": 64, "whiteLevel": 4095,
     "noise": {"readNoiseDN": 1.5, "gainElectronsPerDN": 3.0}, "vendorNote": {"x": [1, 2]}}
    """

    @Test("a camera profile reads, keeps unknown keys and writes them back")
    func cameraRoundTrip() throws {
        let p = try CameraProfile(json: JSONValue.parse(Data(cameraJSON.utf8), file: "cam.json"), file: "cam.json")
        #expect(p.blackLevel == 64 && p.noise.referenceISO == 100)
        #expect(p.extra["vendorNote"] != nil)
        let again = try CameraProfile(json: p.json, file: "again")
        #expect(again == p)
    }

    @Test("an unknown key's integer beyond 2^53 is written back with its exact digits (a Double rounded 12345678901234567890 to ...7e19); other numbers as before")
    func exactIntegersSurvive() throws {
        let text = cameraJSON.replacingOccurrences(of: #""vendorNote": {"x": [1, 2]}"#,
                                                   with: #""vendorNote": {"serial": 12345678901234567890, "t": -9007199254740993, "small": 3, "big": 1e300}"#)
        let p = try CameraProfile(json: JSONValue.parse(Data(text.utf8), file: "cam.json"), file: "cam.json")
        let written = String(decoding: try p.json.encodedData(file: "out.json"), as: UTF8.self)
        #expect(written.contains("12345678901234567890") && written.contains("-9007199254740993"), "\(written)")
        let note = try #require(p.extra["vendorNote"]?.object)
        #expect(note["small"] == .number(3) && note["big"] == .number(1e300))
        #expect(note["serial"]?.double == 12345678901234567890.0)
        #expect(try CameraProfile(json: JSONValue.parse(Data(written.utf8), file: "again"), file: "again") == p)
    }

    @Test("the noise's spatial correlation reads, writes back and is independent when absent; a wrong one is an error naming its key")
    func noiseCorrelation() throws {
        let plain = try CameraProfile(json: JSONValue.parse(Data(cameraJSON.utf8), file: "cam.json"), file: "cam.json")
        #expect(plain.noise.correlation == .independent)
        #expect(plain.json.object?["noise"]?.object?["correlation"] == nil)
        let measured = #""noise": {"readNoiseDN": 1.5, "gainElectronsPerDN": 3.0, "correlation": {"blockFactor": [2.7, 2.1, 2.8], "areaFactor": [6.5, 3.4, 6.6]}}"#
        let text = cameraJSON.replacingOccurrences(of: #""noise": {"readNoiseDN": 1.5, "gainElectronsPerDN": 3.0}"#, with: measured)
        let p = try CameraProfile(json: JSONValue.parse(Data(text.utf8), file: "cam.json"), file: "cam.json")
        #expect(p.noise.correlation == NoiseCorrelation(blockFactor: SIMD3(2.7, 2.1, 2.8), areaFactor: SIMD3(6.5, 3.4, 6.6)))
        #expect(try CameraProfile(json: p.json, file: "again") == p)
        // It reaches the pipeline's per-frame noise.
        let frame = FrameNoise(noise: p.noise, exposure: ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 100))
        #expect(frame.areaFactor == SIMD3<Float>(6.5, 3.4, 6.6) && frame.blockFactor == SIMD3<Float>(2.7, 2.1, 2.8))
        for (bad, key) in [("[2.7, 2.1]", "noise.correlation.blockFactor"), ("[2.7, 0, 2.8]", "noise.correlation.blockFactor")] {
            let broken = text.replacingOccurrences(of: "[2.7, 2.1, 2.8]", with: bad)
            do {
                _ = try CameraProfile(json: JSONValue.parse(Data(broken.utf8), file: "cam.json"), file: "cam.json")
                Issue.record("no error for \(bad)")
            } catch let e as JSONFileError {
                #expect(e.description.hasPrefix("cam.json:") && e.description.contains(key), "\(e)")
            }
        }
        let missing = text.replacingOccurrences(of: #", "areaFactor": [6.5, 3.4, 6.6]"#, with: "")
        #expect(throws: JSONFileError.missingKey(file: "cam.json", key: "noise.correlation.areaFactor")) {
            try CameraProfile(json: JSONValue.parse(Data(missing.utf8), file: "cam.json"), file: "cam.json")
        }
    }

    @Test("a missing key is named with the file")
    func missingKey() throws {
        let text = cameraJSON.replacingOccurrences(of: "\"readNoiseDN\": 1.5, ", with: "")
        do {
            _ = try CameraProfile(json: JSONValue.parse(Data(text.utf8), file: "cam.json"), file: "cam.json")
            Issue.record("no error")
        } catch let e as JSONFileError {
            #expect(e == .missingKey(file: "cam.json", key: "noise.readNoiseDN"))
            #expect(e.description == "cam.json: missing required key 'noise.readNoiseDN'")
        }
    }

    @Test("a profile holding NaN or infinity is not written: the error names the file and the key path; finite values write and read back")
    func nonFiniteNumbersAreNotWritten() throws {
        var p = try CameraProfile(json: JSONValue.parse(Data(cameraJSON.utf8), file: "cam.json"), file: "cam.json")
        let text = try p.json.encodedData(file: "cam.json")
        #expect(try CameraProfile(json: JSONValue.parse(text, file: "cam.json"), file: "cam.json") == p)
        p.noise.readNoiseDN = .nan
        #expect { try p.json.encodedData(file: "out.json") } throws: { error in
            // (NaN is not equal to itself, so the case is matched by its text.)
            (error as? JSONFileError)?.description
                == "out.json: not written: 'noise.readNoiseDN' is nan, which JSON cannot hold (a quantity that could not be computed?)"
        }
        let nested = JSONValue.object(["a": .array([.number(1), .object(["b": .number(-.infinity)])])])
        do {
            _ = try nested.encodedData(file: "x.json")
            Issue.record("an infinite number was written")
        } catch let e as JSONFileError {
            #expect(e.description == "x.json: not written: 'a[1].b' is -inf, which JSON cannot hold (a quantity that could not be computed?)")
        }
        // Reports write an unmeasured quantity as null instead.
        #expect(nested.nonFiniteNumbersAsNull == .object(["a": .array([.number(1), .object(["b": .null])])]))
    }

    @Test("malformed JSON and a wrong profile kind are errors")
    func malformed() {
        #expect(throws: JSONFileError.self) { try JSONValue.parse(Data("{\"a\": ".utf8), file: "x.json") }
        let flashAsCamera = #"{"schemaVersion":1,"kind":"flash","whiteCameraRGB":[1,1,1],"matrixToXYZD65":[[1,0,0],[0,1,0],[0,0,1]]}"#
        #expect(throws: JSONFileError.self) {
            try CameraProfile(json: JSONValue.parse(Data(flashAsCamera.utf8), file: "f.json"), file: "f.json")
        }
        #expect(throws: (any Error).self) {
            try FlashProfile(json: JSONValue.parse(Data(flashAsCamera.replacingOccurrences(of: "[0,0,1]]", with: "[0,0,0]]").utf8), file: "f.json"), file: "f.json")
        }
    }

    @Test("schemaVersion must be the integer 1 (1.5 and 0 are invalid, 2 is newer); a negative black level is invalid; a number beyond Double is a one-line error with its key path")
    func schemaVersionAndRange() throws {
        func error(_ text: String) -> JSONFileError? {
            do { _ = try CameraProfile(json: JSONValue.parse(Data(text.utf8), file: "cam.json"), file: "cam.json"); return nil }
            catch let e as JSONFileError { return e } catch { return nil }
        }
        for v in ["1.5", "0", "-1"] {
            #expect(error(cameraJSON.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": \(v)"))
                    == .invalidValue(file: "cam.json", key: "schemaVersion", expected: "the integer 1"), "\(v)")
        }
        #expect(error(cameraJSON.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 2"))
                == .unsupportedVersion(file: "cam.json", version: 2))
        #expect(error(cameraJSON.replacingOccurrences(of: "\"blackLevel\": 64", with: "\"blackLevel\": -5"))
                == .invalidValue(file: "cam.json", key: "blackLevel", expected: "a non-negative code value"))
        // Keys the schema types are refused when of another type, not read as absent (a numeric name
        // became "unnamed camera"; a metadata string was dropped, and lost when the profile was written again).
        #expect(error(cameraJSON.replacingOccurrences(of: "\"name\": \"c\"", with: "\"name\": 7"))
                == .invalidValue(file: "cam.json", key: "name", expected: "a string"))
        #expect(error(cameraJSON.replacingOccurrences(of: "\"kind\": \"camera\"", with: "\"kind\": 1"))
                == .invalidValue(file: "cam.json", key: "kind", expected: "a string"))
        #expect(error(cameraJSON.replacingOccurrences(of: "\"name\": \"c\"", with: "\"name\": \"c\", \"metadata\": \"fit\""))
                == .invalidValue(file: "cam.json", key: "metadata", expected: "an object"))
        let flashText = #"{"schemaVersion":1,"kind":"flash","camera":5,"whiteCameraRGB":[1,1,1],"matrixToXYZD65":[[1,0,0],[0,1,0],[0,0,1]]}"#
        #expect(throws: JSONFileError.invalidValue(file: "f.json", key: "camera", expected: "a string")) {
            try FlashProfile(json: JSONValue.parse(Data(flashText.utf8), file: "f.json"), file: "f.json")
        }
        let huge = try #require(error(cameraJSON.replacingOccurrences(of: "\"blackLevel\": 64", with: "\"blackLevel\": 1e400")))
        #expect(huge.description.contains("cam.json") && huge.description.contains("the value at blackLevel cannot")
                && !huge.description.contains("\n") && !huge.description.contains("DecodingError"), "\(huge)")
        // Nested keys are named as the readers and the writer name them, `a.b` (an array by its key: the
        // decoder does not report the element).
        let nested = try #require(error(cameraJSON.replacingOccurrences(of: "\"x\": [1, 2]", with: "\"x\": [1, -2e999]")))
        #expect(nested.description.contains("the value at vendorNote.x cannot"), "\(nested)")
    }

    @Test("a flash profile normalizes its white to green = 1 and round-trips")
    func flash() throws {
        let p = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(2, 4, 1), matrixToXYZD65: .identity)
        #expect(p.whiteCameraRGB == SIMD3(0.5, 1, 0.25))
        #expect(try FlashProfile(json: p.json, file: "f") == p)
    }
}
