import Foundation
import Testing
@testable import ConstantColor

@Suite("Calibration profiles")
struct ProfileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
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
        // Inside `noise` too (it was dropped on rewrite).
        let vendor = cameraJSON.replacingOccurrences(of: #""gainElectronsPerDN": 3.0}"#, with: #""gainElectronsPerDN": 3.0, "vendorDarkCurrent": 0.02}"#)
        let withNoiseKey = try CameraProfile(json: JSONValue.parse(Data(vendor.utf8), file: "cam.json"), file: "cam.json")
        #expect(withNoiseKey.noiseExtra == ["vendorDarkCurrent": .number(0.02)])
        #expect(withNoiseKey.json.object?["noise"]?.object?["vendorDarkCurrent"] == .number(0.02))
        #expect(try CameraProfile(json: withNoiseKey.json, file: "again") == withNoiseKey)
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
        let flashText = #"{"schemaVersion":1,"kind":"flash","camera":5,"whiteCameraRGB":[1,1,1],"matrixToXYZD65":[[0.4124,0.3576,0.1805],[0.2126,0.7152,0.0722],[0.0193,0.1192,0.9505]]}"#
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
        let p = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(2, 4, 1), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        #expect(p.whiteCameraRGB == SIMD3(0.5, 1, 0.25))
        #expect(try FlashProfile(json: p.json, file: "f") == p)
    }

    /// The message of reading `profile` with `key` set to `value`, or nil when it reads.
    func flashError(_ profile: FlashProfile, _ key: String, _ value: JSONValue) -> String? {
        guard case .object(var o) = profile.json else { return "no object" }
        o[key] = value
        do { _ = try FlashProfile(json: .object(o), file: "bad-flash.json"); return nil } catch { return "\(error)" }
    }

    static func matrix(_ m: Matrix3) -> JSONValue { .array(m.rows.map { .array($0.map(JSONValue.number)) }) }

    @Test("a flash matrix that does not map the flash white (1, 1, 1) to D65's white, or collapses colours, is refused naming the key; so is a white no flash gives (the probe's absurd profiles were accepted with constantColor at 10–45 ΔE00)")
    func absurdFlashProfiles() throws {
        let good = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.55, 1, 0.9), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        #expect(flashError(good, "name", .string("g")) == nil)
        // Any scale of a D65-preserving matrix near Y = 1 reads (the pipeline normalizes the exposure).
        #expect(flashError(good, "matrixToXYZD65", Self.matrix(RGBColorSpace.sRGB.rgbToXYZ * Matrix3.diagonal(SIMD3(repeating: 100)))) == nil)
        let m = RGBColorSpace.sRGB.rgbToXYZ.rows
        // Bradford-adapted to D50 (a DNG forward matrix): white x, y 0.3457, 0.3585.
        let d50 = Matrix3.diagonal(SIMD3(0.9642 / 0.95047, 1, 0.8251 / 1.08883)) * RGBColorSpace.sRGB.rgbToXYZ
        let cases: [(String, Matrix3, String)] = [
            ("identity", .identity, "D65 white"),
            ("rows swapped", Matrix3(rows: [m[1], m[0], m[2]]), "D65 white"),
            ("negated", Matrix3(rows: m.map { $0.map { -$0 } }), "Y = -1"),
            ("scaled by 1e300", Matrix3(rows: m.map { $0.map { $0 * 1e300 } }), "Y = 1e+300"),
            ("D50 white", d50, "Bradford"),
            ("near-singular", Matrix3(rows: [m[0], m[0].map { $0 + 1e-9 }, m[2]]), "condition number"),
        ]
        for (name, matrix, mention) in cases {
            let message = flashError(good, "matrixToXYZD65", Self.matrix(matrix))
            #expect(message?.contains("bad-flash.json: key 'matrixToXYZD65' must be") == true && message?.contains(mention) == true
                    && message?.contains("\n") == false, "\(name): \(message ?? "accepted")")
        }
        for white in [[1e-30, 1, 0.9], [0.5, 1, 60], [1e300, 1e-300, 1]] {
            let message = flashError(good, "whiteCameraRGB", .array(white.map(JSONValue.number)))
            #expect(message?.contains("key 'whiteCameraRGB' must be a flash white whose red and blue are within") == true, "\(white): \(message ?? "accepted")")
        }
    }

    @Test("a camera profile whose noise at the white level exceeds the whole range is refused naming the key (read noise 1e6 DN was read as 'the ambient frame holds no light')")
    func absurdNoise() throws {
        func error(read: Double, gain: Double) -> String? {
            let text = #"{"schemaVersion":1,"kind":"camera","blackLevel":1024,"whiteLevel":60000,"noise":{"readNoiseDN":\#(read),"gainElectronsPerDN":\#(gain)}}"#
            do { _ = try CameraProfile(json: JSONValue.parse(Data(text.utf8), file: "cam.json"), file: "cam.json"); return nil } catch { return "\(error)" }
        }
        #expect(error(read: 8, gain: 0.25) == nil)
        #expect(error(read: 1e6, gain: 0.25)?.contains("cam.json: key 'noise.readNoiseDN' must be a noise model whose noise at the white level is below") == true)
        #expect(error(read: 8, gain: 1e-6)?.contains("key 'noise.gainElectronsPerDN' must be") == true)
        // At the edge: σ at white = range is refused, just below reads.
        let range = 60000.0 - 1024
        #expect(error(read: 0, gain: 1 / range) != nil && error(read: 0, gain: 1.01 / range) == nil)
    }

    @Test("a white level beyond any code value, and a reference ISO no camera records, are refused naming their own keys (1e308 blamed the gain; ISO 0.001 made a lit frame read as dark)")
    func absurdLevelsAndISO() throws {
        func error(white: String = "60000", referenceISO: String = "100") -> String? {
            let text = #"{"schemaVersion":1,"kind":"camera","blackLevel":1024,"whiteLevel":\#(white),"noise":{"readNoiseDN":8,"gainElectronsPerDN":0.25,"referenceISO":\#(referenceISO)}}"#
            do { _ = try CameraProfile(json: JSONValue.parse(Data(text.utf8), file: "cam.json"), file: "cam.json"); return nil } catch { return "\(error)" }
        }
        #expect(error() == nil && error(white: "1e9") == nil && error(referenceISO: "1") == nil && error(referenceISO: "1e7") == nil)
        #expect(error(white: "1e308")?.contains("key 'whiteLevel' must be a code value of at most 10⁹") == true, "\(error(white: "1e308") ?? "")")
        #expect(error(white: "1.1e9")?.contains("key 'whiteLevel'") == true)
        for iso in ["0.001", "0.5", "2e7"] {
            #expect(error(referenceISO: iso)?.contains("key 'noise.referenceISO' must be an ISO speed a camera records (1…10000000)") == true,
                    "\(iso): \(error(referenceISO: iso) ?? "")")
        }
    }

    /// Null is no value the schemas allow: read as absent it was a silent guess (`noise.referenceISO:
    /// null` became 100; a flash profile's `"camera": null` skipped the other-camera warning) while
    /// other keys refused it (a probe, session 50). Every optional key refuses it, naming the key.
    @Test("null for an optional key is refused naming the key, not read as absent", arguments: [
        (#"{"schemaVersion":1,"kind":"camera","blackLevel":1024,"whiteLevel":60000,"noise":{"readNoiseDN":8,"gainElectronsPerDN":0.25,"referenceISO":null}}"#, "noise.referenceISO"),
        (#"{"schemaVersion":1,"kind":"camera","name":null,"blackLevel":1024,"whiteLevel":60000,"noise":{"readNoiseDN":8,"gainElectronsPerDN":0.25}}"#, "name"),
        (#"{"schemaVersion":1,"kind":"camera","blackLevel":1024,"whiteLevel":60000,"noise":{"readNoiseDN":8,"gainElectronsPerDN":0.25},"metadata":null}"#, "metadata"),
    ])
    func nullIsRefused(text: String, key: String) throws {
        let message: String
        do { _ = try CameraProfile(json: JSONValue.parse(Data(text.utf8), file: "cam.json"), file: "cam.json"); message = "" } catch { message = "\(error)" }
        #expect(message.contains("key '\(key)' must be a value, not null"), "\(message)")
        // Left out, the same key is absent and the profile reads.
        #expect(throws: Never.self) {
            _ = try CameraProfile(json: JSONValue.parse(Data(#"{"schemaVersion":1,"kind":"camera","blackLevel":1024,"whiteLevel":60000,"noise":{"readNoiseDN":8,"gainElectronsPerDN":0.25}}"#.utf8), file: "cam.json"), file: "cam.json")
        }
        var flash = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 1, 0.9), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ).json.object!
        flash["camera"] = .null
        #expect(throws: JSONFileError.invalidValue(file: "f.json", key: "camera", expected: "a value, not null (leave the key out where it has none)")) {
            _ = try FlashProfile(json: .object(flash), file: "f.json")
        }
    }

    @Test("a profile's spectral table that contradicts itself (5 sensitivities for 81 wavelengths) is refused naming the key; a whole one is kept")
    func spectralTables() throws {
        let wavelengths = JSONValue.array(stride(from: 380.0, through: 780, by: 5).map(JSONValue.number))
        func table(_ count: Int) -> JSONValue { .array(Array(repeating: .number(0.5), count: count)) }
        let good = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.55, 1, 0.9), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        #expect(flashError(good, "spectralPowerDistribution", .object(["wavelengthsNm": wavelengths, "values": table(81), "name": .string("x")])) == nil)
        let short = flashError(good, "spectralPowerDistribution", .object(["wavelengthsNm": wavelengths, "values": table(10)]))
        #expect(short?.contains("key 'spectralPowerDistribution.values' must be an array of 81 finite numbers") == true, "\(short ?? "accepted")")
        // Any order (SPEC 4.2), but no wavelength twice and none outside 360–830 nm.
        #expect(flashError(good, "spectralPowerDistribution", .object(["wavelengthsNm": .array([.number(700), .number(400)]), "values": table(2)])) == nil)
        for bad in [[400.0, 400], [300, 700]] {
            let message = flashError(good, "spectralPowerDistribution", .object(["wavelengthsNm": .array(bad.map(JSONValue.number)), "values": table(2)]))
            #expect(message?.contains("spectralPowerDistribution.wavelengthsNm' must be at least two wavelengths within 360–830 nm") == true,
                    "\(bad): \(message ?? "accepted")")
        }
        var camera = try CameraProfile(path: Self.root + "/calibration/synthetic-nikon5100.camera.json")
        #expect(try CameraProfile(json: camera.json, file: "c.json") == camera)
        camera.spectralSensitivity = .object(["wavelengthsNm": wavelengths, "red": table(5), "green": table(81), "blue": table(81)])
        #expect(throws: JSONFileError.invalidValue(file: "c.json", key: "spectralSensitivity.red", expected: "an array of 81 finite numbers")) {
            try CameraProfile(json: camera.json, file: "c.json")
        }
    }
}
