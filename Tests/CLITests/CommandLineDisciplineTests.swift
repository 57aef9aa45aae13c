import ConstantColor
import Foundation
import Testing

/// What the command line refuses before any work: an option given twice (ArgumentParser keeps the
/// last value without a word), and a `calibrate` whose options would write a profile `fuse` refuses.
@Suite("Command line: options given once, profiles fuse can read")
struct CommandLineDisciplineTests {
    /// A probe (session 50): `fuse -o a.tif -o b.tif` wrote only b.tif, `--camera A --camera B` fused
    /// with B's, `--colorimetric-uncertainty --no-colorimetric-uncertainty` was the latter, and
    /// `check --threshold 0.1 --threshold 0.99` used 0.99. Each is refused now in one line naming the
    /// option; `synth --light`, the one repeatable option, is not.
    @Test("an option given twice (or with its --no- form) is refused in one line naming it", arguments: [
        (["fuse", "f.tif", "a.tif", "--camera", "c.json", "--flash", "l.json", "-o", "a.tif", "-o", "b.tif"], "-o"),
        (["fuse", "f.tif", "a.tif", "--camera", "c.json", "--camera", "d.json", "--flash", "l.json", "-o", "a.tif"], "--camera"),
        (["fuse", "f.tif", "a.tif", "--camera", "c.json", "--flash", "l.json", "--output=a.tif", "-o", "b.tif"], "-o"),
        (["fuse", "f.tif", "a.tif", "--colorimetric-uncertainty", "--no-colorimetric-uncertainty"], "--no-colorimetric-uncertainty"),
        (["check", "r.json", "--threshold", "0.1", "--threshold=0.99"], "--threshold"),
    ])
    func repeatedOption(arguments: [String], named: String) throws {
        let r = try CLI.run(arguments)
        let lines = r.stderr.split(separator: "\n")
        #expect(r.status == 2 && lines.count == 1 && r.stderr.contains("\(named) is given more than once"), "\(r.stderr)")
    }

    @Test("synth's --light may be given more than once; values that look like options (a negative gradient) are values")
    func repeatableOption() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cc-repeat-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let r = try CLI.run(["synth", "--light", "planckian:3000@100@left", "--light", "planckian:6500@100@right", "--gradient", "-1.5",
                             "--width", "64", "--height", "48", "--spectra", CalibrateValidateCLITests.root + "/fixtures/spectra/",
                             "--out", folder])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// `calibrate spectral --white-level 2e9` (or `--read-noise 1e6`) wrote a profile every `fuse`
    /// then refused. The profile is read back as `fuse` reads it first: refused, nothing written.
    @Test("calibrate refuses, before writing, a profile fuse would refuse", arguments: [["--white-level", "2e9"], ["--read-noise", "1e6"]])
    func calibratedProfileReadsBack(option: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cc-roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spectra = CalibrateValidateCLITests.root + "/fixtures/spectra/"
        let camera = folder.appendingPathComponent("c.json").path, flash = folder.appendingPathComponent("f.json").path
        let r = try CLI.run(["calibrate", "spectral", "--camera-sensitivity", spectra + "camera-nikon-5100-npl.json",
                             "--flash-spd", spectra + "flash-phosphor-led-yag.json", "--spectra", spectra,
                             "--camera-out", camera, "--flash-out", flash] + option)
        #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 1
                && r.stderr.contains("would not be readable by fuse") && r.stderr.contains("nothing written"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: camera) && !FileManager.default.fileExists(atPath: flash))
    }
}
