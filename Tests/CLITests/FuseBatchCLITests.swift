import ConstantColor
import ConstantColorIO
import Foundation
import Testing

@Suite("constant-color fuse-batch")
struct FuseBatchCLITests {
    /// `fuse-batch` arguments on `pair`'s profiles, with `list` and the output folder `out`.
    static func arguments(_ pair: PairFolder, list: String, out: String, _ extra: [String] = []) -> [String] {
        ["fuse-batch", list, "--out-dir", out, "--camera", pair.file("camera.json"), "--flash", pair.file("flash.json")] + extra
    }

    /// A second pair in `pair`'s folder: the same scene, its ambient frame at twice the exposure time
    /// (a pair that differs from the first in every output).
    static func addSecondPair(_ pair: PairFolder) throws {
        var longer = PairFolder.ambientExposure
        longer.exposureTimeSeconds *= 2
        var ambient = PairFolder.frame(flash: false)
        for i in ambient.samples.indices { ambient.samples[i] = min(65535, 256 + 2 * (ambient.samples[i] - 256)) }
        try TIFFWriter.write(PairFolder.frame(flash: true), to: pair.file("flash2.tif"),
                             options: TIFFWriteOptions(sampleType: .uint16, exposure: PairFolder.flashExposure))
        try TIFFWriter.write(ambient, to: pair.file("ambient2.tif"), options: TIFFWriteOptions(sampleType: .uint16, exposure: longer))
    }

    /// The report without what differs from run to run (timings) or names the files (inputs).
    static func comparableReport(_ path: String) throws -> [String: JSONValue] {
        var report = try JSONValue.read(path: path).object ?? [:]
        report["timingsSeconds"] = nil
        report["inputs"] = nil
        return report
    }

    @Test("two pairs in one process give, byte for byte, the outputs fuse gives each (names from the list or the flash file; paths relative to the list's folder; CR LF, comments and spaces around fields read as meant)")
    func sameAsFuse() throws {
        let pair = try PairFolder()
        defer { pair.remove() }
        try Self.addSecondPair(pair)
        let out = pair.file("batch")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        // Written as an editor on Windows might: CR LF line ends, an indented comment, spaces around fields.
        try "# pairs\r\nflash.tif\tambient.tif \r\n\r\n  # the second\r\n\(pair.file("flash2.tif"))\t ambient2.tif\tsecond\r\n"
            .write(toFile: pair.file("pairs.tsv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(Self.arguments(pair, list: pair.file("pairs.tsv"), out: out,
                                           ["--confidence", "--measurement-confidence", "--report", "--fallback", "--linear"]))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("[1/2 flash]") && r.stderr.contains("[2/2 second]") && r.stderr.contains("fused 2 pairs"), "\(r.stderr)")
        let suffixes = [("", "-o"), (".confidence", "--confidence"), (".measurement-confidence", "--measurement-confidence"),
                        (".fallback", "--fallback"), (".linear", "--linear")]
        for (name, flash, ambient) in [("flash", "flash.tif", "ambient.tif"), ("second", "flash2.tif", "ambient2.tif")] {
            var arguments = ["fuse", pair.file(flash), pair.file(ambient), "--camera", pair.file("camera.json"),
                             "--flash", pair.file("flash.json"), "--report", pair.file("\(name).single.json")]
            for (suffix, option) in suffixes { arguments += [option, pair.file("\(name)\(suffix).single.tif")] }
            let single = try CLI.run(arguments)
            #expect(single.status == 0, "\(single.stderr)")
            for (suffix, _) in suffixes {
                let batch = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(name)\(suffix).tif"))
                #expect(batch == (try Data(contentsOf: URL(fileURLWithPath: pair.file("\(name)\(suffix).single.tif")))), "\(name)\(suffix)")
            }
            #expect(try Self.comparableReport("\(out)/\(name).report.json") == (try Self.comparableReport(pair.file("\(name).single.json"))))
            // The report names the pair's own files, the frames resolved against the list's folder.
            let inputs = try JSONValue.read(path: "\(out)/\(name).report.json").object?["inputs"]?.object ?? [:]
            #expect(inputs["flash"]?.string == pair.file(flash) && inputs["ambient"]?.string == pair.file(ambient), "\(inputs)")
            #expect(inputs["output"]?.string == "\(out)/\(name).tif" && inputs["linear"]?.string == "\(out)/\(name).linear.tif", "\(inputs)")
        }
        // The two pairs differ (the second's ambient light is exposed twice as long), so no output was written over by the other's.
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out)/flash.confidence.tif"))
                != (try Data(contentsOf: URL(fileURLWithPath: "\(out)/second.confidence.tif"))))
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(written.count == 12 && !written.contains { $0.contains(".tmp") }, "\(written)")
        // Profiles given relative to the working folder are reported absolute too, as the frames are
        // (they were given as typed, beside absolute frames).
        let relative = try CLI.run(["fuse-batch", "pairs.tsv", "--out-dir", "batch", "--camera", "camera.json", "--flash", "./flash.json", "--report"],
                                   in: pair.path)
        #expect(relative.status == 0, "\(relative.stderr)")
        let inputs = try JSONValue.read(path: "\(out)/flash.report.json").object?["inputs"]?.object ?? [:]
        #expect(inputs["camera"]?.string == pair.file("camera.json") && inputs["flashProfile"]?.string == pair.file("flash.json")
                && inputs["flash"]?.string == pair.file("flash.tif"), "\(inputs)")
    }

    @Test("a pair that fails (a truncated frame) is said in one line and the others are fused; exit 2 naming it")
    func onePairFails() throws {
        let pair = try PairFolder()
        defer { pair.remove() }
        try Self.addSecondPair(pair)
        let data = try Data(contentsOf: URL(fileURLWithPath: pair.file("flash2.tif")))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: pair.file("flash2.tif")))
        let out = pair.file("batch")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try "flash2.tif\tambient2.tif\tbroken\nflash.tif\tambient.tif\tgood\n".write(toFile: pair.file("pairs.tsv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(Self.arguments(pair, list: pair.file("pairs.tsv"), out: out, ["--report"]))
        #expect(r.status == 2, "\(r.stderr)")
        let errors = r.stderr.split(separator: "\n").filter { $0.contains("error:") }
        #expect(errors.count == 2, "\(r.stderr)")  // the pair's own line, then the summary
        #expect(errors.first?.contains("[1/2 broken] error:") == true && errors.first?.contains("flash2.tif") == true, "\(r.stderr)")
        #expect(errors.last?.contains("1 of 2 pairs failed (broken)") == true, "\(r.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(written == ["good.report.json", "good.tif"], "\(written)")
    }

    @Test("bad lists and destinations are refused before any pair is fused: exit 2, one line naming the list's line or the file, nothing written")
    func badInputs() throws {
        let pair = try PairFolder()
        defer { pair.remove() }
        let out = pair.file("batch")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        func expectRefused(_ list: String, _ extra: [String] = [], outDir: String? = nil, listPath: String? = nil,
                           mentions: [String], without absent: [String] = []) throws {
            let listFile = listPath ?? pair.file("pairs.tsv")
            try list.write(toFile: listFile, atomically: true, encoding: .utf8)
            let folders = ([out, pair.path] + (outDir.map { [$0] } ?? [])).filter { folder in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue
            }
            let before = try folders.map { try FileManager.default.contentsOfDirectory(atPath: $0).sorted() }
            let r = try CLI.run(Self.arguments(pair, list: listFile, out: outDir ?? out, extra))
            #expect(r.status == 2, "\(list): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n").filter { $0.contains("error:") }
            #expect(lines.count == 1, "\(list): \(r.stderr)")
            for m in mentions { #expect(r.stderr.contains(m), "\(list): stderr lacks \(m): \(r.stderr)") }
            for m in absent { #expect(!r.stderr.contains(m), "\(list): stderr has \(m): \(r.stderr)") }
            // Nothing written (or removed) anywhere, and no pair was begun.
            let after = try folders.map { try FileManager.default.contentsOfDirectory(atPath: $0).sorted() }
            #expect(after == before, "\(list): \(after) after \(before)")
            #expect(!r.stderr.contains("decoded"), "\(list): \(r.stderr)")
        }
        // Fields separated by spaces, not a tab; an empty field; four fields.
        try expectRefused("flash.tif ambient.tif\n", mentions: ["pairs.tsv", "line 1", "1 tab-separated field"])
        try expectRefused("# header\nflash.tif\t\n", mentions: ["line 2", "field 2 (AMBIENT) is empty"])
        try expectRefused("flash.tif\tambient.tif\ta\t1/125,2.8,100\t1/30,2.8,200\tb\n", mentions: ["line 1", "6 tab-separated field"])
        // An exposure that does not parse (a missing ISO).
        try expectRefused("flash.tif\tambient.tif\ta\t1/125,2.8\n", mentions: ["line 1", "field 4 (the flash frame's exposure"])
        // Two pairs with one name, and a name that is a path.
        try expectRefused("flash.tif\tambient.tif\nflash.tif\tambient.tif\n", mentions: ["line 2", "'flash'", "line 1"])
        try expectRefused("flash.tif\tambient.tif\t../x\n", mentions: ["not a plain file name"])
        try expectRefused("flash.tif\tambient.tif\tred\u{1B}[31m\n", mentions: ["not a plain file name", "red?[31m"])
        // Names that differ in letter case only: one file on a case-insensitive file system.
        try expectRefused("flash.tif\tambient.tif\tPair\nflash.tif\tambient.tif\tpair\n", mentions: ["line 2", "'pair'", "letter case"])
        // A name whose outputs are another pair's (with --confidence).
        try expectRefused("flash.tif\tambient.tif\ta\nflash.tif\tambient.tif\ta.confidence\n", ["--confidence"],
                          mentions: ["a.confidence.tif", "'a'", "'a.confidence'"])
        // One file as both frames of a later pair.
        try expectRefused("flash.tif\tambient.tif\nflash.tif\tflash.tif\tsame\n", mentions: ["line 2", "is the flash frame's file as well"])
        // The same name twice is said as such, not as a difference of letter case.
        try expectRefused("flash.tif\tambient.tif\tp\nflash.tif\tambient.tif\tp\n", mentions: ["line 2", "'p' is taken by line 1"],
                          without: ["letter case"])
        // No pair; a missing frame (before the first pair is fused, even when it is a later pair's).
        try expectRefused("# nothing\n\n", mentions: ["lists no pair"])
        try expectRefused("flash.tif\tambient.tif\nflash.tif\tmissing.tif\tother\n", mentions: ["line 2", "missing.tif"])
        // An output that is an input of the batch (the output folder holds a frame of a pair named as it).
        try expectRefused("flash.tif\tambient.tif\tambient\n", outDir: pair.path, mentions: ["ambient.tif", "is an input"])
        // The list itself as an output (a list kept in the output folder, named as a pair's report).
        try expectRefused("\(pair.file("flash.tif"))\t\(pair.file("ambient.tif"))\tpairs\n", ["--report"],
                          listPath: "\(out)/pairs.report.json", mentions: ["pairs.report.json", "is an input"])
        try FileManager.default.removeItem(atPath: "\(out)/pairs.report.json")
        // An output folder that does not exist, or is a file; a list that is a folder.
        try expectRefused("flash.tif\tambient.tif\n", outDir: pair.file("nowhere"), mentions: ["nowhere", "--out-dir"])
        #expect(!FileManager.default.fileExists(atPath: pair.file("nowhere")))
        try expectRefused("flash.tif\tambient.tif\n", outDir: pair.file("camera.json"), mentions: ["camera.json", "--out-dir"])
        let folderAsList = try CLI.run(Self.arguments(pair, list: out, out: out))
        #expect(folderAsList.status == 2 && folderAsList.stderr.contains("is a folder, not a list of pairs"), "\(folderAsList.stderr)")
        // fuse's options are checked as in fuse.
        try expectRefused("flash.tif\tambient.tif\n", ["--threshold", "2"], mentions: ["--threshold must be in [0, 1]"])
    }

    @Test("frames without exposure tags: the list's fourth and fifth fields give the exposures, and the pair fuses to fuse's bytes with --flash-exposure / --ambient-exposure; without them that pair fails, the message pointing to the fields")
    func exposuresFromTheList() throws {
        let pair = try PairFolder()
        defer { pair.remove() }
        try TIFFWriter.write(PairFolder.frame(flash: true), to: pair.file("bare-flash.tif"), options: TIFFWriteOptions(sampleType: .uint16))
        try TIFFWriter.write(PairFolder.frame(flash: false), to: pair.file("bare-ambient.tif"), options: TIFFWriteOptions(sampleType: .uint16))
        let out = pair.file("batch")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        // PairFolder's exposures as the reader takes them from its files' EXIF (rationals handed over
        // as 32-bit floats, read as the shortest decimal of that float: 1/125 s is 0.008), so that the
        // tagged pair is the same measurement.
        func asStored(_ e: ExposureSettings) -> String {
            [e.exposureTimeSeconds, e.fNumber, e.isoSpeed].map { "\(Double(String(Float($0)))!)" }.joined(separator: ",")
        }
        let flashExposure = asStored(PairFolder.flashExposure), ambientExposure = asStored(PairFolder.ambientExposure)
        try "bare-flash.tif\tbare-ambient.tif\tgiven\t\(flashExposure)\t\(ambientExposure)\nbare-flash.tif\tbare-ambient.tif\tmissing\n"
            .write(toFile: pair.file("pairs.tsv"), atomically: true, encoding: .utf8)
        let r = try CLI.run(Self.arguments(pair, list: pair.file("pairs.tsv"), out: out))
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("[2/2 missing] error:") && r.stderr.contains("field 4 of line 2"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["given.tif"])
        let single = try CLI.run(["fuse", pair.file("bare-flash.tif"), pair.file("bare-ambient.tif"), "--camera", pair.file("camera.json"),
                                  "--flash", pair.file("flash.json"), "-o", pair.file("single.tif"),
                                  "--flash-exposure", flashExposure, "--ambient-exposure", ambientExposure])
        #expect(single.status == 0, "\(single.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(out)/given.tif")) == (try Data(contentsOf: URL(fileURLWithPath: pair.file("single.tif")))))
        // The same frames with their tags: the same image, so the fields went to the right frames.
        let tagged = try CLI.run(pair.fuseArguments())
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let taggedImage = try Data(contentsOf: URL(fileURLWithPath: pair.file("out.tif")))
        #expect(taggedImage == (try Data(contentsOf: URL(fileURLWithPath: "\(out)/given.tif"))))
    }
}
