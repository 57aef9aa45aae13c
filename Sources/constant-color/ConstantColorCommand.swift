import ArgumentParser
import ConstantColorIO
import Foundation

/// The `constant-color` command line.
///
/// Exit status: 0 success, 1 a check failed (threshold, tolerance), 2 bad usage or bad input, with
/// one line on standard error that names the file and the problem.
@main
struct ConstantColorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "constant-color",
        abstract: "Ambient-independent colors from a flash / no-flash pair of linear camera TIFFs.",
        version: "0.1.0",
        subcommands: [FuseCommand.self, FuseBatchCommand.self, CheckCommand.self, CalibrateCommand.self, ValidateCommand.self, SynthCommand.self])

    /// Runs the command and maps every failure to the documented exit status.
    static func main() {
        AtomicFile.removeTemporaryFilesOnInterrupt()
        // A short-lived process handling frames of hundreds of MB: freed buffers are reused, not
        // unmapped and faulted in again (`reuseFreedMemoryForLargeBuffers`).
        reuseFreedMemoryForLargeBuffers()
        do {
            if let repeated = RepeatedOption.first(in: Array(CommandLine.arguments.dropFirst())) {
                throw ValidationError("\(repeated) is given more than once (only one value would be used): give it once")
            }
            var command = try parseAsRoot()
            // A command group named without one of its commands (`constant-color`, `constant-color
            // calibrate`) is bad usage (SPEC 3: exit 2), not a request for help (which printed the help
            // and exited 0).
            let group = type(of: command).configuration
            if !group.subcommands.isEmpty {
                let path = type(of: command) == ConstantColorCommand.self ? "constant-color" : "constant-color \(type(of: command)._commandName)"
                throw ValidationError("no command given to \(path); one of \(group.subcommands.map { $0._commandName }.joined(separator: ", ")) is needed (\(path) --help)")
            }
            try command.run()
        } catch let failure as CheckFailed {
            FileHandle.standardError.write(Data("constant-color: check failed: \(failure.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)  // --help, --version
            }
            let text: String
            if code != .validationFailure {
                text = String(describing: error)
            } else {
                text = message(for: error)
            }
            FileHandle.standardError.write(Data("constant-color: error: \(oneLine(text))\n".utf8))
            Foundation.exit(2)
        }
    }
}

/// `text` on one line: its lines (split at any line break, CR LF included) trimmed and joined by spaces.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
}

/// A check that ran and did not pass (exit status 1).
struct CheckFailed: Error {
    /// What failed, one line.
    var message: String
}
