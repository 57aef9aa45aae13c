import ArgumentParser
import ConstantColor
import ConstantColorIO
import Foundation

/// `constant-color fuse-batch`: `fuse` on every pair of a list, in one process. The profiles are
/// read once, and each pair's large buffers reuse the pages the previous pair freed
/// (`reuseFreedMemoryForLargeBuffers`) instead of being faulted in and zeroed again: that is most
/// of what a separate process per pair costs beyond the work itself (issue 6).
struct FuseBatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuse-batch",
        abstract: "Fuse every flash / no-flash pair of a list, in one process.",
        discussion: """
            The list has one pair per line: FLASH, a tab, AMBIENT, and optionally a tab and a NAME \
            (default: the flash file's name without its extension). Blank lines and lines starting \
            with # are skipped; relative paths are relative to the list's folder. Each pair's \
            outputs go into --out-dir as NAME.tif, and with the flags below NAME.confidence.tif, \
            NAME.measurement-confidence.tif, NAME.report.json, NAME.fallback.tif and NAME.linear.tif. \
            Exposure comes from each frame's EXIF. The list, the names and every destination are \
            checked before any pair is fused; a pair that fails is said in one line and the others \
            go on. Exit status: 0 when every pair was fused (whatever the decisions), 2 on bad usage \
            or input, or when any pair failed.
            """)

    @Argument(help: "The list of pairs (tab-separated text).") var list: String
    @Option(help: "Folder for the outputs (it must exist).") var outDir: String
    @Flag(help: "Also write each pair's confidence map (NAME.confidence.tif).") var confidence = false
    @Flag(help: "Also write each pair's measurement confidence map (NAME.measurement-confidence.tif).") var measurementConfidence = false
    @Flag(help: "Also write each pair's report (NAME.report.json).") var report = false
    @Flag(help: "Also write each pair's fallback image (NAME.fallback.tif).") var fallback = false
    @Flag(help: "Also write each pair's linear output (NAME.linear.tif).") var linear = false
    @OptionGroup var fusion: FusionCommandOptions

    func run() throws {
        let entries = try PairList.read(path: list)
        guard !entries.isEmpty else { throw CLIError(file: list, problem: "lists no pair") }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outDir, isDirectory: &isFolder), isFolder.boolValue else {
            throw CLIError(file: outDir, problem: "is not an existing folder (--out-dir)")
        }
        let folder = URL(fileURLWithPath: outDir)
        func path(_ name: String, _ suffix: String) -> String { folder.appendingPathComponent(name + suffix).path }
        let pairs = entries.map { entry in
            PairFiles(flash: entry.flash, ambient: entry.ambient, output: path(entry.name, ".tif"),
                      confidence: confidence ? path(entry.name, ".confidence.tif") : nil,
                      measurementConfidence: measurementConfidence ? path(entry.name, ".measurement-confidence.tif") : nil,
                      report: report ? path(entry.name, ".report.json") : nil,
                      fallback: fallback ? path(entry.name, ".fallback.tif") : nil,
                      linear: linear ? path(entry.name, ".linear.tif") : nil)
        }
        // No file is an output of two pairs (pair "a" and pair "a.confidence" with --confidence).
        var owner: [String: String] = [:]
        for (entry, pair) in zip(entries, pairs) {
            for out in pair.outputs {
                let key = URL(fileURLWithPath: out).standardizedFileURL.path
                if let other = owner[key] { throw CLIError(file: out, problem: "would be written for both '\(other)' and '\(entry.name)'") }
                owner[key] = entry.name
            }
        }
        // Before any work: every frame readable, and no output over any input of the batch (a later
        // pair's frame included) or where it cannot be written.
        let inputs = entries.flatMap { [$0.flash, $0.ambient] } + [fusion.camera, fusion.flashProfile]
        for entry in entries {
            for frame in [entry.flash, entry.ambient] {
                do { try TIFFReader.checkReadable(frame) } catch { throw CLIError(file: list, problem: "line \(entry.line): \(error)") }
            }
        }
        for pair in pairs { try pair.checkDestinations(protecting: inputs) }
        let progress = Progress()
        let setup = try FusionSetup(fusion, progress: progress)
        var failed: [String] = []
        for (k, (entry, pair)) in zip(entries, pairs).enumerated() {
            let pairProgress = Progress(prefix: "[\(k + 1)/\(entries.count) \(entry.name)] ")
            do {
                let report = try PairFusion.fuse(pair, setup: setup, protecting: inputs, progress: pairProgress)
                pairProgress.say(String(format: "%@ (mean confidence %.3f)", report.decision.rawValue, report.centerWeightedMeanConfidence))
            } catch {
                let line = String(describing: error).split(separator: "\n").joined(separator: " ")
                pairProgress.say("error: \(line)")
                failed.append(entry.name)
            }
        }
        guard failed.isEmpty else {
            throw CLIError(file: list, problem: "\(failed.count) of \(entries.count) pairs failed (\(failed.joined(separator: ", "))); the others were fused")
        }
        progress.say("fused \(entries.count) pairs")
    }
}

/// The list `fuse-batch` reads: one pair per line, `FLASH<TAB>AMBIENT[<TAB>NAME]`.
enum PairList {
    /// One listed pair: its frames (resolved against the list's folder), its name and its line.
    struct Entry: Equatable { var flash: String, ambient: String, name: String, line: Int }

    /// Reads and checks the list: two or three tab-separated fields per line, names that are plain
    /// file names and unique. Any problem is an error naming the list and the line.
    static func read(path: String) throws -> [Entry] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CLIError(file: path, problem: "cannot be read (\(error.localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw CLIError(file: path, problem: "is not UTF-8 text") }
        return try parse(text, folder: URL(fileURLWithPath: path).deletingLastPathComponent(), source: path)
    }

    /// Parses the list's text; relative paths are resolved against `folder`; `source` names the list in errors.
    static func parse(_ text: String, folder: URL, source: String) throws -> [Entry] {
        var entries: [Entry] = []
        var lineOfName: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2 || fields.count == 3 else {
                throw CLIError(file: source, problem: "line \(number): expected FLASH, a tab, AMBIENT and optionally a tab and a NAME, found \(fields.count) tab-separated field(s)")
            }
            if let empty = fields.firstIndex(where: \.isEmpty) {
                throw CLIError(file: source, problem: "line \(number): field \(empty + 1) is empty")
            }
            func resolved(_ p: String) -> String { p.hasPrefix("/") ? p : folder.appendingPathComponent(p).path }
            let flash = resolved(fields[0]), ambient = resolved(fields[1])
            let name = fields.count == 3 ? fields[2] : URL(fileURLWithPath: fields[0]).deletingPathExtension().lastPathComponent
            guard !name.contains("/"), name != ".", name != "..", !name.hasPrefix(".") else {
                throw CLIError(file: source, problem: "line \(number): the name '\(name)' is not a plain file name")
            }
            if let first = lineOfName[name] {
                throw CLIError(file: source, problem: "line \(number): the name '\(name)' is taken by line \(first) (give each pair a NAME in a third field)")
            }
            lineOfName[name] = number
            entries.append(Entry(flash: flash, ambient: ambient, name: name, line: number))
        }
        return entries
    }
}
