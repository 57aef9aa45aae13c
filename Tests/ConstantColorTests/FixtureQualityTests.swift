import ConstantColorCalibration
import ConstantColorIO
import Foundation
import Testing
@testable import ConstantColor

/// Fuses every committed ColorChecker fixture and scores it against its truth (SPEC 5) with the
/// library's validation scoring (`ValidationRun`, `SetScore`), for each committed profile pair.
@Suite("Quality on the committed ColorChecker fixtures", .serialized)
struct FixtureQualityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("fixtures/colorchecker")

    /// The committed camera/flash profile pairs: from spectral data and from the dark-room chart.
    static let profilePairs = [("synthetic-nikon5100.camera.json", "synthetic-phosphor-led-yag.flash.json"),
                               ("chart-nikon5100.camera.json", "chart-phosphor-led-yag.flash.json")]

    /// Registration error against the true transform, RMS over a grid of the frame.
    static func registrationErrorRMS(_ score: ConditionScore, folder: String, width: Int, height: Int) throws -> Double {
        let truth = try JSONObjectReader(JSONValue.read(path: folder + "/truth.json"), file: "truth.json")
        let t = try truth.object("ambientFromFlash").members["matrix"]!.array!.map { $0.doubles! }
        let truthMatrix = Matrix3(rows: t)
        var sum = 0.0, n = 0.0
        for y in stride(from: 0.5, to: Double(height), by: 8) {
            for x in stride(from: 0.5, to: Double(width), by: 8) {
                let p = score.ambientFromFlash * SIMD3(x, y, 1), q = truthMatrix * SIMD3(x, y, 1)
                sum += pow(p.x / p.z - q.x / q.z, 2) + pow(p.y / p.z - q.y / q.z, 2); n += 1
            }
        }
        return (sum / n).squareRoot()
    }

    @Test("every committed pair (raw-linear frames, one development, right EXIF): no channel scale applied, the frames' noise agrees with their ISO tags, and no condition is far off its truth (a coarse channel scale of (3.2, 1, 49) under the sodium lamp, whose light has no blue, once put it 48 ΔE00 off)")
    func consistentPairsStayUntouched() throws {
        let camera = try CameraProfile(path: Self.root.appendingPathComponent("calibration/synthetic-nikon5100.camera.json").path)
        let flash = try FlashProfile(path: Self.root.appendingPathComponent("calibration/synthetic-phosphor-led-yag.flash.json").path)
        let folders = try ValidationRun.conditionFolders(in: Self.fixtures.path)
        try #require(folders.count >= 12)
        for folder in folders {
            func frame(_ name: String) throws -> RawFrame {
                let decoded = try TIFFReader.read(path: folder + "/" + name)
                return RawFrame(image: decoded.image, exposure: try #require(decoded.exposure.settings), name: name)
            }
            let result = try FusionPipeline.run(flash: try frame("flash.tif"), ambient: try frame("ambient.tif"), camera: camera,
                                                flashProfile: flash)
            let name = (folder as NSString).lastPathComponent
            let ratio = result.ambientRatio
            #expect(ratio.channelScale == SIMD3(1, 1, 1), "\(name): channel scale \(ratio.channelScale)")
            let noise = try #require(ratio.noiseConsistency, "\(name)")
            #expect(abs(log(noise.relativeScale)) < log(1.25), "\(name): ambient noise relative to flash \(noise.relativeScale)")
        }
        // And each condition as accurate as the profiles allow: within the envelope's accuracy floor
        // (3 ΔE00 mean, as the low-light conditions of the envelope test; these are 2.40–2.51), but
        // bright daylight, beyond the envelope (20 000 lux swamps the flash: 5.9 ΔE00 mean, and the
        // pipeline falls back). The sodium pair was 48 with the false channel scale.
        let scores = try folders.map { try ValidationRun.score(folder: $0, camera: camera, flash: flash) }
        #expect(scores.count == folders.count)
        for score in scores {
            let limit = score.name.hasPrefix("bright-daylight") ? 7.0 : 3.0
            #expect(score.meanDeltaE2000 <= limit, "\(score.name): \(score.meanDeltaE2000) ΔE00 mean")
        }
    }

    @Test("fuse across the validation envelope: metrics of SPEC 5 and the pipeline issue's floors",
          arguments: profilePairs)
    func envelope(cameraFile: String, flashFile: String) throws {
        let camera = try CameraProfile(path: Self.root.appendingPathComponent("calibration/" + cameraFile).path)
        let flash = try FlashProfile(path: Self.root.appendingPathComponent("calibration/" + flashFile).path)
        let folders = try ValidationRun.conditionFolders(in: Self.fixtures.path)
        try #require(folders.count >= 12, "fixtures missing under \(Self.fixtures.path)")
        print("profiles: \(cameraFile), \(flashFile)")
        var scored: [ConditionScore] = [], registration: [Double] = []
        for folder in folders {
            // The pipeline issue's confidence floor is on the measurement confidence (how well the
            // capture measured the flash's light); the only figure the colour confidence would change
            // here is the patch confidence (decisions use the measurement confidence either way).
            // The colour confidence is held to issue 7's honesty by HardFixtureHonestyTests and
            // ColorimetricUncertaintyTests.
            let s = try ValidationRun.score(folder: folder, camera: camera, flash: flash, countColorimetricUncertainty: false)
            let size = try JSONValue.read(path: folder + "/truth.json").object!["size"]!.doubles!
            let reg = try Self.registrationErrorRMS(s, folder: folder, width: Int(size[0]), height: Int(size[1]))
            scored.append(s); registration.append(reg)
            print(String(format: "%-28@ lux %6.0f  ΔE00 mean %5.2f max %5.2f  patch conf %.3f  cw conf %.3f  %@  reg err %.3f px",
                         s.name as NSString, s.ambientLux ?? 0, s.meanDeltaE2000, s.maxDeltaE2000, s.meanPatchConfidence,
                         s.centerWeightedConfidence, s.decision.rawValue as NSString, reg))
        }
        // The envelope: the Planckian conditions (name starts with the lux value).
        let envelope = scored.filter { $0.name.first!.isNumber }
        let set = SetScore(envelope)
        let lowLight = SetScore(envelope.filter { $0.ambientLux(atMost: 200) })
        let registrationRMS = (registration.map { $0 * $0 }.reduce(0, +) / Double(registration.count)).squareRoot()
        print(String(format: "repeatability mean %.3f p90 %.3f ΔE00; variance reduction %.1f %%; accuracy ≤200 lux %.2f ΔE00; patch confidence ≤200 lux %.3f; registration RMS %.3f px",
                     set.meanRepeatability, set.p90Repeatability, 100 * set.varianceReduction, lowLight.meanAccuracy,
                     lowLight.meanPatchConfidence, registrationRMS))
        // Floors of the pipeline issue.
        #expect(set.meanRepeatability <= 1.5)
        #expect(lowLight.meanAccuracy <= 3.0)
        #expect(set.varianceReduction >= 0.90)
        #expect(registrationRMS < 0.15)
        #expect(scored.first { $0.name.hasPrefix("bright-daylight") }?.decision == .fallback)
        #expect(lowLight.meanPatchConfidence >= 0.9)
    }
}
