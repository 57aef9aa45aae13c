import ConstantColor
import ConstantColorCalibration
import ConstantColorIO
import Foundation
import Testing

/// `calibrate flat-field` and the shading map in `fuse` (issue 7, item 5), end to end through the
/// binary: synth renders the flat field and the scenes from the committed spectral data (Nikon
/// D5100 + phosphor LED YAG), the numbers are checked against synth's truth.
@Suite("constant-color calibrate flat-field and the flash shading map")
struct FlatFieldCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let camera = root + "/calibration/synthetic-nikon5100.camera.json"
    static let flash = root + "/calibration/synthetic-phosphor-led-yag.flash.json"
    static let spectra = root + "/fixtures/spectra"
    static let width = 324, height = 216

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cc-flat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func run(_ arguments: [String]) throws {
        let r = try CLI.run(arguments)
        #expect(r.status == 0, "\(arguments.prefix(3)): \(r.stderr)")
    }

    /// Renders a flash-only grey card with `blueLoss` shading into `dir/name` and fits a profile.
    static func flatFieldProfile(blueLoss: Double, in dir: URL, name: String, seed: Int = 3) throws -> (FlashProfile, JSONValue) {
        let folder = dir.appendingPathComponent(name).path
        try run(["synth", "--darkroom", "--flat-field", "--flash-shading", "\(blueLoss)", "--spectra", spectra,
                 "--out", folder, "--width", "\(width)", "--height", "\(height)", "--seed", "\(seed)"])
        let out = dir.appendingPathComponent(name + ".flash.json").path
        try run(["calibrate", "flat-field", folder + "/darkroom.tif", "--dark", folder + "/dark.tif",
                 "--camera", camera, "--flash", flash, "--flash-out", out])
        return (try FlashProfile(path: out), try JSONValue.read(path: folder + "/truth.json"))
    }

    /// Least-squares `a` in (map − 1) = a · w(r) over the nodes, channel by channel, with synth's
    /// blend weight w = min(1, (r / R)²): the edge-over-centre ratio the map implies is 1 + a.
    /// Also returns the standard error of `a` for a node noise σ: σ / √Σw².
    static func edgeRatio(_ s: FlashShading, radiusPx: Double, nodeSigma: Double) -> (ratio: SIMD3<Double>, standardError: Double) {
        var num = SIMD3<Double>(), den = 0.0
        for j in 0..<s.rows {
            for i in 0..<s.columns {
                let x = (Double(i) + 0.5) / Double(s.columns) * Double(width), y = (Double(j) + 0.5) / Double(s.rows) * Double(height)
                let dx = x - Double(width) / 2, dy = y - Double(height) / 2
                let w = min(1, (dx * dx + dy * dy) / (radiusPx * radiusPx))
                num += w * (s.relativeWhite[j * s.columns + i] - 1)
                den += w * w
            }
        }
        return (1 + num / den, nodeSigma / den.squareRoot())
    }

    /// A dark frame at another exposure time and ISO than the card: said, as `calibrate chart` says
    /// it (a probe found flat-field silent, the map byte for byte the same); at the card's exposure,
    /// nothing is said.
    @Test("a dark frame at another exposure than the card is said")
    func darkFrameExposureMismatch() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("card").path
        try Self.run(["synth", "--darkroom", "--flat-field", "--flash-shading", "0.1", "--spectra", Self.spectra,
                      "--out", folder, "--width", "\(Self.width)", "--height", "\(Self.height)", "--seed", "3"])
        func calibrate(_ extra: [String]) throws -> CLI.Outcome {
            try CLI.run(["calibrate", "flat-field", folder + "/darkroom.tif", "--dark", folder + "/dark.tif",
                         "--camera", Self.camera, "--flash", Self.flash, "--flash-out", dir.appendingPathComponent("f.json").path] + extra)
        }
        let matching = try calibrate([])
        #expect(matching.status == 0 && !matching.stderr.contains("the dark frame's exposure time") && !matching.stderr.contains("the dark frame is at ISO"),
                "\(matching.stderr)")
        let other = try calibrate(["--dark-exposure", "1/2,2.8,3200"])
        #expect(other.status == 0 && other.stderr.contains("warning: the dark frame's exposure time 0.5 s is not the capture's")
                && other.stderr.contains("warning: the dark frame is at ISO 3200"), "\(other.stderr)")
    }

    @Test("known answer: the map's edge/centre white matches synth's truth within 4 standard errors of the node noise; coarse grids fit too")
    func knownAnswer() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (profile, truth) = try Self.flatFieldProfile(blueLoss: 0.12, in: dir, name: "shaded")
        let shading = try #require(profile.shading)
        #expect(shading.columns == 16 && shading.rows == 12)
        let effect = try JSONObjectReader(truth, file: "truth.json").object("effects").object("flashColorShading")
        let centre = try effect.numbers("centreWhiteCameraRGB", count: 3), edge = try effect.numbers("edgeWhiteCameraRGB", count: 3)
        let expected = SIMD3(edge[0] / centre[0], edge[1] / centre[1], edge[2] / centre[2])
        let sigma = try #require(profile.metadata["flatField"]?.object?["maxRelativeWhiteStandardError"]?.double)
        let fit = Self.edgeRatio(shading, radiusPx: try effect.number("edgeRadiusPx"), nodeSigma: sigma)
        let tolerance = 4 * fit.standardError
        print(String(format: "flat field: edge/centre white red %.4f (truth %.4f), blue %.4f (truth %.4f); tolerance %.4f (4 x node noise %.4f / sqrt(sum w^2))",
                     fit.ratio.x, expected.x, fit.ratio.z, expected.z, tolerance, sigma))
        #expect(abs(fit.ratio.x - expected.x) <= tolerance)
        #expect(abs(fit.ratio.z - expected.z) <= tolerance)
        #expect(abs(expected.z - 1) > 10 * tolerance, "the shading is large against the tolerance, so the test can fail")
        // The centre is the reference; the fall-off leaves the corners darker.
        let c = shading.value(atRelativeX: 0.5, y: 0.5)
        #expect(abs(c.white.x - 1) < 1e-12 && abs(c.white.z - 1) < 1e-12 && abs(c.level - 1) < 1e-12)
        #expect(shading.value(atRelativeX: 0, y: 0).level < 0.8)

        // A coarse grid (4×3 and 3×3: cells spanning much of the fall-off) fits the same capture;
        // 4×3's corner white agrees with the fine map's mean over that cell (both maps are relative
        // to the frame centre; a 3×3 map's corner cell is larger than the fine map's, so it is not
        // compared). 2×2 is refused: its nodes lie symmetric about the centre, and it reported
        // corners of blue 0.999–1.001 for a flash whose corners are 0.94.
        let shadedFolder = dir.appendingPathComponent("shaded").path
        let refused = try CLI.run(["calibrate", "flat-field", shadedFolder + "/darkroom.tif", "--camera", Self.camera, "--flash", Self.flash,
                                   "--flash-out", dir.appendingPathComponent("2x2.flash.json").path, "--grid", "2x2"])
        #expect(refused.status == 2 && refused.stderr.contains("symmetric about the centre"), "\(refused.stderr)")
        for (grid, columns, rows) in [("4x3", 4, 3), ("3x3", 3, 3)] {
            let out = dir.appendingPathComponent("coarse-\(grid).flash.json").path
            try Self.run(["calibrate", "flat-field", dir.appendingPathComponent("shaded").path + "/darkroom.tif",
                          "--dark", dir.appendingPathComponent("shaded").path + "/dark.tif", "--camera", Self.camera,
                          "--flash", Self.flash, "--flash-out", out, "--grid", grid])
            let coarse = try #require(try FlashProfile(path: out).shading)
            #expect(coarse.columns == columns && coarse.rows == rows)
            // The coarse node is the mean over its cell, so compare it with the fine map's mean there.
            let x = 0.5 / Double(columns), y = 0.5 / Double(rows)
            var fineMean = SIMD3<Double>()
            for k in 0..<16 {
                fineMean += shading.value(atRelativeX: (Double(k % 4) + 0.5) / 4 / Double(columns), y: (Double(k / 4) + 0.5) / 4 / Double(rows)).white / 16
            }
            let corner = coarse.value(atRelativeX: x, y: y).white
            guard columns > 3 else { continue }
            #expect(abs(corner.z - fineMean.z) < 0.02 && abs(corner.x - fineMean.x) < 0.02, "\(grid): corner white \(corner) against the fine map's \(fineMean)")
        }

        // Without shading the same fit finds none (within the same noise).
        let (flat, _) = try Self.flatFieldProfile(blueLoss: 0, in: dir, name: "flat")
        let none = Self.edgeRatio(try #require(flat.shading), radiusPx: try effect.number("edgeRadiusPx"), nodeSigma: sigma)
        #expect(abs(none.ratio.x - 1) <= tolerance && abs(none.ratio.z - 1) <= tolerance)
    }

    /// Chart patches' CIE L*a*b* (D65) from a `fuse --linear-space xyz` output, exposure fitted on the neutrals (SPEC 5).
    static func patchLab(linear path: String, chart: ChartDescription) throws -> [SIMD3<Double>] {
        let image = try TIFFReader.read(path: path).image
        let xyz = try PatchSampling.sample(image, chart: chart, file: path).map(\.median)
        let k = try #require(ValidationScoring.exposureScale(measuredXYZ: xyz, referenceXYZ: chart.patches.map(\.xyzD65), neutral: chart.neutralIndices))
        return xyz.map { ColorScience.lab(fromXYZ: $0 * k, white: ColorScience.whiteD65XYZ) }
    }

    /// The profile with a map fitted to a flat field of 12 % blue loss at the corners, in `dir` (`ff.flash.json`).
    static func shadedProfile(in dir: URL) throws -> String {
        _ = try flatFieldProfile(blueLoss: 0.12, in: dir, name: "ff")
        return dir.appendingPathComponent("ff.flash.json").path
    }

    @Test("a card lit by room light as well (a warm lamp rising across it): --ambient, the card without the flash, gives the dark room's map within its node noise; without it the map was 3 % off (RMS) and passed every check; a twin of another size, or the capture itself, is refused")
    func ambientLitCard() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let size = ["--width", "\(Self.width)", "--height", "\(Self.height)", "--seed", "3"]
        try Self.run(["synth", "--darkroom", "--flat-field", "--flash-shading", "0.12", "--spectra", Self.spectra, "--out", path("dark")] + size)
        try Self.run(["synth", "--flat-field", "--light", "planckian:3000@200", "--no-shadow", "--no-speculars", "--motion", "0,0,0",
                      "--flash-shading", "0.12", "--spectra", Self.spectra, "--out", path("lit")] + size)
        func calibrate(_ capture: String, _ out: String, _ extra: [String] = []) throws -> CLI.Outcome {
            try CLI.run(["calibrate", "flat-field", capture, "--camera", Self.camera, "--flash", Self.flash, "--flash-out", path(out)] + extra)
        }
        #expect(try calibrate(path("dark/darkroom.tif"), "reference.json", ["--dark", path("dark/dark.tif")]).status == 0)
        #expect(try calibrate(path("lit/flash.tif"), "lit.json").status == 0)
        let subtracted = try calibrate(path("lit/flash.tif"), "subtracted.json", ["--ambient", path("lit/ambient.tif")])
        #expect(subtracted.status == 0, "\(subtracted.stderr)")
        func whites(_ name: String) throws -> [SIMD3<Double>] { try #require(try FlashProfile(path: path(name)).shading).relativeWhite }
        let reference = try whites("reference.json")
        func rms(_ name: String) throws -> Double {
            let map = try whites(name)
            let sum = zip(map, reference).reduce(0.0) { s, p in let d = p.0 / p.1 - 1; return s + (d * d).sum() }
            return (sum / Double(3 * map.count)).squareRoot()
        }
        let lit = try rms("lit.json"), corrected = try rms("subtracted.json")
        print(String(format: "flat field under 200 lux of warm light: map RMS off the dark room's %.4f without --ambient, %.4f with it", lit, corrected))
        #expect(corrected < 0.006 && lit > 5 * corrected, "\(lit) / \(corrected)")
        #expect(try JSONValue.read(path: path("subtracted.json")).object?["metadata"]?.object?["flatField"]?.object?["ambient"]?.string == path("lit/ambient.tif"))
        // The capture as its own twin, and a twin of another size.
        let itself = try calibrate(path("lit/flash.tif"), "x.json", ["--ambient", path("lit/flash.tif")])
        #expect(itself.status == 2 && itself.stderr.contains("is the flat-field capture's file as well"), "\(itself.stderr)")
        try Self.run(["synth", "--flat-field", "--light", "planckian:3000@200", "--out", path("small"), "--width", "160", "--height", "120"])
        let small = try calibrate(path("lit/flash.tif"), "y.json", ["--ambient", path("small/ambient.tif")])
        #expect(small.status == 2 && small.stderr.contains("the ambient frame is 160x120x3"), "\(small.stderr)")
        // synth into a folder that cannot be made says so in one line naming it (it printed
        // Foundation's error dictionary): here below a file.
        let blocked = try CLI.run(["synth", "--flat-field", "--light", "planckian:3000@200", "--out", path("small/ambient.tif") + "/x",
                                   "--width", "64", "--height", "48"])
        #expect(blocked.status == 2 && blocked.stderr.split(separator: "\n").count == 1
                && blocked.stderr.contains("cannot write '\(path("small/ambient.tif"))/x': the folder cannot be created: '\(path("small/ambient.tif"))' is a file, not a folder"),
                "\(blocked.stderr)")
    }

    @Test("the map records the card's focal length (EXIF FocalLength); fuse warns of a pair at another focal length (the shading falls elsewhere: a card at 1.5× the pairs' put their corners 4.5 ΔE00 off, confidently); the same focal length, or a pair without the tag, is not warned about")
    func focalLengthRecordedAndCompared() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        try Self.run(["synth", "--darkroom", "--flat-field", "--flash-shading", "0.12", "--spectra", Self.spectra, "--out", path("card"),
                      "--width", "\(Self.width)", "--height", "\(Self.height)", "--seed", "3"])
        /// `source` rewritten to `target` with FocalLength `focal` (nil: none) beside its exposure.
        func retag(_ source: String, _ target: String, focal: Double?) throws {
            let decoded = try TIFFReader.read(path: source)
            var options = TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings)
            options.focalLengthMillimetres = focal
            try TIFFWriter.write(decoded.image, to: target, options: options)
        }
        try retag(path("card/darkroom.tif"), path("card50.tif"), focal: 50)
        let calibrated = try CLI.run(["calibrate", "flat-field", path("card50.tif"), "--dark", path("card/dark.tif"), "--camera", Self.camera,
                                      "--flash", Self.flash, "--flash-out", path("shaded.json")])
        #expect(calibrated.status == 0 && !calibrated.stderr.contains("records no focal length"), "\(calibrated.stderr)")
        #expect(try FlashProfile(path: path("shaded.json")).shading?.captureFocalLengthMillimetres == 50)
        let scene = Self.root + "/fixtures/colorchecker/200lux-4000K-on"
        func fuse(focal: Double?) throws -> CLI.Outcome {
            try retag(scene + "/flash.tif", path("flash.tif"), focal: focal)
            return try CLI.run(["fuse", path("flash.tif"), scene + "/ambient.tif", "--camera", Self.camera, "--flash", path("shaded.json"),
                                "-o", path("o.tif")])
        }
        let wide = try fuse(focal: 35)
        #expect(wide.status == 0 && wide.stderr.contains("was taken at a focal length of 35 mm") && wide.stderr.contains("shading map at 50 mm"),
                "\(wide.stderr)")
        for focal in [50.0, 51, nil] {
            let r = try fuse(focal: focal)
            #expect(r.status == 0 && !r.stderr.contains("focal length of"), "\(String(describing: focal)): \(r.stderr)")
        }
        // A card without the tag: said, and nothing recorded.
        let untagged = try CLI.run(["calibrate", "flat-field", path("card/darkroom.tif"), "--dark", path("card/dark.tif"), "--camera", Self.camera,
                                    "--flash", Self.flash, "--flash-out", path("untagged.json")])
        #expect(untagged.status == 0 && untagged.stderr.contains("records no focal length"), "\(untagged.stderr)")
        #expect(try FlashProfile(path: path("untagged.json")).shading?.captureFocalLengthMillimetres == nil)
    }

    @Test("flat-field with a flash profile of another camera warns as fuse does; an 8-bit capture, refused as too dark, is said to hold samples the profile's levels do not fit (it blamed the exposure)")
    func profileAndUnitsWarnings() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("card").path
        try Self.run(["synth", "--darkroom", "--flat-field", "--spectra", Self.spectra, "--out", folder,
                      "--width", "\(Self.width)", "--height", "\(Self.height)"])
        var other = try JSONValue.read(path: Self.flash).object!
        other["camera"] = .string("another camera")
        let otherPath = dir.appendingPathComponent("other.flash.json").path
        try JSONValue.object(other).encodedData(file: "test").write(to: URL(fileURLWithPath: otherPath))
        let r = try CLI.run(["calibrate", "flat-field", folder + "/darkroom.tif", "--dark", folder + "/dark.tif", "--camera", Self.camera,
                             "--flash", otherPath, "--flash-out", dir.appendingPathComponent("out.flash.json").path])
        #expect(r.status == 0 && r.stderr.contains("was calibrated for camera 'another camera'"), "\(r.stderr)")
        let decoded = try TIFFReader.read(path: folder + "/darkroom.tif")
        var eightBit = decoded.image
        for i in eightBit.samples.indices { eightBit.samples[i] = (eightBit.samples[i] / 257).rounded() }
        let eightBitPath = dir.appendingPathComponent("card8.tif").path
        try TIFFWriter.write(eightBit, to: eightBitPath, options: TIFFWriteOptions(sampleType: .uint8, exposure: decoded.exposure.settings))
        let refused = try CLI.run(["calibrate", "flat-field", eightBitPath, "--camera", Self.camera, "--flash", Self.flash,
                                   "--flash-out", dir.appendingPathComponent("out8.flash.json").path])
        #expect(refused.status == 2 && refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("error: \(eightBitPath): ")
                && refused.stderr.contains("white level") && refused.stderr.contains("8-bit"), "\(refused.stderr)")
    }

    @Test("calibrate chart under a shaded flash measures the white at the neutral patches and says where (whiteReference); flat-field makes the map relative to the white there, so the profile's white times the map at the centre is the flash's true centre white (relative to the centre, the map corrected the chart's white twice: blue 1.9 % low)")
    func chartWhiteReference() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        // The chart under the shaded flash, and under the same flash unshaded (whose white is the
        // shaded flash's at the centre, with the chart's own estimate error).
        for (name, extra) in [("chart", ["--flash-shading", "0.12"]), ("plain", [])] {
            try Self.run(["synth", "--darkroom", "--spectra", Self.spectra, "--out", path(name),
                          "--width", "\(Self.width)", "--height", "\(Self.height)"] + extra)
            try Self.run(["calibrate", "chart", path(name + "/darkroom.tif"), "--chart", path(name + "/truth.json"), "--dark", path(name + "/dark.tif"),
                          "--black-level", "1024", "--white-level", "60000", "--camera-out", path(name + ".camera.json"),
                          "--flash-out", path(name + ".flash.json")])
        }
        let chartProfile = try FlashProfile(path: path("chart.flash.json"))
        let reference = try #require(chartProfile.whiteReference)
        #expect(reference.captureSize == SIMD2(Self.width, Self.height) && reference.relativePositions.count >= 2)
        #expect(reference.relativePositions.allSatisfy { $0.y > 0.5 }, "a ColorChecker's neutral row is its bottom one: \(reference.relativePositions)")
        try Self.run(["synth", "--darkroom", "--flat-field", "--flash-shading", "0.12", "--spectra", Self.spectra, "--out", path("card"),
                      "--width", "\(Self.width)", "--height", "\(Self.height)"])
        try Self.run(["calibrate", "flat-field", path("card/darkroom.tif"), "--dark", path("card/dark.tif"), "--camera", path("chart.camera.json"),
                      "--flash", path("chart.flash.json"), "--flash-out", path("mapped.flash.json")])
        let mapped = try FlashProfile(path: path("mapped.flash.json"))
        let map = try #require(mapped.shading)
        #expect(mapped.whiteReference == reference)
        // The map's median white is 1 where the white was measured...
        let whites = reference.relativePositions.map { map.value(atRelativeX: $0.x, y: $0.y).white }
        for c in [0, 2] {
            let v = whites.map { $0[c] }.sorted(), k = v.count / 2
            let median = v.count % 2 == 1 ? v[k] : 0.5 * (v[k - 1] + v[k])
            #expect(abs(median - 1) < 1e-9, "channel \(c): \(v)")
        }
        // ...and the white it gives at the centre is the unshaded chart's, within 0.5 % (the map's
        // node noise is 0.25 %); the shaded chart's white alone is 1.2 % off in blue.
        let plain = try FlashProfile(path: path("plain.flash.json")).whiteCameraRGB
        let corrected = mapped.whiteCameraRGB * map.value(atRelativeX: 0.5, y: 0.5).white / plain
        let uncorrected = mapped.whiteCameraRGB / plain
        print(String(format: "shaded chart's white at the centre / unshaded chart's: with the map relative to the neutral patches red %.4f blue %.4f; the white alone red %.4f blue %.4f",
                     corrected.x, corrected.z, uncorrected.x, uncorrected.z))
        #expect(abs(corrected.x - 1) < 0.005 && abs(corrected.z - 1) < 0.005, "\(corrected)")
        #expect(abs(uncorrected.z - 1) > 0.01, "the shading moves the chart's white by more than the tolerance, so the test can fail: \(uncorrected)")
        // A flat field of another aspect than the chart capture is refused, naming the profile.
        try Self.run(["synth", "--darkroom", "--flat-field", "--spectra", Self.spectra, "--out", path("portrait"),
                      "--width", "\(Self.height)", "--height", "\(Self.width)"])
        let r = try CLI.run(["calibrate", "flat-field", path("portrait/darkroom.tif"), "--camera", path("chart.camera.json"),
                             "--flash", path("chart.flash.json"), "--flash-out", path("portrait.flash.json")])
        #expect(r.status == 2 && r.stderr.contains("error: \(path("chart.flash.json")): its white was measured on a"), "\(r.stderr)")
    }

    @Test("the map records its capture's size; frames of another aspect (rotated) are refused, not corrected with the flash's axis elsewhere")
    func mapAspect() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = try Self.shadedProfile(in: dir)
        let shading = try #require(try FlashProfile(path: profile).shading)
        #expect(shading.captureSize == SIMD2(Self.width, Self.height))
        let rotated = dir.appendingPathComponent("rotated").path
        try Self.run(["synth", "--preset", "200lux-4000K-on", "--no-noise", "--spectra", Self.spectra, "--out", rotated,
                      "--width", "\(Self.height)", "--height", "\(Self.width)"])
        let r = try CLI.run(["fuse", rotated + "/flash.tif", rotated + "/ambient.tif", "--camera", Self.camera, "--flash", profile,
                             "-o", dir.appendingPathComponent("o.tif").path])
        #expect(r.status == 2 && r.stderr.contains("another aspect") && r.stderr.contains("\(Self.height)x\(Self.width)"), "\(r.stderr)")
        // One line, naming the flash profile (SPEC 3) and the frame.
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("error: \(profile): ") && r.stderr.contains(rotated + "/flash.tif"),
                "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o.tif").path))
        // A map without the size (written before it was recorded) is applied as before.
        var legacy = shading
        legacy.captureSize = nil
        #expect(legacy.fits(width: Self.height, height: Self.width) && !shading.fits(width: Self.height, height: Self.width)
                && shading.fits(width: 2 * Self.width, height: 2 * Self.height))
    }

    @Test("fuse with the map: the shading's colour error on the edge patches drops; the report says the map was applied")
    func fuseWithMap() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shadedProfile = try Self.shadedProfile(in: dir)
        // The same scene and noise-free render, with and without flash colour shading (no other fault).
        for (name, extra) in [("plain", [String]()), ("shaded", ["--flash-shading", "0.12"])] {
            try Self.run(["synth", "--preset", "200lux-4000K-on", "--no-noise", "--spectra", Self.spectra,
                          "--out", dir.appendingPathComponent(name).path, "--width", "\(Self.width)", "--height", "\(Self.height)"] + extra)
        }
        func fuse(_ scene: String, profile: String, tag: String, extra: [String] = []) throws -> String {
            let f = dir.appendingPathComponent(scene).path
            let linear = dir.appendingPathComponent("\(tag).tif").path
            try Self.run(["fuse", f + "/flash.tif", f + "/ambient.tif", "--camera", Self.camera, "--flash", profile,
                          "-o", dir.appendingPathComponent("\(tag)-out.tif").path, "--linear", linear, "--linear-space", "xyz",
                          "--report", dir.appendingPathComponent("\(tag).json").path] + extra)
            return linear
        }
        // A profile with the map is not said to lack one (the one without it is: FuseCLITests).
        let plainScene = dir.appendingPathComponent("plain").path
        let noted = try CLI.run(["fuse", plainScene + "/flash.tif", plainScene + "/ambient.tif", "--camera", Self.camera,
                                 "--flash", shadedProfile, "-o", dir.appendingPathComponent("noted.tif").path])
        #expect(noted.status == 0 && !noted.stderr.contains("no shading map"), "\(noted.stderr)")
        let truthPath = dir.appendingPathComponent("shaded/truth.json").path
        let chart = try ChartDescription(path: truthPath)
        let truth = try JSONObjectReader(try JSONValue.read(path: truthPath), file: truthPath)
        let radius = try truth.object("effects").object("flashColorShading").number("edgeRadiusPx")
        let plain = try Self.patchLab(linear: try fuse("plain", profile: Self.flash, tag: "plain"), chart: chart)
        let without = try Self.patchLab(linear: try fuse("shaded", profile: Self.flash, tag: "without"), chart: chart)
        let with = try Self.patchLab(linear: try fuse("shaded", profile: shadedProfile, tag: "with"), chart: chart)
        // Edge patches: blend weight of the edge SPD over 0.25.
        let edge = chart.patches.indices.filter { i in
            let p = chart.patches[i].center, dx = p.x - Double(Self.width) / 2, dy = p.y - Double(Self.height) / 2
            return (dx * dx + dy * dy) / (radius * radius) > 0.25
        }
        #expect(edge.count >= 6)
        func mean(_ a: [SIMD3<Double>], against b: [SIMD3<Double>]) -> Double {
            edge.map { ColorScience.ciede2000(a[$0], b[$0]) }.reduce(0, +) / Double(edge.count)
        }
        let reference = chart.patches.map(\.labD65)
        let shadingBefore = mean(without, against: plain), shadingAfter = mean(with, against: plain)
        print(String(format: "edge patches (%d): ΔE00 to the unshaded render %.3f without the map, %.3f with; to the reference %.3f unshaded, %.3f without, %.3f with",
                     edge.count, shadingBefore, shadingAfter, mean(plain, against: reference), mean(without, against: reference), mean(with, against: reference)))
        #expect(shadingBefore > 0.5, "the shading must be visible for the test to mean something")
        for i in edge {
            print(String(format: "  %@: ΔE00 to the unshaded render %.2f without the map, %.2f with", chart.patches[i].name,
                         ColorScience.ciede2000(without[i], plain[i]), ColorScience.ciede2000(with[i], plain[i])))
        }
        // A per-channel gain in camera RGB undoes the change of the flash's SPD exactly for neutral
        // surfaces only; a chromatic patch keeps the part no diagonal correction can express
        // (metameric), so the bar on all edge patches is "at least halved", and on the neutrals tight.
        #expect(shadingAfter < 0.5 * shadingBefore)
        // Neutral edge patches: the map makes them neutral again, as in the unshaded render.
        for i in edge where chart.neutralIndices.contains(i) {
            #expect(ColorScience.ciede2000(with[i], plain[i]) < 0.3, "\(chart.patches[i].name)")
        }
        let withReport = try JSONValue.read(path: dir.appendingPathComponent("with.json").path)
        let withoutReport = try JSONValue.read(path: dir.appendingPathComponent("without.json").path)
        #expect(withReport.object?["rendering"]?.object?["flashShading"]?.string == "colour")
        #expect(withoutReport.object?["rendering"]?.object?["flashShading"]?.string == "none")
        // Flattening the fall-off too: the corners' lightness rises, the report says so.
        _ = try fuse("shaded", profile: shadedProfile, tag: "flat", extra: ["--flatten-flash-falloff", "--output-scale", "1"])
        _ = try fuse("shaded", profile: shadedProfile, tag: "kept", extra: ["--output-scale", "1"])
        let flatReport = try JSONValue.read(path: dir.appendingPathComponent("flat.json").path)
        #expect(flatReport.object?["rendering"]?.object?["flashShading"]?.string == "colourAndLevel")
        let flat = try TIFFReader.read(path: dir.appendingPathComponent("flat.tif").path).image
        let kept = try TIFFReader.read(path: dir.appendingPathComponent("kept.tif").path).image
        #expect(flat[2, 2, 1] > 1.5 * kept[2, 2, 1] && abs(flat[Self.width / 2, Self.height / 2, 1] / kept[Self.width / 2, Self.height / 2, 1] - 1) < 0.02)
    }

    func expectBadInput(_ arguments: [String], mentions: [String]) throws {
        let r = try CLI.run(arguments)
        #expect(r.status == 2, "status \(r.status): \(r.stderr)")
        // One line in all: the error, with no note or progress line before it.
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.allSatisfy { $0.contains("error:") }, "stderr: \(r.stderr)")
        for m in mentions { #expect(r.stderr.contains(m), "stderr lacks \(m): \(r.stderr)") }
    }

    @Test("bad inputs exit 2 with one line: a chart, a dark frame, a clipped card, --flash-out over an input, a bad grid, a malformed map")
    func badInputs() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.json").path
        func args(_ capture: String, _ extra: [String] = []) -> [String] {
            ["calibrate", "flat-field", capture, "--camera", Self.camera, "--flash", Self.flash, "--flash-out", out] + extra
        }
        let chart = Self.root + "/fixtures/colorchecker/darkroom/darkroom.tif"
        try expectBadInput(args(chart), mentions: ["darkroom.tif", "uniform grey card"])
        try expectBadInput(args(Self.root + "/fixtures/colorchecker/darkroom/dark.tif"), mentions: ["dark.tif", "too dark"])
        let decoded = try TIFFReader.read(path: chart)
        var white = decoded.image
        for i in white.samples.indices { white.samples[i] = 65535 }
        let clipped = dir.appendingPathComponent("clipped.tif").path
        try TIFFWriter.write(white, to: clipped, options: TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings))
        try expectBadInput(args(clipped), mentions: ["clipped.tif", "clipped"])
        try expectBadInput(["calibrate", "flat-field", chart, "--camera", Self.camera, "--flash", Self.flash, "--flash-out", Self.flash],
                           mentions: ["is an input"])
        try expectBadInput(args(chart, ["--grid", "1x12"]), mentions: ["--grid"])
        // A colour step on the card (two cards, a coloured object): red ×1.15, or blue ×0.92, over
        // the right third of the committed flat field. The level alone is smooth enough to pass.
        let flat = Self.root + "/fixtures/real-hard/flat-field/darkroom.tif"
        let card = try TIFFReader.read(path: flat)
        for (channel, factor) in [(0, 1.15), (2, 0.92)] {
            var stepped = card.image
            let w = stepped.width, n = stepped.pixelCount
            for i in 0..<n where i % w >= 2 * w / 3 {
                let k = channel * n + i
                stepped.samples[k] = 1024 + (stepped.samples[k] - 1024) * Float(factor)
            }
            let path = dir.appendingPathComponent("step\(channel).tif").path
            try TIFFWriter.write(stepped, to: path, options: TIFFWriteOptions(sampleType: .uint16, exposure: card.exposure.settings))
            try expectBadInput(args(path, ["--dark", Self.root + "/fixtures/real-hard/flat-field/dark.tif"]),
                               mentions: ["step\(channel).tif", "colour is not a smooth change", channel == 0 ? "red" : "blue"])
        }
        // A fine grid of small cells (64 × 48 on the 324 × 216 card: 5 × 4.5 pixels each, their colour
        // known to about 1 %) is not refused as "not a smooth change" for its noise, as it was; the
        // default grid still finds the steps above.
        let fine = try CLI.run(["calibrate", "flat-field", flat, "--camera", Self.camera, "--flash", Self.flash,
                                "--flash-out", dir.appendingPathComponent("fine.flash.json").path,
                                "--dark", Self.root + "/fixtures/real-hard/flat-field/dark.tif", "--grid", "64x48"])
        #expect(fine.status == 0, "\(fine.stderr)")
        // A dark frame of another size is a one-line error, not a crash.
        let smallDark = dir.appendingPathComponent("small-dark.tif").path
        try TIFFWriter.write(PlanarImage(width: 64, height: 48, channelCount: 3, repeating: 1024), to: smallDark,
                             options: TIFFWriteOptions(sampleType: .uint16, exposure: decoded.exposure.settings))
        try expectBadInput(args(chart, ["--dark", smallDark]), mentions: ["small-dark.tif"])
        #expect(!FileManager.default.fileExists(atPath: out))
        // A profile whose map is malformed: fuse refuses it naming the file and the key.
        var profile = try JSONValue.read(path: Self.flash).object!
        profile["shading"] = .object(["columns": .number(2), "rows": .number(2),
                                      "relativeWhiteCameraRGB": .array(Array(repeating: .array([.number(1), .number(1), .number(1)]), count: 4)),
                                      "relativeLevel": .array([.number(1), .number(1), .number(-1), .number(1)])])
        let bad = dir.appendingPathComponent("bad.flash.json").path
        try JSONValue.object(profile).encodedData(file: "test").write(to: URL(fileURLWithPath: bad))
        let scene = Self.root + "/fixtures/colorchecker/200lux-4000K-on"
        try expectBadInput(["fuse", scene + "/flash.tif", scene + "/ambient.tif", "--camera", Self.camera, "--flash", bad,
                            "-o", dir.appendingPathComponent("o.tif").path], mentions: ["bad.flash.json", "shading.relativeLevel"])
    }
}
