import ArgumentParser
import ConstantColor
import ConstantColorIO
import Foundation

/// `constant-color fuse`: the constant-color pipeline on one flash / ambient pair.
struct FuseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuse",
        abstract: "Render the flash-only (dark-room) image of a flash / no-flash pair as if lit by D65.",
        discussion: """
            Inputs are linear camera-RGB TIFFs (8/16-bit or float). Exposure comes from EXIF \
            (ExposureTime, FNumber, ISO) or from --flash-exposure / --ambient-exposure T,N,ISO \
            (T may be 1/60). Outputs are written atomically and never over an input. Exit status: \
            0 success (whatever the decision), 2 bad usage or input. Progress goes to stderr.
            """)

    @Argument(help: "Flash frame (linear camera RGB TIFF).") var flash: String
    @Argument(help: "Ambient (no-flash) frame of the same scene.") var ambient: String
    @Option(name: .shortAndLong, help: "Rendered output: 16-bit RGB TIFF, gamma 2.2, ICC embedded.") var output: String
    @Option(help: "Confidence map output: 32-bit float single-channel TIFF; how far each pixel's colour can be trusted (the measurement and, when the flash profile has one, the matrix's colorimetric uncertainty).")
    var confidence: String?
    @Option(help: "Measurement confidence map output (same format): how well the capture measured the flash's light; the basis of the decision.")
    var measurementConfidence: String?
    @Option(help: "Report output (JSON).") var report: String?
    @Option(help: "Fallback output: the ambient frame as a normal photo (gray-world white balance).") var fallback: String?
    @Option(help: "Linear, un-tone-mapped float output for measurement (not gap-filled).") var linear: String?
    @Option(parsing: .unconditional, help: "Exposure of the flash frame, T,N,ISO (overrides EXIF).") var flashExposure: String?
    @Option(parsing: .unconditional, help: "Exposure of the ambient frame, T,N,ISO (overrides EXIF).") var ambientExposure: String?
    @OptionGroup var fusion: FusionCommandOptions

    /// The pair's files as given.
    var pair: PairFiles {
        PairFiles(flash: flash, ambient: ambient, flashExposure: flashExposure, ambientExposure: ambientExposure, output: output,
                  confidence: confidence, measurementConfidence: measurementConfidence, report: report, fallback: fallback, linear: linear)
    }

    func validate() throws {
        if let repeated = pair.repeatedOutput { throw ValidationError("two outputs name the same file, \(repeated)") }
        try fusion.checkLinearSpace(producesLinear: linear != nil)
    }

    func run() throws {
        let timer = StageTimer()  // the report's decode counts the checks and the profiles, as it always has
        let progress = Progress()
        let pair = pair
        let inputs = [flash, ambient, fusion.camera, fusion.flashProfile]
        try pair.checkFramesAreTwoFiles()
        try pair.checkDestinations(protecting: inputs)
        // Read and check everything before writing anything.
        let setup = try FusionSetup(fusion)
        _ = try PairFusion.fuse(pair, setup: setup, protecting: inputs, progress: progress, timer: timer, sayProfileNotes: true)
    }
}

/// Progress lines on standard error.
struct Progress {
    /// Put before every line (e.g. which pair of a batch it is about).
    var prefix = ""

    /// Prints one line to standard error.
    func say(_ line: String) {
        FileHandle.standardError.write(Data("constant-color: \(prefix)\(line)\n".utf8))
    }
}

/// Runs independent jobs at the same time and rethrows the error of the first job (in the order
/// given) that failed, so that the message does not depend on thread timing.
func runConcurrently(_ jobs: [() throws -> Void]) throws {
    var errors = [(any Error)?](repeating: nil, count: jobs.count)
    errors.withUnsafeMutableBufferPointer { buffer in
        let results = SharedMutableBuffer(buffer)
        let box = UncheckedSendableBox(jobs)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
            do { try box.value[k]() } catch { results[k] = error }
        }
    }
    if let first = errors.compactMap({ $0 }).first { throw first }
}
