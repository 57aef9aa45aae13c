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
            The list has one pair per line, its fields separated by tabs: FLASH, AMBIENT, and \
            optionally NAME (default: the flash file's name without its extension), then the flash \
            and the ambient frame's exposures as T,N,ISO, which override their EXIF as \
            --flash-exposure and --ambient-exposure do for fuse (for files without EXIF; an empty \
            field keeps EXIF's). Blank lines and lines starting with # are skipped, CR LF line ends are \
            taken as LF, spaces around a \
            field are not part of it, and relative paths are relative to the list's folder. Each \
            pair's outputs go into --out-dir as NAME.tif, and with the flags below \
            NAME.confidence.tif, NAME.measurement-confidence.tif, NAME.report.json, \
            NAME.fallback.tif and NAME.linear.tif. The list, the names, every frame's file and every \
            destination are checked before any pair is fused; a pair that fails is said in one line \
            and the others go on. Exit status: 0 when every pair was fused (whatever the decisions), \
            2 on bad usage or input, or when any pair failed.
            """)

    @Argument(help: "The list of pairs (tab-separated text).") var list: String
    @Option(help: "Folder for the outputs (it must exist).") var outDir: String
    @Flag(help: "Also write each pair's confidence map (NAME.confidence.tif).") var confidence = false
    @Flag(help: "Also write each pair's measurement confidence map (NAME.measurement-confidence.tif).") var measurementConfidence = false
    @Flag(help: "Also write each pair's report (NAME.report.json).") var report = false
    @Flag(help: "Also write each pair's fallback image (NAME.fallback.tif).") var fallback = false
    @Flag(help: "Also write each pair's linear output (NAME.linear.tif).") var linear = false
    @OptionGroup var fusion: FusionCommandOptions

    func validate() throws {
        try fusion.checkLinearSpace(producesLinear: linear)
    }

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
            PairFiles(flash: entry.flash, ambient: entry.ambient, flashExposure: entry.flashExposure, ambientExposure: entry.ambientExposure,
                      exposureHint: { role in "the exposure T,N,ISO in field \(role == "flash" ? 4 : 5) of line \(entry.line) of \(list)" },
                      output: path(entry.name, ".tif"),
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
                let key = PairFiles.standardized(out)
                if let other = owner[key] { throw CLIError(file: out, problem: "would be written for both '\(other)' and '\(entry.name)'") }
                owner[key] = entry.name
            }
        }
        // Before any work: every frame readable, and no output over any input of the batch (a later
        // pair's frame included) or where it cannot be written.
        let inputs = entries.flatMap { [$0.flash, $0.ambient] } + [fusion.camera, fusion.flashProfile, list]
        for entry in entries {
            for frame in [entry.flash, entry.ambient] {
                do { try TIFFReader.checkReadable(frame) } catch { throw CLIError(file: list, problem: "line \(entry.line): \(error)") }
            }
        }
        for (entry, pair) in zip(entries, pairs) {
            do { try pair.checkFramesAreTwoFiles() } catch { throw CLIError(file: list, problem: "line \(entry.line): \(error)") }
        }
        for pair in pairs { try pair.checkDestinations(protecting: inputs) }
        let progress = Progress()
        // Its reports give every path absolute: the frames are resolved against the list's folder.
        var setup = try FusionSetup(fusion)
        setup.reportsAbsolutePaths = true
        for line in setup.profileNotes { progress.say(line) }  // once for the batch, after its checks
        var failed: [String] = []
        for (k, (entry, pair)) in zip(entries, pairs).enumerated() {
            let pairProgress = Progress(prefix: "[\(k + 1)/\(entries.count) \(entry.name)] ")
            do {
                let report = try PairFusion.fuse(pair, setup: setup, protecting: inputs, progress: pairProgress)
                pairProgress.say(String(format: "%@ (mean confidence %.3f)", report.decision.rawValue, report.centerWeightedMeanConfidence))
            } catch {
                pairProgress.say("error: \(oneLine(String(describing: error)))")
                failed.append(entry.name)
            }
        }
        guard failed.isEmpty else {
            throw CLIError(file: list, problem: "\(failed.count) of \(entries.count) pairs failed (\(failed.joined(separator: ", ")))"
                           + (failed.count < entries.count ? "; the others were fused" : ""))
        }
        progress.say(entries.count == 1 ? "fused 1 pair" : "fused \(entries.count) pairs")
    }
}

/// The list `fuse-batch` reads: one pair per line, `FLASH<TAB>AMBIENT[<TAB>NAME[<TAB>T,N,ISO[<TAB>T,N,ISO]]]`.
enum PairList {
    /// One listed pair: its frames (resolved against the list's folder), its name, the exposure
    /// overrides given (T,N,ISO; nil: EXIF) and its line.
    struct Entry: Equatable {
        var flash: String, ambient: String, name: String
        var flashExposure: String? = nil, ambientExposure: String? = nil
        var line: Int
    }

    /// Reads and checks the list (`parse`). Any problem is an error naming the list (and the line).
    static func read(path: String) throws -> [Entry] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CLIError(file: path, problem: "does not exist")
        }
        guard !isFolder.boolValue else { throw CLIError(file: path, problem: "is a folder, not a list of pairs") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError(file: path, problem: "cannot be read (\(String(cString: strerror(errno))))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw CLIError(file: path, problem: "is not UTF-8 text") }
        return try parse(text, folder: URL(fileURLWithPath: path).deletingLastPathComponent(), source: path)
    }

    /// Parses the list's text: lines split at any line break (LF, CR LF, CR), fields at tabs and
    /// trimmed of spaces; two to five fields, FLASH and AMBIENT not empty; names plain file names
    /// (no `/`, no control character, not starting with `.`) that differ from each other also
    /// in letter case (one file on a case-insensitive file system); exposures that parse.
    /// Relative paths are resolved against `folder`; `source` names the list in errors.
    static func parse(_ text: String, folder: URL, source: String) throws -> [Entry] {
        var entries: [Entry] = []
        var lineOfName: [String: (line: Int, name: String)] = [:]
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            func refuse(_ problem: String) -> CLIError { CLIError(file: source, problem: "line \(number): \(problem)") }
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = raw.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard (2...5).contains(fields.count) else {
                throw refuse("expected FLASH, AMBIENT and optionally NAME and two exposures, separated by tabs; found \(fields.count) tab-separated field(s)")
            }
            guard !fields[0].isEmpty else { throw refuse("field 1 (FLASH) is empty") }
            guard !fields[1].isEmpty else { throw refuse("field 2 (AMBIENT) is empty") }
            func resolved(_ p: String) -> String { p.hasPrefix("/") ? p : folder.appendingPathComponent(p).path }
            let given = fields.count >= 3 && !fields[2].isEmpty ? fields[2] : nil
            let name = given ?? URL(fileURLWithPath: fields[0]).deletingPathExtension().lastPathComponent
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."),
                  !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw refuse("the name '\(name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined())' is not a plain file name (no '/', no control character, not starting with '.')")
            }
            if let first = lineOfName[name.lowercased()] {
                let caseOnly = first.name != name ? " as '\(first.name)' (names must differ also in letter case)" : ""
                throw refuse("the name '\(name)' is taken by line \(first.line)\(caseOnly)\(given == nil ? " (give each pair a NAME in the third field)" : "")")
            }
            lineOfName[name.lowercased()] = (number, name)
            var exposures: [String?] = [nil, nil]
            for (k, role) in ["flash", "ambient"].enumerated() where fields.count > 3 + k && !fields[3 + k].isEmpty {
                do { _ = try ExposureSettings(parsing: fields[3 + k]) } catch {
                    throw refuse("field \(4 + k) (the \(role) frame's exposure T,N,ISO): \(error)")
                }
                exposures[k] = fields[3 + k]
            }
            entries.append(Entry(flash: resolved(fields[0]), ambient: resolved(fields[1]), name: name,
                                 flashExposure: exposures[0], ambientExposure: exposures[1], line: number))
        }
        return entries
    }
}
