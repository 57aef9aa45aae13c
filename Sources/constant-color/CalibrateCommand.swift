import ArgumentParser

/// `constant-color calibrate`: camera and flash profiles from a capture or from spectral data.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit camera and flash profiles (from spectral data or a chart capture), and the flash's shading (flat field).",
        subcommands: [CalibrateSpectral.self, CalibrateChart.self, CalibrateFlatField.self])
}
