import ConstantColor
import ConstantColorIO
import Foundation
import Testing

/// What a library caller hands the pipeline directly (frames built in memory, options set in code,
/// reports stored and read back) is checked where the command line's own checks cannot reach: a
/// library must not crash its host or return garbage on bad data (a consumer's probe, session 43).
@Suite("Library entry points")
struct LibraryDoorTests {
    let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)

    /// The analytic scene's pair: the flash frame with ambient light, the ambient frame alone.
    func pair() -> (flash: PlanarImage, ambient: PlanarImage) {
        let scene = SyntheticScene()
        let lamp = SIMD3<Double>(2e5, 1.5e5, 1e5)
        return (scene.render(flashGain: 3e6, ambient: lamp, exposure: exposure, seed: 1),
                scene.render(flashGain: 0, ambient: lamp, exposure: exposure, seed: 2))
    }

    func run(_ flash: PlanarImage, _ ambient: PlanarImage, options: FusionOptions = FusionOptions()) throws -> FusionResult {
        try FusionPipeline.run(flash: RawFrame(image: flash, exposure: exposure, name: "flash"),
                               ambient: RawFrame(image: ambient, exposure: exposure, name: "ambient"),
                               camera: SyntheticScene.camera, flashProfile: SyntheticScene.flashProfile, options: options)
    }

    @Test("a frame whose samples were replaced by a buffer of another size is refused, not read past its end (it crashed with a segmentation fault)")
    func sampleCount() throws {
        var (flash, ambient) = pair()
        flash.samples = Array(flash.samples.prefix(100))
        #expect(throws: FusionError.sampleCount(name: "flash", count: 100, expected: ambient.samples.count)) { try run(flash, ambient) }
        ambient.samples = []
        #expect(throws: FusionError.sampleCount(name: "ambient", count: 0, expected: pair().ambient.samples.count)) { try run(pair().flash, ambient) }
        // The writer too (it reported a "not finite" sample read beyond the buffer).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("library-door-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var short = PlanarImage(width: 64, height: 64, channelCount: 3)
        short.samples = [1, 2, 3]
        do {
            try TIFFWriter.writeRGB16(short, to: folder.appendingPathComponent("short.tif").path, iccProfile: nil)
            Issue.record("a 3-sample buffer of a 64x64 RGB image was written")
        } catch {
            let message = String(describing: error)
            #expect(message.contains("hold 3 values") && message.contains("12288"), "\(message)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("short.tif").path))
    }

    @Test("a sample that is not a number: normalization flags its pixel as no measurement and keeps it finite (one NaN made a fifth of the linear output NaN), and the pipeline refuses the frame as the TIFF reader refuses such a file")
    func notANumber() throws {
        var (flash, ambient) = pair()
        flash[10, 10, 0] = .nan
        flash[11, 10, 1] = .nan
        let normalized = ExposureNormalization.normalize(raw: flash, exposure: exposure, camera: SyntheticScene.camera)
        #expect(normalized.notANumberCount == 2)
        let i = 10 * flash.width + 10
        #expect(normalized.clipped[i] & LinearFrame.belowFloor != 0 && normalized.clipped[i + 1] & LinearFrame.belowFloor != 0)
        #expect(normalized.clipped[i + 2] == 0 && normalized.image.samples.allSatisfy(\.isFinite))
        // The scalar tail of a row band too (the last pixels, past the last whole vector).
        var narrow = SyntheticScene()
        narrow.width = 163  // (a row of 163 leaves 3 pixels past the last whole vector of 8)
        var tail = narrow.render(flashGain: 3e6, ambient: .zero, exposure: exposure, seed: 3)
        tail[tail.width - 1, tail.height - 1, 2] = .nan
        tail[tail.width - 2, tail.height - 1, 0] = .infinity
        let tailNormalized = ExposureNormalization.normalize(raw: tail, exposure: exposure, camera: SyntheticScene.camera)
        #expect(tailNormalized.notANumberCount == 1 && tailNormalized.image.samples.allSatisfy(\.isFinite))
        #expect(tailNormalized.clipped[tail.pixelCount - 1] & LinearFrame.belowFloor != 0)
        #expect(tailNormalized.clipped[tail.pixelCount - 2] == LinearFrame.clippedAtWhite)
        // The pixel taken at the floor, as a sample far below black is.
        var floored = narrow.render(flashGain: 3e6, ambient: .zero, exposure: exposure, seed: 3)
        floored[tail.width - 1, tail.height - 1, 2] = -1e30
        let flooredNormalized = ExposureNormalization.normalize(raw: floored, exposure: exposure, camera: SyntheticScene.camera)
        #expect(tailNormalized.image[tail.width - 1, tail.height - 1, 2] == flooredNormalized.image[tail.width - 1, tail.height - 1, 2])
        #expect(throws: FusionError.notANumber(name: "flash", count: 2)) { try run(flash, ambient) }
        ambient[0, 0, 2] = .nan
        #expect(throws: FusionError.notANumber(name: "ambient", count: 1)) { try run(pair().flash, ambient) }
        #expect(ExposureNormalization.normalize(raw: pair().flash, exposure: exposure, camera: SyntheticScene.camera).notANumberCount == 0)
    }

    @Test("options a caller sets in code are checked as the command line checks its flags", arguments: [
        "threshold 5", "threshold nan", "outputScale 0", "outputScale -1", "outputScale 1e30", "noiseReduction.radius 0",
        "noiseReduction.subsampling 0", "noiseReduction.regularization -4", "noiseReduction.wideRadii -6",
    ])
    func options(setting: String) throws {
        let parts = setting.split(separator: " ").map(String.init)
        let name = parts[0], value = Double(parts[1])!
        var options = FusionOptions()
        switch name {
        case "threshold": options.threshold = value
        case "outputScale": options.outputScale = value
        case "noiseReduction.radius": options.noiseReduction.radius = Int(value)
        case "noiseReduction.subsampling": options.noiseReduction.subsampling = Int(value)
        case "noiseReduction.regularization": options.noiseReduction.regularization = Float(value)
        default: options.noiseReduction.wideRadii = [Int(value)]
        }
        let (flash, ambient) = pair()
        do {
            _ = try run(flash, ambient, options: options)
            Issue.record("\(name) accepted")
        } catch let FusionError.invalidOption(option, _, _) {
            #expect(option == name)
        }
        // The defaults and the ends of the ranges pass.
        var edge = FusionOptions()
        edge.threshold = 1
        edge.outputScale = 1e20
        try edge.validate()
        try FusionOptions().validate()
    }

    @Test("profiles built in code are checked as profile files are (a gain of 0, white below black, a flash white without green or a zero matrix gave black output at confidence 0 without a word)")
    func profilesBuiltInCode() throws {
        let (flash, ambient) = pair()
        func run(camera: CameraProfile = SyntheticScene.camera, flashProfile: FlashProfile = SyntheticScene.flashProfile) throws {
            _ = try FusionPipeline.run(flash: RawFrame(image: flash, exposure: exposure, name: "flash"),
                                       ambient: RawFrame(image: ambient, exposure: exposure, name: "ambient"),
                                       camera: camera, flashProfile: flashProfile)
        }
        func refused(_ key: String, _ body: () throws -> Void) {
            do { try body(); Issue.record("\(key) accepted") } catch {
                #expect(String(describing: error).contains("key '\(key)'") && String(describing: error).contains("profile '"), "\(error)")
            }
        }
        let c = SyntheticScene.camera
        refused("noise.gainElectronsPerDN") { try run(camera: CameraProfile(name: "bad", blackLevel: c.blackLevel, whiteLevel: c.whiteLevel,
                                                                             noise: NoiseModel(readNoiseDN: 8, gainElectronsPerDN: 0))) }
        refused("whiteLevel") { try run(camera: CameraProfile(name: "bad", blackLevel: 60000, whiteLevel: 1000, noise: c.noise)) }
        refused("noise.readNoiseDN") { try run(camera: CameraProfile(name: "bad", blackLevel: c.blackLevel, whiteLevel: c.whiteLevel,
                                                                      noise: NoiseModel(readNoiseDN: -8, gainElectronsPerDN: 2))) }
        let f = SyntheticScene.flashProfile
        refused("whiteCameraRGB") { try run(flashProfile: FlashProfile(name: "bad", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 0, 0.9),
                                                                        matrixToXYZD65: f.matrixToXYZD65)) }
        refused("matrixToXYZD65") { try run(flashProfile: FlashProfile(name: "bad", cameraName: nil, whiteCameraRGB: f.whiteCameraRGB,
                                                                        matrixToXYZD65: Matrix3([0, 0, 0, 0, 0, 0, 0, 0, 0]))) }
        try run()
        try c.validate(source: "c")
        try f.validate(source: "f")
    }

    @Test("the library's report carries the warnings fuse says, naming the profiles by name (it was left empty: they lived in the command-line target)")
    func warningsInTheLibrary() throws {
        let (flash, ambient) = pair()
        let normal = try run(flash, ambient)
        // The test flash profile has no shading map and no colorimetric uncertainty: both said.
        #expect(normal.report.warnings.contains { $0.hasPrefix("note: the flash profile 'test flash' has no shading map") }, "\(normal.report.warnings)")
        #expect(normal.report.warnings.contains { $0.contains("the flash profile 'test flash' has no colorimetricUncertainty") }, "\(normal.report.warnings)")
        #expect(!normal.report.warnings.contains { $0.contains("flash light") }, "\(normal.report.warnings)")
        // The frames swapped: no pixel measured flash light, and the report says so.
        let swapped = try run(ambient, flash)
        #expect(swapped.report.warnings.contains { $0.hasPrefix("warning: ") && $0.contains("flash light") }, "\(swapped.report.warnings)")
    }

    @Test("a report written as fuse writes it reads back equal, an infinite residual included (a default encoder threw on it), and one written before `warnings` existed still reads")
    func reportRoundTrip() throws {
        // Featureless frames: nothing to register, the residual is infinite.
        let flat = PlanarImage(width: 48, height: 40, channelCount: 3, repeating: 20_000)
        let ambient = PlanarImage(width: 48, height: 40, channelCount: 3, repeating: 5_000)
        var result = try run(flat, ambient)
        #expect(!result.report.registration.residual.isFinite)
        result.report.warnings = ["warning: a test"]
        let data = try FusionReport.jsonEncoder().encode(result.report)
        let back = try FusionReport.jsonDecoder().decode(FusionReport.self, from: data)
        #expect(try FusionReport.jsonEncoder().encode(back) == data)
        #expect(back.warnings == ["warning: a test"] && back.registration.residual == .infinity)
        // Without the keys added later: their defaults.
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["warnings"] = nil
        object["colorConfidence"] = nil
        #expect(object["frameDisagreement"] != nil)
        object["frameDisagreement"] = nil
        let older = try JSONSerialization.data(withJSONObject: object)
        let read = try FusionReport.jsonDecoder().decode(FusionReport.self, from: older)
        #expect(read.warnings.isEmpty && read.colorConfidence.centerWeightedMean == read.centerWeightedMeanConfidence)
        #expect(back.frameDisagreement?.regionCount == 0 && read.frameDisagreement == nil)
    }
}
