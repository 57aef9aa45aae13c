import ConstantColor

/// Warnings about a camera and flash profile pair that can be used but may give wrong colours or an
/// incomplete confidence: printed by every command that fuses (`fuse`, `validate`).
enum ProfileWarnings {
    /// One line per problem: the flash profile calibrated for another camera (its matrix and white
    /// are that camera's), and no colorimetric uncertainty where the confidence is to count it.
    static func lines(camera: CameraProfile, cameraPath: String, flash: FlashProfile, flashPath: String,
                      countColorimetricUncertainty: Bool) -> [String] {
        var lines: [String] = []
        if let expected = flash.cameraName, expected != camera.name {
            lines.append("warning: \(flashPath) was calibrated for camera '\(expected)', and \(cameraPath) is '\(camera.name)': its matrix and white are that camera's")
        }
        if countColorimetricUncertainty && flash.colorimetricUncertainty == nil {
            lines.append("warning: \(flashPath) has no colorimetricUncertainty: the confidence map counts the measurement only, not the matrix's error by colour (calibrate spectral or chart writes it)")
        }
        return lines
    }
}
