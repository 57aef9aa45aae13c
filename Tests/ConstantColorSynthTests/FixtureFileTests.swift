import Foundation
import Testing
import ConstantColor
import ConstantColorIO
@testable import ConstantColorSynth

@Suite struct FixtureFileTests {
    let lib = Fixture.library

    /// Two runs with the same seed write byte-identical files; the TIFFs read back as the rendered
    /// data numbers with the EXIF exposure of truth.json.
    @Test func sameSeedGivesByteIdenticalFilesThatReadBack() throws {
        let r = try nikonRenderer(lib)
        let cond = SynthCondition.preset(named: "fluorescent-fl11-200lux")!
        let dirs = [Fixture.temporaryDirectory("a"), Fixture.temporaryDirectory("b")]
        defer { dirs.forEach(Fixture.removeTemporaryDirectory) }
        var captures: [SynthCapture] = []
        for d in dirs {
            let cap = try r.render(cond, width: 96, height: 64, seed: 11)
            try cap.write(toDirectory: d)
            captures.append(cap)
        }
        for f in [SynthCapture.FileName.flash, SynthCapture.FileName.ambient, SynthCapture.FileName.truth] {
            let a = try Data(contentsOf: URL(fileURLWithPath: dirs[0] + "/" + f))
            let b = try Data(contentsOf: URL(fileURLWithPath: dirs[1] + "/" + f))
            #expect(a == b, "\(f) differs between runs")
        }
        let decoded = try TIFFReader.read(path: dirs[0] + "/" + SynthCapture.FileName.ambient)
        #expect(decoded.image == captures[0].ambient!.image && decoded.bitsPerSample == 16)
        let e = try #require(decoded.exposure.settings)
        let truth = try JSONValue.read(path: dirs[0] + "/" + SynthCapture.FileName.truth)
        let t = try JSONObjectReader(truth, file: "truth.json").object("exposure").object("ambient")
        let (tt, iso, fn) = (try t.number("exposureTimeSeconds"), try t.number("isoSpeed"), try t.number("fNumber"))
        // EXIF RATIONALs pass through libtiff as single-precision floats: equal to 1e-6 relative.
        #expect(abs(e.exposureTimeSeconds / tt - 1) < 1e-6 && e.isoSpeed == iso && abs(e.fNumber / fn - 1) < 1e-6)
    }

    /// The truth file has the contract's members, and patch references are the D65 Lab of the reflectances.
    @Test func truthFollowsTheContract() throws {
        let r = try nikonRenderer(lib)
        let cap = try r.render(SynthCondition.preset(named: "200lux-5000K-below")!, width: 120, height: 80, seed: 2)
        let t = try JSONObjectReader(cap.truth, file: "truth")
        let (version, seed) = (try t.number("schemaVersion"), try t.number("seed"))
        #expect(version == 1 && seed == 2)
        let c = try t.object("condition")
        let (lux, cct, duv) = (try c.number("ambientLux"), try c.number("ambientCCT"), try c.number("duv"))
        #expect(abs(lux - 200) < 1e-6 && abs(cct - 5000) < 1 && abs(duv + 0.01) < 1e-4)
        let cam = try t.object("camera")
        let (black, gain) = (try cam.number("blackLevel"), try cam.object("noise").number("gainElectronsPerDN"))
        #expect(black == 1024 && gain == 0.25)
        let chart = try t.object("chart")
        #expect(try chart.string("illuminant") == "D65")
        let patches = try #require(chart.members["patches"]?.array)
        #expect(patches.count == 24)
        let first = try JSONObjectReader(patches[0], file: "truth", prefix: "patches[0].")
        #expect(try first.string("name") == "dark skin")
        let lab = try first.numbers("lab", count: 3)
        #expect(abs(lab[0] - 37.97) < 0.1 && abs(lab[1] - 12.11) < 0.2)   // colour-science: 37.97, 12.11, 13.69
        let m = try #require(t.members["ambientFromFlash"]?.object?["matrix"]?.array)
        #expect(m.count == 3)
        let backgroundLab = try t.object("background").numbers("lab", count: 3)
        #expect(abs(backgroundLab[1]) < 1e-6 && abs(backgroundLab[2]) < 1e-6)
        let polygon = try #require(t.members["shadow"]?.object?["polygon"]?.array)
        #expect(polygon.count == 4)
        let speculars = try #require(t.members["speculars"]?.array)
        #expect(speculars.count == 4)
    }

    /// A dark-room capture has no ambient frame, no motion and a null CCT.
    @Test func darkroomCapture() throws {
        let r = try nikonRenderer(lib)
        let cap = try r.render(.darkroom, width: 96, height: 64, seed: 1)
        #expect(cap.ambient == nil && cap.truth.object?["ambientFromFlash"] == nil)
        let d = Fixture.temporaryDirectory("dark")
        defer { Fixture.removeTemporaryDirectory(d) }
        try cap.write(toDirectory: d)
        #expect(FileManager.default.fileExists(atPath: d + "/darkroom.tif") && !FileManager.default.fileExists(atPath: d + "/flash.tif"))
    }
}
