import ConstantColor
import ConstantColorCalibration
import ConstantColorIO
import Foundation
import Testing

/// `validate` with label maps: a patch whose square the flash label map gives to another material is
/// left out of the condition's figures and listed in the text, JSON and HTML reports.
@Suite struct OccludedPatchCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("a patch labelled as the moving object is left out: the other patches' ΔE00 are unchanged and their mean is the condition's")
    func occludedPatchIsListedAndLeftOut() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cc-occl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Self.root + "/fixtures/real-hard/200lux-4000K-on-all-effects"
        let plain = dir.appendingPathComponent("plain/c").path, covered = dir.appendingPathComponent("covered/c").path
        for d in [plain, covered] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            for f in ["flash.tif", "ambient.tif", "truth.json", "labels.tif", "ambient-labels.tif"] {
                try FileManager.default.copyItem(atPath: source + "/" + f, toPath: d + "/" + f)
            }
        }
        // In the covered copy, the flash label map gives the whole square of 'blue' to the object (26).
        let truth = try JSONValue.read(path: covered + "/truth.json")
        let chart = try ChartDescription(json: truth, file: "truth.json")
        let blue = try #require(chart.patches.firstIndex { $0.name == "blue" })
        var labels = try TIFFReader.read(path: covered + "/labels.tif").image
        let square = PatchSquare(center: chart.patches[blue].center, halfSize: chart.patches[blue].halfSize)
        for y in square.rows { for x in square.columns { labels[x, y, 0] = 26 } }
        try TIFFWriter.write(labels, to: covered + "/labels.tif", options: TIFFWriteOptions(sampleType: .uint8))

        func run(_ set: String) throws -> (stdout: String, json: [String: JSONValue]) {
            let json = dir.appendingPathComponent("\(set).json").path, html = dir.appendingPathComponent("\(set).html").path
            let r = try CLI.run(["validate", dir.appendingPathComponent(set).path,
                                 "--camera", Self.root + "/calibration/synthetic-nikon5100.camera.json",
                                 "--flash", Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json",
                                 "--json", json, "--html", html, "--max-accuracy", "100"])  // (one condition: no repeatability or variance reduction to check)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try String(contentsOfFile: html, encoding: .utf8).contains("Occluded patch samples") == (set == "covered"))
            return (r.stdout, try #require(JSONValue.read(path: json).object))
        }
        let p = try run("plain"), c = try run("covered")
        #expect(!p.stdout.contains("left out"))
        #expect(c.stdout.contains("left out 1 patch sample(s) covered by another material in the fused output (c: 'blue')"), "\(c.stdout)")
        let occ = try #require(c.json["set"]?.object?["occludedPatchSamples"]?.object)
        #expect(occ["outputCount"]?.double == 1 && occ["output"]?.array?.first?.object?["patch"]?.string == "blue")

        func patches(_ j: [String: JSONValue]) -> [[String: JSONValue]] {
            (j["conditions"]?.array?.first?.object?["patches"]?.array ?? []).compactMap(\.object)
        }
        let pp = patches(p.json), cp = patches(c.json)
        #expect(pp.count == 24 && cp.count == 24)
        #expect(cp[blue]["occluded"] == .bool(true) && pp[blue]["occluded"] == .bool(false))
        let others = pp.indices.filter { $0 != blue }
        for i in others { #expect(cp[i]["deltaE2000"] == pp[i]["deltaE2000"]) }     // 'blue' is not neutral: same exposure fit
        let mean = others.compactMap { pp[$0]["deltaE2000"]?.double }.reduce(0, +) / Double(others.count)
        let reported = try #require(c.json["conditions"]?.array?.first?.object?["accuracyMeanDeltaE2000"]?.double)
        #expect(abs(reported - mean) < 1e-12)
    }
}
