import ConstantColor
import ConstantColorIO
import CTIFF
import Foundation
import Testing

@Suite("constant-color calibrate chart / validate")
struct CalibrateValidateCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let darkroom = root + "/fixtures/colorchecker/darkroom/darkroom.tif"
    static let darkroomTruth = root + "/fixtures/colorchecker/darkroom/truth.json"
    static let dark = root + "/fixtures/colorchecker/darkroom/dark.tif"

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cc-calib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func chartArguments(_ capture: String, chart: String, out: URL) -> [String] {
        ["calibrate", "chart", capture, "--chart", chart, "--black-level", "1024", "--white-level", "60000",
         "--camera-out", out.appendingPathComponent("cam.json").path, "--flash-out", out.appendingPathComponent("flash.json").path]
    }

    @Test("calibrate chart on the committed dark-room capture writes both profiles with the fit in the metadata")
    func calibrateChart() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir))
        #expect(r.status == 0, "\(r.stderr)")
        let camera = try CameraProfile(path: dir.appendingPathComponent("cam.json").path)
        let flash = try FlashProfile(path: dir.appendingPathComponent("flash.json").path)
        #expect(abs(camera.noise.gainElectronsPerDN / 0.25 - 1) <= 0.15)
        let mean = try #require(flash.metadata["fitMeanDeltaE2000"]?.double)
        #expect(mean <= 2.0)
        #expect(flash.metadata["patches"]?.array?.count == 24)
        let w = flash.matrixToXYZD65 * SIMD3(1, 1, 1), d65 = WhitePoint.d65XYZ
        #expect(abs(w.x - d65.x) < 1e-9 && abs(w.y - 1) < 1e-9 && abs(w.z - d65.z) < 1e-9)
        #expect(!r.stderr.contains("partly clipped"), "\(r.stderr)")
        // The same capture with 2.4 times the exposure clips part of the white patch: accepted (under
        // half its pixels), and said (it was silent while its median, and the white, came out too dark).
        let decoded = try TIFFReader.read(path: Self.darkroom)
        var bright = decoded.image
        for i in bright.samples.indices { bright.samples[i] = min(60000, 1024 + 2.4 * (bright.samples[i] - 1024)) }
        let brighter = dir.appendingPathComponent("brighter.tif").path
        try TIFFWriter.write(bright, to: brighter, options: TIFFWriteOptions(sampleType: .float32, exposure: decoded.exposure.settings))
        let partly = try CLI.run(chartArguments(brighter, chart: Self.darkroomTruth, out: dir))
        #expect(partly.status == 0 && partly.stderr.contains("partly clipped") && partly.stderr.contains("'white 9.5 (.05 D)' "), "\(partly.stderr)")
    }

    @Test("a chart capture stored with Orientation 8 is refused in one line naming the orientation: the chart's patch centres are read in the stored pixels, while a viewer shows it turned")
    func calibrateChartRefusesACaptureShownTurned() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoded = try TIFFReader.read(path: Self.darkroom)
        let turned = dir.appendingPathComponent("turned.tif").path
        try TIFFWriter.write(decoded.image, to: turned, options: TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings, orientation: 8))
        let r = try CLI.run(chartArguments(turned, chart: Self.darkroomTruth, out: dir))
        #expect(r.status == 2 && r.stderr.contains("turned.tif") && r.stderr.contains("orientation 8 (row 0 left, column 0 bottom)"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cam.json").path))
    }

    @Test("a chart description that does not match the capture (patch colours in reverse order): the fit is far off, exit 1, no profile written")
    func calibrateChartRefusesAWrongChart() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        var truth = try JSONValue.read(path: Self.darkroomTruth).object!
        var chart = truth["chart"]!.object!
        let patches = chart["patches"]!.array!
        let labs = patches.map { $0.object!["lab"]! }
        chart["patches"] = .array(patches.enumerated().map { k, p in
            var o = p.object!; o["lab"] = labs[labs.count - 1 - k]; return .object(o)
        })
        truth["chart"] = .object(chart)
        let wrong = dir.appendingPathComponent("reversed.json").path
        try JSONValue.object(truth).encodedData(file: "test").write(to: URL(fileURLWithPath: wrong))
        let r = try CLI.run(chartArguments(Self.darkroom, chart: wrong, out: dir))
        #expect(r.status == 1 && r.stderr.contains("--max-fit-error") && r.stderr.contains("no profile written"), "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("worst '"), "the worst patches are named: \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cam.json").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("flash.json").path))
    }

    @Test("calibrate chart --ambient under 800 lux with a shadow across the chart: the squares its penumbra crosses are left out of the noise model, which stays right")
    func calibrateChartWithAmbientShadow() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scene = Self.root + "/fixtures/colorchecker/800lux-5000K-on"
        let r = try CLI.run(chartArguments(scene + "/flash.tif", chart: scene + "/truth.json", out: dir)
                            + ["--ambient", scene + "/ambient.tif", "--read-noise", "8"])
        #expect(r.status == 0, "\(r.stderr)")
        let camera = try CameraProfile(path: dir.appendingPathComponent("cam.json").path)
        let area = camera.noise.correlation.areaFactor
        print(String(format: "800 lux chart with --ambient: gain %.4f e-/DN (truth 0.25), area factor %.2f %.2f %.2f (truth 1); %@",
                     camera.noise.gainElectronsPerDN, area.x, area.y, area.z,
                     r.stderr.split(separator: "\n").first { $0.contains("leaves out") }.map(String.init) ?? "nothing left out"))
        // All points: gain 0.156 and area factor 22 / 20 / 14 (the penumbra's ramp taken for noise).
        #expect(abs(camera.noise.gainElectronsPerDN / 0.25 - 1) <= 0.05)
        #expect(area.max() <= 1.3)
        #expect(r.stderr.contains("note: the noise model leaves out") && r.stderr.contains("'neutral 6.5 (.44 D)'"), "\(r.stderr)")
        #expect((camera.metadata["patchesExcludedAsStructure"]?.array?.count ?? 0) > 0)
    }

    @Test("without --dark the read noise is not measurable: a warning says so and what is written")
    func calibrateChartWithoutDarkWarns() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: the read noise is not measurable") && r.stderr.contains("--dark"), "\(r.stderr)")
        let camera = try CameraProfile(path: dir.appendingPathComponent("cam.json").path)
        #expect(camera.metadata["readNoiseSource"]?.string == "photon transfer intercept")
    }

    @Test("calibrate chart --dark: gain and read noise within 15 % of the synthesizer's, black level reported and kept")
    func calibrateChartWithDark() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir) + ["--dark", Self.dark])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("dark frame: black level") && !r.stderr.contains("warning"), "\(r.stderr)")
        let camera = try CameraProfile(path: dir.appendingPathComponent("cam.json").path)
        #expect(abs(camera.noise.gainElectronsPerDN / 0.25 - 1) <= 0.15)
        #expect(abs(camera.noise.readNoiseDN / 8 - 1) <= 0.15)
        #expect(camera.metadata["readNoiseSource"]?.string == "dark frame")
        #expect(camera.metadata["darkFile"]?.string == Self.dark)
        // A configured black level off by more than the read noise: a warning, and the level is kept.
        var arguments = chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir) + ["--dark", Self.dark]
        arguments[arguments.firstIndex(of: "1024")!] = "1000"
        let w = try CLI.run(arguments)
        #expect(w.status == 0, "\(w.stderr)")
        #expect(w.stderr.contains("warning: the dark frame's black level"), "\(w.stderr)")
        #expect(try CameraProfile(path: dir.appendingPathComponent("cam.json").path).blackLevel == 1000)
        // A dark frame said to be exposed for 10 s against the capture's fraction of a second: a warning.
        let capture = try #require(try TIFFReader.read(path: Self.darkroom).exposure.settings)
        let long = try CLI.run(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir)
                               + ["--dark", Self.dark, "--dark-exposure", "10,\(capture.fNumber),\(capture.isoSpeed)"])
        #expect(long.status == 0 && long.stderr.contains("warning: the dark frame's exposure time 10 s"), "\(long.stderr)")
        // --dark and --read-noise together are refused.
        let both = try CLI.run(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir) + ["--dark", Self.dark, "--read-noise", "8"])
        #expect(both.status == 2, "\(both.stderr)")
        // --camera: the given profile's keys this tool does not know are kept in the one written,
        // beside it and inside its noise (SPEC 4.1; they were dropped).
        var given = try JSONValue.read(path: dir.appendingPathComponent("cam.json").path).object!
        given["vendorSerial"] = .string("A1234")
        var noise = given["noise"]!.object!
        noise["vendorDarkCurrent"] = .number(0.02)
        given["noise"] = .object(noise)
        let givenPath = dir.appendingPathComponent("given.camera.json").path
        try JSONValue.object(given).encodedData(file: givenPath).write(to: URL(fileURLWithPath: givenPath))
        let kept = try CLI.run(["calibrate", "chart", Self.darkroom, "--chart", Self.darkroomTruth, "--camera", givenPath, "--dark", Self.dark,
                                "--camera-out", dir.appendingPathComponent("kept.json").path, "--flash-out", dir.appendingPathComponent("kept-flash.json").path])
        #expect(kept.status == 0, "\(kept.stderr)")
        let written = try JSONValue.read(path: dir.appendingPathComponent("kept.json").path).object!
        #expect(written["vendorSerial"] == .string("A1234") && written["noise"]?.object?["vendorDarkCurrent"] == .number(0.02), "\(written.keys.sorted())")
    }

    @Test("bad dark or ambient frames: another size, or a lit frame, exit 2 with one line naming the file; --ambient-exposure without --ambient refused")
    func badDarkFrames() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoded = try TIFFReader.read(path: Self.dark)
        var small = PlanarImage(width: 200, height: 150, channelCount: 3)
        for c in 0..<3 { for y in 0..<150 { for x in 0..<200 { small[x, y, c] = decoded.image[x, y, c] } } }
        let cropped = dir.appendingPathComponent("cropped-dark.tif").path
        try TIFFWriter.write(small, to: cropped, options: TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings))
        try expectBadInput(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir) + ["--dark", cropped], in: dir,
                           mentions: ["cropped-dark.tif", "200x150", "324x216"])
        // The flash-lit capture given as the dark frame.
        try expectBadInput(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir) + ["--dark", Self.darkroom], in: dir,
                           mentions: ["darkroom.tif: not a dark frame"])
        // An ambient frame of another size: named with both sizes (it named the capture, with none).
        let exposure = "\(decoded.exposure.settings!.exposureTimeSeconds),\(decoded.exposure.settings!.fNumber),\(decoded.exposure.settings!.isoSpeed)"
        try expectBadInput(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir)
                           + ["--read-noise", "8", "--ambient", cropped, "--ambient-exposure", exposure], in: dir,
                           mentions: ["cropped-dark.tif: the ambient frame is 200x150x3", "324x216x3"])
        // --ambient-exposure without --ambient describes nothing the run uses: refused (it was ignored).
        try expectBadInput(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir) + ["--read-noise", "8", "--ambient-exposure", exposure],
                           in: dir, mentions: ["--ambient-exposure needs --ambient"])
    }

    /// Exit 2, exactly one error line mentioning each of `mentions`, no outputs left.
    func expectBadInput(_ arguments: [String], in dir: URL, mentions: [String]) throws {
        let r = try CLI.run(arguments)
        #expect(r.status == 2, "status \(r.status): \(r.stderr)")
        // One line in all: the error, with no note or progress line before it.
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.allSatisfy { $0.contains("error:") }, "stderr: \(r.stderr)")
        for m in mentions { #expect(r.stderr.contains(m), "stderr lacks \(m): \(r.stderr)") }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") && ($0.hasPrefix("cam") || $0.hasPrefix("flash")) || $0.contains(".tmp") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("calibrate chart's default names carry a digest of the capture, so fuse warns of a flash profile from another calibration (same file name, other pixels: it was silent); without --dark or --read-noise the read noise is always said to be an estimate; two patches swapped in the description are named")
    func defaultNamesAndFitWarnings() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        func calibrate(_ capture: String, chart: String = Self.darkroomTruth, _ tag: String, dark: Bool = true) throws -> CLI.Outcome {
            try CLI.run(["calibrate", "chart", capture, "--chart", chart, "--black-level", "1024", "--white-level", "60000",
                         "--camera-out", dir.appendingPathComponent("\(tag).camera.json").path,
                         "--flash-out", dir.appendingPathComponent("\(tag).flash.json").path] + (dark ? ["--dark", Self.dark] : []))
        }
        // The committed capture, and a second one of the same name with other pixels (the flash 10 % weaker).
        #expect(try calibrate(Self.darkroom, "one").status == 0)
        let decoded = try TIFFReader.read(path: Self.darkroom)
        var weaker = decoded.image
        for i in weaker.samples.indices { weaker.samples[i] = (1024 + 0.9 * (weaker.samples[i] - 1024)).rounded() }
        let other = dir.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try TIFFWriter.write(weaker, to: other.appendingPathComponent("darkroom.tif").path,
                             options: TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings))
        #expect(try calibrate(other.appendingPathComponent("darkroom.tif").path, "two").status == 0)
        let one = try CameraProfile(path: dir.appendingPathComponent("one.camera.json").path)
        let two = try CameraProfile(path: dir.appendingPathComponent("two.camera.json").path)
        #expect(one.name.hasPrefix("camera calibrated from darkroom.tif (") && one.name != two.name, "\(one.name) / \(two.name)")
        let scene = Self.root + "/fixtures/colorchecker/200lux-4000K-on"
        func fuse(_ camera: String, _ flash: String) throws -> CLI.Outcome {
            try CLI.run(["fuse", scene + "/flash.tif", scene + "/ambient.tif", "--camera", dir.appendingPathComponent("\(camera).camera.json").path,
                         "--flash", dir.appendingPathComponent("\(flash).flash.json").path, "-o", dir.appendingPathComponent("o.tif").path])
        }
        let mixed = try fuse("one", "two"), matched = try fuse("one", "one")
        #expect(mixed.status == 0 && mixed.stderr.contains("two.flash.json was calibrated for camera 'camera calibrated from darkroom.tif ("), "\(mixed.stderr)")
        #expect(matched.status == 0 && !matched.stderr.contains("was calibrated for camera"), "\(matched.stderr)")
        // No dark frame and no --read-noise: the intercept's estimate is said, measurable or not.
        let noDark = try calibrate(Self.darkroom, "nodark", dark: false)
        #expect(noDark.status == 0 && noDark.stderr.contains("warning: the read noise is") && noDark.stderr.contains("give --dark DARK.tif"), "\(noDark.stderr)")
        #expect(try calibrate(Self.darkroom, "dark").stderr.contains("the read noise is") == false)
        // Two patches swapped in the description: each far from the rest, named (the mean stays under 2.5).
        var truth = try JSONValue.read(path: Self.darkroomTruth).object!
        var chart = truth["chart"]!.object!
        var patches = chart["patches"]!.array!
        let a = patches.firstIndex { $0.object?["name"]?.string == "orange" }!, b = patches.firstIndex { $0.object?["name"]?.string == "orange yellow" }!
        var pa = patches[a].object!, pb = patches[b].object!
        (pa["center"], pb["center"]) = (pb["center"], pa["center"])
        patches[a] = .object(pa); patches[b] = .object(pb)
        chart["patches"] = .array(patches); truth["chart"] = .object(chart)
        let swapped = dir.appendingPathComponent("swapped.json").path
        try JSONValue.object(truth).encodedData(file: "test").write(to: URL(fileURLWithPath: swapped))
        let swap = try calibrate(Self.darkroom, chart: swapped, "swap")
        #expect(swap.status == 0 && swap.stderr.contains("'orange'") && swap.stderr.contains("'orange yellow'")
                && swap.stderr.contains("two patches swapped?"), "\(swap.stderr)")
        #expect(!(try calibrate(Self.darkroom, "plain")).stderr.contains("two patches swapped?"))
    }

    @Test("bad inputs: a patch outside the image, malformed JSON, most patches clipped, --camera with levels, a device as output, a missing file; validate: no conditions, a truth.json of another size, --json = --html")
    func badInputs() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A patch outside the image.
        var truth = try JSONValue.read(path: Self.darkroomTruth).object!
        var chart = truth["chart"]!.object!
        var patches = chart["patches"]!.array!
        var first = patches[0].object!
        first["center"] = .array([.number(5000), .number(10)])
        patches[0] = .object(first); chart["patches"] = .array(patches); truth["chart"] = .object(chart)
        let outside = dir.appendingPathComponent("outside.json").path
        try JSONValue.object(truth).encodedData(file: "test").write(to: URL(fileURLWithPath: outside))
        try expectBadInput(chartArguments(Self.darkroom, chart: outside, out: dir), in: dir, mentions: ["dark skin", "darkroom.tif", "outside"])
        // The chart description moved by 40 % of the patch pitch: every square straddles two surfaces.
        truth = try JSONValue.read(path: Self.darkroomTruth).object!
        chart = truth["chart"]!.object!
        patches = chart["patches"]!.array!
        let x0 = patches[0].object!["center"]!.array![0].double!, x1 = patches[1].object!["center"]!.array![0].double!
        let shift = 0.4 * abs(x1 - x0)
        patches = patches.map { p in
            var o = p.object!
            let c = o["center"]!.array!.map { $0.double! }
            o["center"] = .array([.number(c[0] + shift), .number(c[1])]); return .object(o)
        }
        chart["patches"] = .array(patches); truth["chart"] = .object(chart)
        let shifted = dir.appendingPathComponent("shifted.json").path
        try JSONValue.object(truth).encodedData(file: "test").write(to: URL(fileURLWithPath: shifted))
        try expectBadInput(chartArguments(Self.darkroom, chart: shifted, out: dir), in: dir,
                           mentions: ["darkroom.tif", "patch 'dark skin'", "not one uniform surface", "do not fit the image"])
        // No neutral patch (each made chromatic): the chart's fault, named with the chart, not the capture.
        truth = try JSONValue.read(path: Self.darkroomTruth).object!
        chart = truth["chart"]!.object!
        chart["patches"] = .array(chart["patches"]!.array!.map { p in
            var o = p.object!
            let lab = o["lab"]!.array!.map { $0.double! }
            o["lab"] = .array([.number(lab[0]), .number(lab[1] + 20), .number(lab[2])]); return .object(o)
        })
        truth["chart"] = .object(chart)
        let chromatic = dir.appendingPathComponent("chromatic.json").path
        try JSONValue.object(truth).encodedData(file: "test").write(to: URL(fileURLWithPath: chromatic))
        try expectBadInput(chartArguments(Self.darkroom, chart: chromatic, out: dir), in: dir,
                           mentions: ["chromatic.json: the chart has 0 neutral patch(es)"])
        // Too few colours to fix a matrix: the greys alone (it fitted a profile 22 ΔE00 off at a fit
        // error of 0.62), and the greys with the reds and cyans only (one line through grey in a*b*).
        for (name, keep) in [("greys", { (lab: [Double]) in (lab[1] * lab[1] + lab[2] * lab[2]).squareRoot() < 3 }),
                             ("redcyan", { (lab: [Double]) in (lab[1] * lab[1] + lab[2] * lab[2]).squareRoot() < 3 || abs(lab[2]) < 0.3 * abs(lab[1]) })] {
            truth = try JSONValue.read(path: Self.darkroomTruth).object!
            chart = truth["chart"]!.object!
            let all = chart["patches"]!.array!
            var chosen = all.filter { keep($0.object!["lab"]!.array!.map { $0.double! }) }
            if name == "redcyan" {
                // Eight chromatic patches along a* (enough in number), made exactly so.
                chosen += all.filter { p in
                    let lab = p.object!["lab"]!.array!.map { $0.double! }
                    return (lab[1] * lab[1] + lab[2] * lab[2]).squareRoot() >= 3 && abs(lab[2]) >= 0.3 * abs(lab[1])
                }.prefix(8).map { p in
                    var o = p.object!
                    let lab = o["lab"]!.array!.map { $0.double! }
                    o["lab"] = .array([.number(lab[0]), .number(lab[1] >= 0 ? 40 : -40), .number(0)]); return .object(o)
                }
            }
            chart["patches"] = .array(chosen)
            truth["chart"] = .object(chart)
            let few = dir.appendingPathComponent("\(name).json").path
            try JSONValue.object(truth).encodedData(file: "test").write(to: URL(fileURLWithPath: few))
            try expectBadInput(chartArguments(Self.darkroom, chart: few, out: dir), in: dir,
                               mentions: ["\(name).json: ", name == "greys" ? "0 chromatic patches" : "lie along one line through grey"])
        }
        // Malformed JSON.
        let malformed = dir.appendingPathComponent("malformed.json").path
        try Data("{\"patches\": [".utf8).write(to: URL(fileURLWithPath: malformed))
        try expectBadInput(chartArguments(Self.darkroom, chart: malformed, out: dir), in: dir, mentions: ["malformed.json"])
        // Most patches clipped: the capture with 8 times the exposure.
        let decoded = try TIFFReader.read(path: Self.darkroom)
        var bright = decoded.image
        for i in bright.samples.indices { bright.samples[i] = min(60000, 1024 + 8 * (bright.samples[i] - 1024)) }
        let clipped = dir.appendingPathComponent("clipped.tif").path
        try TIFFWriter.write(bright, to: clipped, options: TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings))
        try expectBadInput(chartArguments(clipped, chart: Self.darkroomTruth, out: dir), in: dir, mentions: ["clipped.tif", "mostly clipped"])
        // The capture's values scaled to 5 % above black (floats: no quantization), with the set's dark
        // frame: its patches are quieter than the dark frame's read noise, which no signal can be (a
        // gain of 21 e⁻/DN was written, the truth 0.25).
        var faint = decoded.image
        for i in faint.samples.indices { faint.samples[i] = 1024 + 0.05 * (faint.samples[i] - 1024) }
        let faintPath = dir.appendingPathComponent("faint.tif").path
        try TIFFWriter.write(faint, to: faintPath, options: TIFFWriteOptions(sampleType: .float32, exposure: decoded.exposure.settings))
        // The capture given as its own --ambient twin (it was blamed on a patch with no signal).
        try expectBadInput(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir) + ["--ambient", Self.darkroom], in: dir,
                           mentions: ["darkroom.tif: is the chart capture's file as well"])
        // Another scene's ambient frame, brighter than the capture's own ambient light (800 lux against
        // 200): it was blamed on the black level or an unlit patch; the subtracted ambient is named.
        let scenes = Self.root + "/fixtures/colorchecker/"
        try expectBadInput(chartArguments(scenes + "200lux-4000K-on/flash.tif", chart: scenes + "200lux-4000K-on/truth.json", out: dir)
                           + ["--ambient", scenes + "800lux-3000K-above/ambient.tif"], in: dir,
                           mentions: ["flash.tif: patch ", "once the ambient frame is subtracted", "not this capture's ambient-only twin"])
        try expectBadInput(chartArguments(faintPath, chart: Self.darkroomTruth, out: dir)
                           + ["--dark", Self.dark], in: dir,
                           mentions: ["faint.tif: ", "quieter than the dark frame's read noise"])
        // --camera and --black-level / --white-level together: which levels hold is ambiguous.
        let both = try CLI.run(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir)
                               + ["--camera", Self.root + "/calibration/chart-nikon5100.camera.json"])
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        // An output that is a device (as root, the rename would put a file in place of /dev/null).
        let device = try CLI.run(["calibrate", "chart", Self.darkroom, "--chart", Self.darkroomTruth, "--black-level", "1024",
                                  "--white-level", "60000", "--camera-out", "/dev/null",
                                  "--flash-out", dir.appendingPathComponent("flash.json").path])
        #expect(device.status == 2 && device.stderr.contains("/dev/null") && device.stderr.contains("device"), "\(device.stderr)")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "/dev/null is no longer a device")
        // A black level far too low (0 for 1024) without a dark frame: the photon transfer intercept
        // comes out far below 0, which no variance can be.
        var low = chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir)
        low[low.firstIndex(of: "1024")!] = "0"
        try expectBadInput(low, in: dir, mentions: ["darkroom.tif", "black level 0", "too low"])
        // Black already subtracted (a raw converter's output) but --black-level 1024 given: the
        // darker patches have no signal left above it.
        var subtracted = decoded.image
        for i in subtracted.samples.indices { subtracted.samples[i] = max(0, subtracted.samples[i] - 1024) }
        let zeroBlack = dir.appendingPathComponent("zero-black.tif").path
        try TIFFWriter.write(subtracted, to: zeroBlack, options: TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings))
        try expectBadInput(chartArguments(zeroBlack, chart: Self.darkroomTruth, out: dir), in: dir,
                           mentions: ["zero-black.tif", "no signal above the black level", "already subtracted"])
        // A missing file.
        let missing = dir.appendingPathComponent("missing.tif").path
        try expectBadInput(chartArguments(missing, chart: Self.darkroomTruth, out: dir), in: dir, mentions: ["missing.tif"])
        // validate: a folder without conditions.
        let r = try CLI.run(["validate", dir.path, "--camera", Self.root + "/calibration/chart-nikon5100.camera.json",
                             "--flash", Self.root + "/calibration/chart-phosphor-led-yag.flash.json"])
        #expect(r.status == 2 && r.stderr.contains("no condition folders"), "\(r.stderr)")
        // validate: a folder that does not exist; a condition folder that lost a file (skipping it
        // would change the set's figures silently); a report into a missing folder, refused before the run.
        let profiles = ["--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                        "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"]
        let absent = try CLI.run(["validate", dir.appendingPathComponent("absent").path] + profiles)
        #expect(absent.status == 2 && absent.stderr.contains("absent: no such folder"), "\(absent.stderr)")
        let set = dir.appendingPathComponent("set")
        for n in ["10lux-3000K-on", "200lux-4000K-on"] {
            try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/" + n, toPath: set.appendingPathComponent(n).path)
        }
        // A condition whose ambient time tag is ten times too short: its chart renders without light,
        // which was blamed on the flash profile; the pair's measured exposure problem is said instead.
        let mistagged = dir.appendingPathComponent("mistagged")
        try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/200lux-4000K-on", toPath: mistagged.appendingPathComponent("c").path)
        let ambientPath = mistagged.appendingPathComponent("c/ambient.tif").path
        let ambientDecoded = try TIFFReader.read(path: ambientPath)
        var shortTag = try #require(ambientDecoded.exposure.settings)
        shortTag.exposureTimeSeconds /= 10
        try TIFFWriter.write(ambientDecoded.image, to: ambientPath, options: TIFFWriteOptions(sampleType: .uint16, exposure: shortTag))
        let mistaggedRun = try CLI.run(["validate", mistagged.path] + profiles)
        #expect(mistaggedRun.status == 2 && mistaggedRun.stderr.contains("no neutral patch is visible")
                && mistaggedRun.stderr.contains("exposure tags are far off") && !mistaggedRun.stderr.contains("check the flash profile"),
                "\(mistaggedRun.stderr)")
        let unwritable = try CLI.run(["validate", set.path, "--json", dir.appendingPathComponent("nowhere/v.json").path] + profiles)
        #expect(unwritable.status == 2 && unwritable.stderr.contains("nowhere") && unwritable.stderr.contains("does not exist")
                && !unwritable.stderr.contains("[1/"), "\(unwritable.stderr)")
        // One condition: the spread across conditions is undefined, not 0 (which passed) or a failure.
        let single = dir.appendingPathComponent("single")
        try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/10lux-3000K-on", toPath: single.appendingPathComponent("c").path)
        // A dark-room folder (darkroom.tif, dark.tif, truth.json: no frame of a pair) is not a condition: skipped.
        try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/darkroom", toPath: single.appendingPathComponent("darkroom").path)
        let one = try CLI.run(["validate", single.path, "--json", dir.appendingPathComponent("one.json").path,
                               "--html", dir.appendingPathComponent("one.html").path] + profiles)
        let page = try String(contentsOfFile: dir.appendingPathComponent("one.html").path, encoding: .utf8)
        #expect(!page.contains("nan") && page.contains("n/a"))
        #expect(one.status != 2 && one.stdout.contains("n/a repeatability") && !one.stdout.contains("variance reduction:")
                && !one.stdout.contains("nan"), "\(one.stdout)")
        let oneSet = try JSONValue.read(path: dir.appendingPathComponent("one.json").path).object?["set"]?.object ?? [:]
        #expect(oneSet["repeatabilityMeanDeltaE2000"] == .null && oneSet["varianceReduction"] == .null)
        #expect(!one.stderr.contains("warning"), "\(one.stderr)")
        // Each condition's JSON holds what fuse would warn about its pair: nothing here; a camera
        // profile whose gain is 16× too high (noise understated) is named in the residuals' warning.
        let oneConditions = try #require(JSONValue.read(path: dir.appendingPathComponent("one.json").path).object?["conditions"]?.array)
        #expect(oneConditions.first?.object?["warnings"]?.array?.isEmpty == true, "\(oneConditions.first?.object?["warnings"] ?? .null)")
        var gain = try CameraProfile(path: Self.root + "/calibration/synthetic-nikon5100.camera.json")
        gain.noise.gainElectronsPerDN *= 16
        let gainPath = dir.appendingPathComponent("gain.json").path
        try gain.json.encodedData(file: "camera").write(to: URL(fileURLWithPath: gainPath))
        let noisy = dir.appendingPathComponent("noisy")
        try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/200lux-4000K-on", toPath: noisy.appendingPathComponent("c").path)
        let understated = try CLI.run(["validate", noisy.path, "--camera", gainPath, "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json",
                                       "--json", dir.appendingPathComponent("noisy.json").path])
        #expect(understated.status != 2, "\(understated.stderr)")
        let noisyConditions = try #require(JSONValue.read(path: dir.appendingPathComponent("noisy.json").path).object?["conditions"]?.array)
        let noisyWarnings = noisyConditions.first?.object?["warnings"]?.array?.compactMap(\.string) ?? []
        #expect(noisyWarnings.contains { $0.hasPrefix("warning: the ambient edges' residuals are") && $0.contains("gain.json's noise model predicts") },
                "\(noisyWarnings)")
        // A flash profile calibrated for another camera: validate warns as fuse does, and still runs.
        let mismatched = try CLI.run(["validate", single.path, "--camera", Self.root + "/calibration/synthetic-sigma-sdmerill.camera.json",
                                      "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"])
        #expect(mismatched.status != 2 && mismatched.stderr.contains("was calibrated for camera 'Nikon 5100 (NPL)'")
                && mismatched.stderr.contains("is 'Sigma SDMerill (NPL)': its matrix and white are that camera's") && mismatched.stderr.contains("[1/1]"),
                "\(mismatched.stderr)")
        // Profiles of another camera and flash, made for each other: the devices the truth names are
        // said, before the run (a probe's Sigma set scored with the Nikon profiles was constantColor
        // at 0.964 with every confident pixel > 3 ΔE00 off, and nothing said).
        let otherDevice = try CLI.run(["validate", single.path, "--camera", Self.root + "/calibration/synthetic-sigma-sdmerill.camera.json",
                                       "--flash", Self.root + "/calibration/synthetic-led-b4.flash.json"])
        let deviceLines = otherDevice.stderr.split(separator: "\n").filter { $0.contains("condition(s) were captured with") }
        #expect(otherDevice.status != 2 && deviceLines.count == 2
                && deviceLines[0].contains("1 of 1 condition(s) were captured with camera 'Nikon 5100 (NPL)'") && deviceLines[0].contains("c/truth.json")
                && deviceLines[0].contains("synthetic-sigma-sdmerill.camera.json is 'Sigma SDMerill (NPL)'")
                && deviceLines[1].contains("with flash 'Phosphor LED YAG"), "\(otherDevice.stderr)")
        #expect(otherDevice.stderr.range(of: "captured with camera")!.lowerBound < otherDevice.stderr.range(of: "[1/1]")!.lowerBound)
        // --json and --html naming one file: refused before the run.
        let same = try CLI.run(["validate", set.path, "--json", dir.appendingPathComponent("r.out").path,
                                "--html", dir.appendingPathComponent("r.out").path] + profiles)
        #expect(same.status == 2 && same.stderr.contains("same file") && same.stderr.contains("r.out") && !same.stderr.contains("[1/"),
                "\(same.stderr)")
        // A truth.json of another capture's size: exit 2 naming it, not a score of the wrong pixels.
        let truthPath = set.appendingPathComponent("10lux-3000K-on/truth.json").path
        let original = try Data(contentsOf: URL(fileURLWithPath: truthPath))
        var other = try JSONValue.read(path: truthPath).object!
        other["size"] = .array([.number(1200), .number(800)])
        try JSONValue.object(other).encodedData(file: "test").write(to: URL(fileURLWithPath: truthPath))
        let wrongSize = try CLI.run(["validate", set.path] + profiles)
        #expect(wrongSize.status == 2 && wrongSize.stderr.contains("truth.json") && wrongSize.stderr.contains("1200x800")
                && wrongSize.stderr.contains("another capture") && !wrongSize.stderr.contains("[1/"), "\(wrongSize.stderr)")
        // Its chart moved beyond the frames: said of truth.json before any condition is fused (it was
        // said of flash.tif, after the conditions before it had run).
        var beyondFrames = try JSONValue.read(path: truthPath).object!
        beyondFrames["size"] = nil
        var beyondFramesChart = beyondFrames["chart"]!.object!
        beyondFramesChart["patches"] = .array(beyondFramesChart["patches"]!.array!.map { p in
            var o = p.object!
            let c = o["center"]!.array!.map { $0.double! }
            o["center"] = .array([.number(c[0] + 1000), .number(c[1])]); return .object(o)
        })
        beyondFrames["chart"] = .object(beyondFramesChart)
        try JSONValue.object(beyondFrames).encodedData(file: "test").write(to: URL(fileURLWithPath: truthPath))
        let patchOutside = try CLI.run(["validate", set.path] + profiles)
        #expect(patchOutside.status == 2 && patchOutside.stderr.split(separator: "\n").count == 1 && patchOutside.stderr.contains("10lux-3000K-on/truth.json: chart patch")
                && patchOutside.stderr.contains("outside"), "\(patchOutside.stderr)")
        try original.write(to: URL(fileURLWithPath: truthPath))
        // The first condition's ambient frame of another size: one line, with no profile note before
        // it (the note was said first, a line of two).
        let firstAmbient = set.appendingPathComponent("10lux-3000K-on/ambient.tif").path
        let firstAmbientData = try Data(contentsOf: URL(fileURLWithPath: firstAmbient))
        let decodedAmbient = try TIFFReader.read(path: firstAmbient)
        var croppedAmbient = PlanarImage(width: decodedAmbient.image.width - 8, height: decodedAmbient.image.height, channelCount: 3)
        for c in 0..<3 { for y in 0..<croppedAmbient.height { for x in 0..<croppedAmbient.width { croppedAmbient[x, y, c] = decodedAmbient.image[x, y, c] } } }
        try TIFFWriter.write(croppedAmbient, to: firstAmbient, options: TIFFWriteOptions(sampleType: .uint16, exposure: decodedAmbient.exposure.settings))
        let croppedRun = try CLI.run(["validate", set.path] + profiles)
        #expect(croppedRun.status == 2 && croppedRun.stderr.split(separator: "\n").count == 1 && croppedRun.stderr.contains("10lux-3000K-on/ambient.tif"),
                "\(croppedRun.stderr)")
        try firstAmbientData.write(to: URL(fileURLWithPath: firstAmbient))
        try FileManager.default.removeItem(at: set.appendingPathComponent("200lux-4000K-on/ambient.tif"))
        let incomplete = try CLI.run(["validate", set.path] + profiles)
        #expect(incomplete.status == 2 && incomplete.stderr.contains("200lux-4000K-on") && incomplete.stderr.contains("missing ambient.tif"),
                "\(incomplete.stderr)")
        // A condition that lost both frames, its truth.json left (it was skipped: a set of one ran).
        try FileManager.default.removeItem(at: set.appendingPathComponent("200lux-4000K-on/flash.tif"))
        let framesLost = try CLI.run(["validate", set.path] + profiles)
        #expect(framesLost.status == 2 && framesLost.stderr.contains("200lux-4000K-on")
                && framesLost.stderr.contains("missing flash.tif, ambient.tif"), "\(framesLost.stderr)")
        // Names in the wrong case are a misnamed condition, said as such (not "missing" alone, and
        // a folder of only upper-case names is not skipped as no condition).
        try FileManager.default.removeItem(at: set.appendingPathComponent("200lux-4000K-on"))
        let upper = set.appendingPathComponent("10lux-3000K-on")
        for n in ["flash.tif", "ambient.tif"] {
            try FileManager.default.moveItem(at: upper.appendingPathComponent(n), to: upper.appendingPathComponent(n.uppercased()))
        }
        let misnamed = try CLI.run(["validate", set.path] + profiles)
        #expect(misnamed.status == 2 && misnamed.stderr.contains("missing flash.tif (found FLASH.TIF")
                && misnamed.stderr.contains("case-sensitive"), "\(misnamed.stderr)")
        for n in ["flash.tif", "ambient.tif"] {
            try FileManager.default.moveItem(at: upper.appendingPathComponent(n.uppercased()), to: upper.appendingPathComponent(n))
        }
        // A truth.json without its chart: the message names the key that holds the patches.
        other = try JSONValue.read(path: truthPath).object!
        other["chart"] = nil
        try JSONValue.object(other).encodedData(file: "test").write(to: URL(fileURLWithPath: truthPath))
        let chartless = try CLI.run(["validate", set.path] + profiles)
        #expect(chartless.status == 2 && chartless.stderr.contains("truth.json") && chartless.stderr.contains("'chart'"),
                "\(chartless.stderr)")
        try original.write(to: URL(fileURLWithPath: truthPath))
        // Conditions whose charts differ are refused before the run: the set's figures compare each
        // patch across conditions by position (a shorter list crashed validate after fusing every
        // condition; a reversed one compared different patches: repeatability 16.9 instead of 0.09).
        try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/200lux-4000K-on",
                                         toPath: set.appendingPathComponent("200lux-4000K-on").path)
        let secondPath = set.appendingPathComponent("200lux-4000K-on/truth.json").path
        let secondOriginal = try JSONValue.read(path: secondPath).object!
        var secondChart = secondOriginal["chart"]!.object!
        let secondPatches = secondChart["patches"]!.array!
        func writeSecond(_ change: (inout [String: JSONValue]) -> Void) throws {
            var second = secondOriginal
            change(&second)
            try JSONValue.object(second).encodedData(file: "test").write(to: URL(fileURLWithPath: secondPath))
        }
        let changes: [([JSONValue], String)] = [(Array(secondPatches.reversed()), "patch 1 is"), (Array(secondPatches.prefix(20)), "20 patches against 24")]
        for (list, detail) in changes {
            secondChart["patches"] = JSONValue.array(list)
            try writeSecond { $0["chart"] = .object(secondChart) }
            let mismatch = try CLI.run(["validate", set.path] + profiles)
            #expect(mismatch.status == 2 && mismatch.stderr.contains("200lux-4000K-on/truth.json: its chart is not")
                    && mismatch.stderr.contains(detail) && !mismatch.stderr.contains("[1/"), "\(mismatch.stderr)")
        }
        // --accuracy-max-lux with a condition that does not say its lux (it was silently left out),
        // and a negative lux.
        try writeSecond { $0["condition"] = .object([:]) }
        let noLux = try CLI.run(["validate", set.path, "--accuracy-max-lux", "300"] + profiles)
        #expect(noLux.status == 2 && noLux.stderr.contains("has no condition.ambientLux") && !noLux.stderr.contains("[1/"), "\(noLux.stderr)")
        try writeSecond { $0["condition"] = .object(["ambientLux": .number(-5)]) }
        let negativeLux = try CLI.run(["validate", set.path] + profiles)
        #expect(negativeLux.status == 2 && negativeLux.stderr.contains("condition.ambientLux' must be a number >= 0"), "\(negativeLux.stderr)")
        try writeSecond { _ in }
        // --accuracy-max-lux below every condition's lux: refused from the truth files, before any
        // condition is fused (it was said after the whole run), with the limit and the set's range.
        let belowAll = try CLI.run(["validate", set.path, "--accuracy-max-lux", "1"] + profiles)
        #expect(belowAll.status == 2 && belowAll.stderr.contains("no condition has truth.json condition.ambientLux <= --accuracy-max-lux 1 (the set's run from ")
                && !belowAll.stderr.contains("[1/"), "\(belowAll.stderr)")
        // A patch square on a flash highlight: the output there is the gap fill, not a measurement.
        // It was scored once (ΔE00 74.7, check failed), then refused with the whole set; now that
        // sample is left out of the condition's metrics and listed, and the condition's other
        // patches score exactly as without it (the fusion does not depend on the chart).
        let reportPath = set.appendingPathComponent("report.json").path
        func conditionReport(_ name: String) throws -> [String: JSONValue] {
            let conditions = try #require(JSONValue.read(path: reportPath).object?["conditions"]?.array)
            return try #require(conditions.compactMap(\.object).first { $0["name"]?.string == name })
        }
        try writeSecond { _ in }
        let unmoved = try CLI.run(["validate", set.path, "--json", reportPath] + profiles)
        #expect(unmoved.status != 2, "\(unmoved.stderr)")
        let unmovedPatches = try #require(conditionReport("200lux-4000K-on")["patches"]?.array).compactMap { $0.object?["deltaE2000"]?.double }
        let highlight = try #require(secondOriginal["speculars"]?.array?.first?.object?["center"])
        var onHighlight = secondPatches, moved = secondPatches[0].object!
        moved["center"] = highlight; moved["halfSize"] = .number(2)
        onHighlight[0] = .object(moved)
        secondChart["patches"] = .array(onHighlight)
        try writeSecond { $0["chart"] = .object(secondChart) }
        let onClipped = try CLI.run(["validate", set.path, "--json", reportPath] + profiles)
        #expect(onClipped.status != 2 && !onClipped.stderr.contains("error:")
                && onClipped.stdout.contains("left out 1 patch sample(s) mostly clipped (200lux-4000K-on: 'dark skin'"),
                "\(onClipped.stdout)\n\(onClipped.stderr)")
        let clippedCondition = try conditionReport("200lux-4000K-on")
        let clippedPatch = try #require(clippedCondition["patches"]?.array?.first?.object)
        #expect(clippedCondition["mostlyClippedPatches"]?.array?.compactMap(\.string) == ["dark skin"])
        #expect(clippedPatch["mostlyClipped"] == .bool(true) && (clippedPatch["flashClippedFraction"]?.double ?? 0) > 0.5)
        let rest = unmovedPatches.dropFirst()
        #expect(unmovedPatches.count == 24 && abs((clippedCondition["accuracyMeanDeltaE2000"]?.double ?? .nan) - rest.reduce(0, +) / 23) < 1e-9,
                "\(clippedCondition["accuracyMeanDeltaE2000"] ?? .null) against \(rest.reduce(0, +) / 23)")
        let clippedSet = try #require(JSONValue.read(path: reportPath).object?["set"]?.object?["mostlyClippedPatchSamples"]?.object)
        #expect(clippedSet["count"]?.double == 1)
        // More than half of the chart on the highlights: the capture is overexposed, refused. (Squares
        // of one pixel, four side by side at the centre of each highlight: patches that share pixels
        // are refused as such.)
        let centres = try #require(secondOriginal["speculars"]?.array?.compactMap { $0.object?["center"]?.doubles })
        let spots = centres.flatMap { c in [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)].map { (c[0] + $0.0, c[1] + $0.1) } }
        #expect(spots.count >= 13)
        secondChart["patches"] = .array(secondPatches.indices.map { i in
            guard i <= 12, i < spots.count, var p = secondPatches[i].object else { return secondPatches[i] }
            p["center"] = .array([.number(spots[i].0), .number(spots[i].1)]); p["halfSize"] = .number(0.5)
            return .object(p)
        })
        try writeSecond { $0["chart"] = .object(secondChart) }
        let overexposed = try CLI.run(["validate", set.path] + profiles)
        let clippedErrors = overexposed.stderr.split(separator: "\n").filter { $0.contains("error:") }
        #expect(overexposed.status == 2 && overexposed.stderr.contains("200lux-4000K-on/flash.tif: 13 of 24 patches are mostly clipped")
                && clippedErrors.count == 1, "\(overexposed.stderr)")
        try writeSecond { _ in }
        // A check the set cannot measure is a usage error, not a failed check (it printed "nan", exit 1).
        let unmeasurable = try CLI.run(["validate", set.path, "--max-confident-wrong", "0.01"] + profiles)
        #expect(unmeasurable.status == 2 && unmeasurable.stderr.contains("--max-confident-wrong cannot be checked")
                && !unmeasurable.stderr.contains("[1/"), "\(unmeasurable.stderr)")
    }

    /// Independent scoring of one condition: fuse, per-channel median over the patch square (pixel
    /// centers inside it), one exposure scale (median Y ratio over the last six patches), Lab, ΔE00.
    static func independentLab(folder: String, camera: CameraProfile, flash: FlashProfile) throws -> (lab: [SIMD3<Double>], deltaE: [Double]) {
        let truth = try JSONValue.read(path: folder + "/truth.json").object!
        let patches = truth["chart"]!.object!["patches"]!.array!.map { $0.object! }
        let f = try TIFFReader.read(path: folder + "/flash.tif"), a = try TIFFReader.read(path: folder + "/ambient.tif")
        var options = FusionOptions()
        options.linearSpace = .xyz
        let result = try FusionPipeline.run(flash: RawFrame(image: f.image, exposure: f.exposure.settings!, name: "f"),
                                            ambient: RawFrame(image: a.image, exposure: a.exposure.settings!, name: "a"),
                                            camera: camera, flashProfile: flash, options: options)
        var measured: [SIMD3<Double>] = [], reference: [SIMD3<Double>] = []
        for p in patches {
            let c = p["center"]!.doubles!, h = p["halfSize"]!.double!, l = p["lab"]!.doubles!
            reference.append(SIMD3(l[0], l[1], l[2]))
            var m = SIMD3<Double>(0, 0, 0)
            for ch in 0..<3 {
                var v: [Double] = []
                for y in 0..<result.linear!.height where Double(y) + 0.5 >= c[1] - h && Double(y) + 0.5 < c[1] + h {
                    for x in 0..<result.linear!.width where Double(x) + 0.5 >= c[0] - h && Double(x) + 0.5 < c[0] + h {
                        v.append(Double(result.linear![x, y, ch]))
                    }
                }
                v.sort()
                m[ch] = v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
            }
            measured.append(m)
        }
        let white = WhitePoint.d65XYZ
        let ratios = (18..<24).map { ColorScience.xyz(fromLab: reference[$0], white: white).y / measured[$0].y }.sorted()
        let k = (ratios[2] + ratios[3]) / 2
        let lab = measured.map { ColorScience.lab(fromXYZ: $0 * k, white: white) }
        return (lab, zip(lab, reference).map { ColorScience.ciede2000($0, $1) })
    }

    @Test("validate on three committed conditions reports the numbers computed here independently")
    func validateMatchesIndependentScoring() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let names = ["10lux-3000K-on", "200lux-4000K-on", "800lux-5000K-on"]
        for n in names {
            try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/" + n, toPath: dir.appendingPathComponent(n).path)
        }
        let cameraPath = Self.root + "/calibration/synthetic-nikon5100.camera.json"
        let flashPath = Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"
        let json = dir.appendingPathComponent("report.json").path, html = dir.appendingPathComponent("report.html").path
        let r = try CLI.run(["validate", dir.path, "--camera", cameraPath, "--flash", flashPath, "--json", json, "--html", html])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").filter { $0.contains("[") && $0.contains("/3]") }.count == 3, "progress: \(r.stderr)")
        for n in names { #expect(r.stdout.contains(n)) }
        let report = try JSONValue.read(path: json).object!
        let conditions = report["conditions"]!.array!.map { $0.object! }
        let camera = try CameraProfile(path: cameraPath), flash = try FlashProfile(path: flashPath)
        var labs: [[SIMD3<Double>]] = []
        for (n, c) in zip(names, conditions) {
            #expect(c["name"]?.string == n)
            let (lab, deltaE) = try Self.independentLab(folder: dir.appendingPathComponent(n).path, camera: camera, flash: flash)
            labs.append(lab)
            let reported = c["accuracyMeanDeltaE2000"]!.double!
            #expect(abs(reported - deltaE.reduce(0, +) / 24) < 1e-6, "\(n): \(reported) vs \(deltaE.reduce(0, +) / 24)")
            let perPatch = c["patches"]!.array!.map { $0.object!["deltaE2000"]!.double! }
            #expect(zip(perPatch, deltaE).allSatisfy { abs($0 - $1) < 1e-6 })
        }
        // Repeatability: per patch, mean ΔE00 from the mean Lab over the conditions; then the mean.
        var repeatability = 0.0
        for p in 0..<24 {
            let mean = labs.map { $0[p] }.reduce(.zero, +) / Double(labs.count)
            repeatability += labs.map { ColorScience.ciede2000($0[p], mean) }.reduce(0, +) / Double(labs.count) / 24
        }
        let set = report["set"]!.object!
        #expect(abs(set["repeatabilityMeanDeltaE2000"]!.double! - repeatability) < 1e-6)
        // The ratio's error in units of the uncertainty `fuse` states for it (its report's
        // exposure.ambientRatio.relativeUncertainty), per condition and as the set's RMS.
        var z2 = 0.0
        for (n, c) in zip(names, conditions) {
            let folder = dir.appendingPathComponent(n).path, fused = dir.appendingPathComponent(n + "-report.json").path
            let f = try CLI.run(["fuse", folder + "/flash.tif", folder + "/ambient.tif", "-o", dir.appendingPathComponent(n + ".tif").path,
                                 "--report", fused, "--camera", cameraPath, "--flash", flashPath])
            #expect(f.status == 0, "\(f.stderr)")
            let u = try #require(JSONValue.read(path: fused).object?["exposure"]?.object?["ambientRatio"]?.object?["relativeUncertainty"]?.double)
            let ratio = try #require(c["ambientToFlashRatio"]?.object)
            let error = try #require(ratio["estimatedRelativeError"]?.double), z = try #require(ratio["estimatedErrorZ"]?.double)
            #expect(ratio["estimatedRelativeUncertainty"]?.double == u && abs(z - error / u) < 1e-12, "\(n)")
            z2 += z * z / Double(names.count)
        }
        let ratioSet = try #require(set["ambientToFlashRatio"]?.object)
        #expect(abs(try #require(ratioSet["estimatedErrorZRMS"]?.double) - z2.squareRoot()) < 1e-12)
        #expect(r.stdout.contains(String(format: "rms z %.2f", z2.squareRoot())))
        // The HTML page is self-contained: inline SVG, no external references.
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("<svg") && page.contains("CIEDE2000") && !page.contains("src=") && !page.contains("href=") && !page.contains("<script"))
        // A tolerance that cannot be met: exit 1.
        let strict = try CLI.run(["validate", dir.path, "--camera", cameraPath, "--flash", flashPath, "--max-accuracy", "0.1"])
        #expect(strict.status == 1 && strict.stderr.contains("check failed"), "\(strict.stderr)")
    }

    /// A temporary set of two conditions, `a` and `b`, both copies of the committed 200lux-4000K-on.
    static func twoCopiesOfOneCondition() throws -> URL {
        let dir = try temporaryFolder()
        for name in ["a", "b"] {
            try FileManager.default.copyItem(atPath: root + "/fixtures/colorchecker/200lux-4000K-on", toPath: dir.appendingPathComponent(name).path)
        }
        return dir
    }

    @Test("calibrate chart on data that are not linear light says so: gamma-encoded above the black level, the variance falls with the signal (said with the refusal); the curve over the raw codes (fitted with exit 0 and no word: mean 7.6 ΔE00, read noise 174 DN) warns that the fit is far above a linear capture's; 8-bit linear codes, whose darker patches' noise is under half a code, are refused as unmeasurable by photon transfer, not as a black level 2 DN off")
    func chartCaptureThatIsNotLinearLight() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoded = try TIFFReader.read(path: Self.darkroom)
        // Encoded as a JPEG pipeline does (black subtracted, then the curve), and with the black
        // level's codes encoded too (the curve over the raw codes); 8-bit linear codes.
        var gamma = decoded.image, offsetGamma = decoded.image, eightBit = decoded.image
        for i in gamma.samples.indices {
            gamma.samples[i] = (65535 * pow(max(0, gamma.samples[i] - 1024) / (65535 - 1024), 1 / 2.2)).rounded()
            offsetGamma.samples[i] = (65535 * pow(offsetGamma.samples[i] / 65535, 1 / 2.2)).rounded()
            eightBit.samples[i] = (eightBit.samples[i] / 257).rounded()
        }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        for (image, name, type) in [(gamma, "gamma.tif", TIFFWriteOptions.SampleType.uint16), (offsetGamma, "offset-gamma.tif", .uint16),
                                    (eightBit, "linear8.tif", .uint8)] {
            try TIFFWriter.write(image, to: path(name), options: TIFFWriteOptions(sampleType: type, exposure: decoded.exposure.settings))
        }
        func levels(_ white: String) -> [String] {
            ["--chart", Self.darkroomTruth, "--black-level", "0", "--white-level", white, "--camera-out", path("g.camera.json"), "--flash-out", path("g.flash.json")]
        }
        try expectBadInput(["calibrate", "chart", path("gamma.tif")] + levels("65535"), in: dir,
                           mentions: ["gamma.tif", "noise variance falls as their signal rises", "gamma-encoded"])
        let encoded = try CLI.run(["calibrate", "chart", path("offset-gamma.tif")] + levels("65535"))
        #expect(encoded.status == 0 && encoded.stderr.contains("is above 2.5"), "\(encoded.stderr)")
        try FileManager.default.removeItem(atPath: path("g.camera.json")); try FileManager.default.removeItem(atPath: path("g.flash.json"))
        // The linear capture the profiles are fitted from: neither warning.
        let linear = try CLI.run(chartArguments(Self.darkroom, chart: Self.darkroomTruth, out: dir))
        #expect(linear.status == 0 && !linear.stderr.contains("falls as their signal") && !linear.stderr.contains("is above 2.5"), "\(linear.stderr)")
        for name in ["cam.json", "flash.json"] { try FileManager.default.removeItem(atPath: path(name)) }
        var eightBitArguments = ["calibrate", "chart", path("linear8.tif")] + levels("255")
        eightBitArguments[eightBitArguments.firstIndex(of: "0")!] = "4"
        try expectBadInput(eightBitArguments, in: dir, mentions: ["linear8.tif", "under half a code", "quantization"])
    }

    @Test("validate reads the frames as fuse does: frames with a gamma ICC profile are refused before the run unless --linearize-icc, which gives the linear set's figures (validate took the encoded values for light: a probe's phone-like set scored 10.7 ΔE00 with 5 of 7 conditions constantColor)")
    func validateLinearizesICCFrames() throws {
        let dir = try Self.twoCopiesOfOneCondition()
        defer { try? FileManager.default.removeItem(at: dir) }
        let profiles = ["--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                        "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"]
        let linearReport = dir.appendingPathComponent("linear.json").path, encodedReport = dir.appendingPathComponent("encoded.json").path
        let linear = try CLI.run(["validate", dir.path, "--json", linearReport] + profiles)
        #expect(linear.status != 2, "\(linear.stderr)")
        // Each frame gamma-encoded (1/2.2) as 16-bit codes, the encoding's ICC profile embedded.
        let icc = try ICCProfileFactory.rgbGamma(space: .sRGB, gamma: 2.2)
        for condition in ["a", "b"] {
            for frame in ["flash.tif", "ambient.tif"] {
                let path = dir.appendingPathComponent("\(condition)/\(frame)").path
                let decoded = try TIFFReader.read(path: path)
                var encoded = decoded.image
                for i in encoded.samples.indices { encoded.samples[i] = (65535 * pow(max(0, encoded.samples[i]) / 65535, 1 / 2.2)).rounded() }
                try TIFFWriter.write(encoded, to: path, options: TIFFWriteOptions(sampleType: .uint16, iccProfile: icc, exposure: decoded.exposure.settings))
            }
        }
        let refused = try CLI.run(["validate", dir.path] + profiles)
        #expect(refused.status == 2 && refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("a/flash.tif")
                && refused.stderr.contains("non-linear ICC profile") && !refused.stderr.contains("[1/"), "\(refused.stderr)")
        let linearized = try CLI.run(["validate", dir.path, "--linearize-icc", "--json", encodedReport] + profiles)
        #expect(linearized.status == linear.status && linearized.stderr.contains("a/flash.tif was rendered by its camera"), "\(linearized.stderr)")
        func figures(_ path: String) throws -> (accuracy: Double, confidence: [Double]) {
            let report = try #require(JSONValue.read(path: path).object)
            let accuracy = try #require(report["set"]?.object?["accuracyMeanDeltaE2000"]?.double)
            return (accuracy, try #require(report["conditions"]?.array).compactMap { $0.object?["centerWeightedMeanConfidence"]?.double })
        }
        let l = try figures(linearReport), e = try figures(encodedReport)
        #expect(abs(l.accuracy - e.accuracy) < 0.05 && e.confidence.count == 2
                && zip(l.confidence, e.confidence).allSatisfy { abs($0 - $1) < 0.01 }, "linear \(l), linearized \(e)")
    }

    @Test("validate reads the frames through the library's InputFrame, as fuse does: a frame without exposure tags is refused before any condition is fused, naming the missing tags and how to write them; the 8-bit note is said as fuse says it, and a frame whose every sample is clipped is refused naming it")
    func validateFramesReadAsFuseReadsThem() throws {
        let dir = try Self.twoCopiesOfOneCondition()
        defer { try? FileManager.default.removeItem(at: dir) }
        let profiles = ["--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                        "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"]
        let ambient = dir.appendingPathComponent("b/ambient.tif").path
        let decoded = try TIFFReader.read(path: ambient)
        try TIFFWriter.write(decoded.image, to: ambient, options: TIFFWriteOptions(sampleType: .uint16))
        let r = try CLI.run(["validate", dir.path] + profiles)
        #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 1 && !r.stderr.contains("[1/"), "\(r.stderr)")
        for m in ["b/ambient.tif: no exposure data (", "ExposureTime", "missing in EXIF", "give the tags in the file (validate takes each frame's exposure from its EXIF", "exiftool"] {
            #expect(r.stderr.contains(m), "stderr lacks \(m): \(r.stderr)")
        }
        // The same frame as 8-bit samples with its tags: the note said with its name as the frame is
        // read. Its codes lie below the 16-bit profile's black level, so every ambient sample is
        // clipped and the output is the gap fill everywhere: refused, naming the frame (it was
        // scored as if measured).
        var eight = decoded.image
        let top = eight.samples.max()!
        for i in eight.samples.indices { eight.samples[i] = (eight.samples[i] / top * 255).rounded() }
        try TIFFWriter.write(eight, to: ambient, options: TIFFWriteOptions(sampleType: .uint8, exposure: decoded.exposure.settings))
        let said = try CLI.run(["validate", dir.path] + profiles)
        #expect(said.stderr.contains("b/ambient.tif has 8-bit samples and no ICC profile"), "\(said.stderr)")
        #expect(said.status == 2 && said.stderr.contains("b/ambient.tif: 24 of 24 patches are mostly clipped (first: 'dark skin'), at the white level or far below black")
                && said.stderr.contains("camera profile's black and white levels are not this file's"), "\(said.stderr)")
    }

    @Test("validate on two copies of one condition: the variance reduction, undefined without variance, is said not checked (it failed as 'nan'); the other checks decide")
    func identicalConditions() throws {
        let dir = try Self.twoCopiesOfOneCondition()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["validate", dir.path, "--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                             "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"])
        #expect(r.status == 0 && r.stderr.contains("variance reduction not checked") && !r.stderr.contains("check failed"), "\(r.stderr)")
        // Given explicitly, a tolerance the set cannot measure is an error (it was skipped, exit 0);
        // so is --max-repeatability on a set of one condition, before any condition is fused.
        let profiles = ["--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                        "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"]
        let given = try CLI.run(["validate", dir.path, "--min-variance-reduction", "0.95"] + profiles)
        #expect(given.status == 2 && given.stderr.contains("--min-variance-reduction cannot be checked"), "\(given.stderr)")
        let single = try CLI.run(["validate", Self.root + "/fixtures/real-hard", "--max-repeatability", "0.1"])
        #expect(single.status == 2 && single.stderr.split(separator: "\n").count == 1 && single.stderr.contains("--max-repeatability cannot be checked"),
                "\(single.stderr)")
        // The 200 lux condition's truth holds 200.00000000000023 lux (computed from its spectrum):
        // --accuracy-max-lux 200 takes it (it found no condition at or below 200 lux).
        let lux = try CLI.run(["validate", dir.path, "--accuracy-max-lux", "200"] + profiles)
        #expect(lux.status == 0 && lux.stdout.contains("(<= 200 lux)"), "\(lux.stderr)")
    }

    @Test("validate on a user's set whose truth.json holds only the chart: the ratio's errors are said unmeasured for want of the true ratio (it said no report carried the estimate, which the table showed)")
    func chartOnlyTruth() throws {
        let dir = try Self.twoCopiesOfOneCondition()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["a", "b"] {
            let path = dir.appendingPathComponent(name + "/truth.json").path
            let chart = try #require(try JSONValue.read(path: path).object?["chart"])
            try JSONValue.object(["chart": chart]).encodedData(file: "test").write(to: URL(fileURLWithPath: path))
        }
        let r = try CLI.run(["validate", dir.path, "--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                             "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"])
        #expect(r.stdout.contains("no truth.json gives the true ratio") && !r.stdout.contains("no report carries"), "\(r.stdout)")
    }

    @Test("validate refuses a condition's frame whose EXIF exposure no camera records before the run says anything, naming the file (it named none, after the first conditions' lines)")
    func implausibleExposureInASet() throws {
        let dir = try Self.twoCopiesOfOneCondition()
        defer { try? FileManager.default.removeItem(at: dir) }
        // b's flash frame rewritten with its samples and an exposure time of 2·10⁵ s in IFD0.
        let path = dir.appendingPathComponent("b/flash.tif").path
        let image = try TIFFReader.read(path: path).image
        try FileManager.default.removeItem(atPath: path)
        let tif = try #require(TIFFOpen(path, "w"))
        for (tag, value) in [(TIFFTAG_IMAGEWIDTH, image.width), (TIFFTAG_IMAGELENGTH, image.height), (TIFFTAG_ROWSPERSTRIP, image.height)] {
            _ = cc_tiff_set_u32(tif, UInt32(tag), UInt32(value))
        }
        for (tag, value) in [(TIFFTAG_BITSPERSAMPLE, 16), (TIFFTAG_SAMPLESPERPIXEL, 3), (TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_RGB)),
                             (TIFFTAG_PLANARCONFIG, Int(PLANARCONFIG_CONTIG))] {
            _ = cc_tiff_set_u16(tif, UInt32(tag), UInt16(value))
        }
        #expect(cc_tiff_register_ifd0_exposure_fields(tif) == 0)
        #expect(cc_tiff_set_double(tif, 33434, 2e5) == 1 && cc_tiff_set_double(tif, 33437, 2.8) == 1)
        var iso: UInt16 = 100
        #expect(cc_tiff_set_u16_array(tif, 34855, 1, &iso) == 1)
        var row = [UInt16](repeating: 0, count: 3 * image.width)
        for y in 0..<image.height {
            for x in 0..<image.width { for c in 0..<3 { row[3 * x + c] = UInt16(image[x, y, c]) } }
            #expect(TIFFWriteScanline(tif, &row, UInt32(y), 0) == 1)
        }
        TIFFClose(tif)
        let r = try CLI.run(["validate", dir.path, "--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                             "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"])
        #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("b/flash.tif")
                && r.stderr.contains("exposure time 200000.0 s is outside"), "\(r.stderr)")
    }

    /// SPEC 3's `validate DIR`: the set names its profiles in profiles.json (relative to its folder),
    /// and the run is the one with `--camera` and `--flash` given; a flag overrides the file for its
    /// profile; a set without the file, or a file without a key, is refused in one line.
    @Test("validate DIR without --camera / --flash takes the profiles the set's profiles.json names (the same figures as with the flags); without it, or with a key missing: exit 2, one line")
    func validateTakesTheSetsProfiles() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let set = dir.appendingPathComponent("set").path
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: Self.root + "/fixtures/colorchecker/200lux-4000K-on", toPath: set + "/200lux-4000K-on")
        let cameraPath = Self.root + "/calibration/synthetic-nikon5100.camera.json"
        let flashPath = Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json"
        func figures(_ extra: [String]) throws -> (CLI.Outcome, JSONValue?) {
            let json = dir.appendingPathComponent("v.json").path
            try? FileManager.default.removeItem(atPath: json)
            let r = try CLI.run(["validate", set, "--json", json] + extra)
            var report = r.status == 0 ? try JSONValue.read(path: json).object : nil
            report?["camera"] = nil; report?["flash"] = nil  // the paths as given differ
            return (r, report.map(JSONValue.object))
        }
        let (given, expected) = try figures(["--camera", cameraPath, "--flash", flashPath])
        #expect(given.status == 0, "\(given.stderr)")
        let missing = try CLI.run(["validate", set])
        #expect(missing.status == 2 && missing.stderr.split(separator: "\n").count == 1 && missing.stderr.contains("profiles.json")
                && missing.stderr.contains("--camera"), "\(missing.stderr)")
        try #"{"camera": "\#(cameraPath)", "flash": "\#(flashPath)"}"#.write(toFile: set + "/profiles.json", atomically: true, encoding: .utf8)
        let (named, figuresNamed) = try figures([])
        #expect(named.status == 0 && named.stderr.contains("profiles from \(set)/profiles.json"), "\(named.stderr)")
        #expect(figuresNamed != nil && figuresNamed == expected)
        try FileManager.default.createDirectory(atPath: set + "/profiles", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: flashPath, toPath: set + "/profiles/flash.json")
        try #"{"camera": "\#(cameraPath)", "flash": "profiles/flash.json"}"#.write(toFile: set + "/profiles.json", atomically: true, encoding: .utf8)
        let (relativeRun, figuresRelative) = try figures([])
        #expect(relativeRun.status == 0 && relativeRun.stderr.contains("flash \(set)/profiles/flash.json"), "\(relativeRun.stderr)")
        #expect(figuresRelative == expected)
        try #"{"camera": "\#(cameraPath)"}"#.write(toFile: set + "/profiles.json", atomically: true, encoding: .utf8)
        let noFlash = try CLI.run(["validate", set])
        #expect(noFlash.status == 2 && noFlash.stderr.split(separator: "\n").count == 1 && noFlash.stderr.contains("key 'flash'"), "\(noFlash.stderr)")
        let (flagged, figuresFlagged) = try figures(["--flash", flashPath])
        #expect(flagged.status == 0 && figuresFlagged == expected, "\(flagged.stderr)")
        // The run names what it took from the file, and only that (the flash came from the flag).
        #expect(flagged.stderr.contains("profiles from \(set)/profiles.json: camera \(cameraPath)\n"), "\(flagged.stderr)")
        // The set's profiles.json is an input: no report may replace it.
        let before = try String(contentsOfFile: set + "/profiles.json", encoding: .utf8)
        let overwrite = try CLI.run(["validate", set, "--flash", flashPath, "--json", set + "/profiles.json"])
        #expect(overwrite.status == 2 && overwrite.stderr.split(separator: "\n").count == 1 && overwrite.stderr.contains("profiles.json"),
                "\(overwrite.stderr)")
        #expect(try String(contentsOfFile: set + "/profiles.json", encoding: .utf8) == before)
        // Without the flags, a file or a missing folder is said as such (not as a set without profiles.json).
        let file = try CLI.run(["validate", set + "/profiles.json"])
        #expect(file.status == 2 && file.stderr.split(separator: "\n").count == 1 && file.stderr.contains("is a file, not a folder"),
                "\(file.stderr)")
        let none = try CLI.run(["validate", dir.appendingPathComponent("none").path])
        #expect(none.status == 2 && none.stderr.split(separator: "\n").count == 1 && none.stderr.contains("no such folder"),
                "\(none.stderr)")
        // A condition's frame that is no TIFF is refused before the run says anything (the profiles'
        // notes, the first condition's line).
        try FileManager.default.copyItem(atPath: set + "/200lux-4000K-on", toPath: set + "/zz-png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]).write(to: URL(fileURLWithPath: set + "/zz-png/flash.tif"))
        let png = try CLI.run(["validate", set, "--flash", flashPath])
        #expect(png.status == 2 && png.stderr.split(separator: "\n").count == 1 && png.stderr.contains("zz-png/flash.tif")
                && png.stderr.contains("it is a PNG image"), "\(png.stderr)")
    }
}
