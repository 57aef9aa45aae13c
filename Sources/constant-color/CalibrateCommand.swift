import ArgumentParser
import ConstantColorIO
import Foundation

/// `constant-color calibrate`: camera and flash profiles from a capture or from spectral data.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit camera and flash profiles (from spectral data or a chart capture), and the flash's shading (flat field).",
        subcommands: [CalibrateSpectral.self, CalibrateChart.self, CalibrateFlatField.self])
}

/// Refuses `ambient` when it is the capture's own file (by path, link or hard link): subtracted from
/// itself it leaves nothing, which later checks blamed on a patch or a cell with no signal.
/// `capture` names what the capture is ("chart capture", "flat-field capture"), `twin` what
/// `--ambient` takes instead.
func refuseCaptureAsAmbient(_ ambient: String, capture: String, named what: String, twin: String) throws {
    if FileManager.default.fileExists(atPath: capture), AtomicFile.isProtected(ambient, protectedPaths: [capture]) {
        throw CLIError(file: ambient, problem: "is the \(what)'s file as well; --ambient takes \(twin)")
    }
}
