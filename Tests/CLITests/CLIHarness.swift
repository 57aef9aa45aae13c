import ConstantColor
import ConstantColorIO
import Foundation

/// Runs the built `constant-color` executable (it sits beside the test bundle).
enum CLI {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var dir = bundle
        // The test runner may live inside an .xctest bundle folder.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("constant-color")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return bundle.appendingPathComponent("constant-color")
    }

    /// Runs the executable with `arguments`, in `folder` when given (relative paths are then its).
    /// With `fileSizeLimitKiB`, under that limit on the size of any file it writes (bash's `ulimit
    /// -f`, SIGXFSZ ignored so that a write beyond it fails with EFBIG): a write that fails late.
    static func run(_ arguments: [String], in folder: String? = nil, fileSizeLimitKiB: Int? = nil) throws -> Outcome {
        let process = Process()
        if let limit = fileSizeLimitKiB {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "ulimit -f \(limit) && trap '' XFSZ && exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                       stderr: String(decoding: e, as: UTF8.self))
    }
}

/// A temporary folder with a small flash/ambient pair and profiles.
struct PairFolder {
    let url: URL
    var path: String { url.path }
    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    static let width = 96, height = 64
    static let flashExposure = ExposureSettings(exposureTimeSeconds: 1.0 / 125, fNumber: 2.8, isoSpeed: 100)
    static let ambientExposure = ExposureSettings(exposureTimeSeconds: 1.0 / 30, fNumber: 2.8, isoSpeed: 200)

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cc-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try writeProfiles()
        try TIFFWriter.write(Self.frame(flash: true), to: file("flash.tif"),
                             options: TIFFWriteOptions(sampleType: .uint16, exposure: Self.flashExposure))
        try TIFFWriter.write(Self.frame(flash: false), to: file("ambient.tif"),
                             options: TIFFWriteOptions(sampleType: .uint16, exposure: Self.ambientExposure))
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// Squares of different colors on grey; flash adds a neutral light, ambient is warm.
    static func frame(flash: Bool) -> PlanarImage {
        var img = PlanarImage(width: width, height: height, channelCount: 3)
        let e = flash ? flashExposure : ambientExposure
        let scale = e.radiometricScale
        for y in 0..<height {
            for x in 0..<width {
                var rho = SIMD3<Double>(0.4, 0.4, 0.4)
                if (x / 16 + y / 16) % 3 == 0 { rho = SIMD3(0.7, 0.3, 0.2) }
                if (x / 16 + y / 16) % 3 == 1 { rho = SIMD3(0.2, 0.5, 0.6) }
                let ambient = SIMD3<Double>(2e5, 1.5e5, 0.8e5)
                let light = flash ? ambient + SIMD3(1.6e6, 2e6, 1.4e6) : ambient
                for c in 0..<3 {
                    // Deterministic small texture so registration has something to hold.
                    var h = UInt64(x * 7919 + y * 104_729) &* 0x9E37_79B9_7F4A_7C15
                    h ^= h >> 29
                    let texture = 1 + 0.04 * (Double(h % 1000) / 1000 - 0.5)  // aperiodic fixed texture
                    img[x, y, c] = Float((rho[c] * light[c] * scale * texture + 256).rounded())
                }
            }
        }
        return img
    }

    func writeProfiles() throws {
        let camera = CameraProfile(name: "cli test", blackLevel: 256, whiteLevel: 65535,
                                   noise: NoiseModel(readNoiseDN: 2, gainElectronsPerDN: 2))
        let flash = FlashProfile(name: "cli flash", cameraName: "cli test", whiteCameraRGB: SIMD3(0.8, 1, 0.7),
                                 matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        try camera.json.encodedData(file: "test").write(to: url.appendingPathComponent("camera.json"))
        try flash.json.encodedData(file: "test").write(to: url.appendingPathComponent("flash.json"))
    }

    /// `fuse` arguments on this folder's pair, writing `out.tif`.
    func fuseArguments(_ extra: [String] = []) -> [String] {
        ["fuse", file("flash.tif"), file("ambient.tif"), "--camera", file("camera.json"),
         "--flash", file("flash.json"), "-o", file("out.tif")] + extra
    }
}
