import ConstantColor

/// The warnings a dark frame taken at another exposure than its capture earns (`calibrate chart`,
/// `calibrate flat-field`): dark current and hot pixels grow with the exposure time, and the black
/// level and read noise change with the ISO. `calibrate flat-field` required the dark frame's
/// exposure and never compared it (a probe: a dark frame at 1/2 s, ISO 3200 beside a 1/44 s, ISO 100
/// card, no word, and the same map).
enum DarkFrameExposureWarnings {
    /// The lines for a dark frame at `dark` (its ISO as measured) beside a capture at `capture`;
    /// `isoConsequence` ends the ISO line with what the command does with the dark frame.
    static func lines(darkTimeSeconds: Double, darkISO: Double, captureTimeSeconds: Double, captureISO: Double,
                      isoConsequence: String) -> [String] {
        var lines: [String] = []
        let timeRatio = darkTimeSeconds / captureTimeSeconds
        if !(timeRatio > 0.5 && timeRatio < 2) {
            lines.append(String(format: "warning: the dark frame's exposure time %g s is not the capture's %g s (×%.3g); dark current and hot pixels grow with time, so take it at the capture's exposure",
                                darkTimeSeconds, captureTimeSeconds, timeRatio))
        }
        if darkISO != captureISO {
            lines.append(String(format: "warning: the dark frame is at ISO %g, the capture at ISO %g; %@", darkISO, captureISO, isoConsequence))
        }
        return lines
    }
}
