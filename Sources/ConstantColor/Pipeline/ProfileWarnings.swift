/// Warnings about a camera and flash profile pair that can be used but may give wrong colours or an
/// incomplete confidence: in `FusionPipeline.run`'s report (the flash profile named by its name), and
/// said by every command that fuses (`fuse`, `validate`; the profiles named by their files).
package enum ProfileWarnings {
    /// One line per problem: the flash profile calibrated for another camera (its matrix and white
    /// are that camera's), no shading map (the flash's colour across the frame unmeasured), and no
    /// colorimetric uncertainty where the confidence is to count it.
    package static func lines(camera: CameraProfile, cameraPath: String, flash: FlashProfile, flashPath: String,
                              countColorimetricUncertainty: Bool) -> [String] {
        var lines = [cameraMismatch(camera: camera, cameraPath: cameraPath, flash: flash, flashPath: flashPath)].compactMap { $0 }
        // Said, not guessed: the flash's colour across the frame is a property of the flash and
        // lens, unknown until measured. A synthetic phosphor LED that loses 12 % of its blue band
        // at the frame's corner (camera blue/green −6 %) left 5.7–7.8 % of the confident pixels
        // more than 3 ΔE00 off with a profile without the map (`synth --all-effects`, three seeds).
        if flash.shading == nil {
            lines.append("note: \(flashPath) has no shading map: the flash's colour is taken as the same over the whole frame and the confidence does not count a change of it (a phosphor LED flash is bluer on its axis than at wide angles); calibrate flat-field measures it from a grey card")
        }
        // A map of two nodes on an axis (older profiles; calibrate flat-field now makes at least three)
        // has them symmetric about the centre: a shading about the flash's axis cancels in it.
        if let s = flash.shading, s.columns < 3 || s.rows < 3 {
            lines.append("warning: \(flashPath)'s shading map has \(s.columns)x\(s.rows) nodes: with 2 on an axis they lie symmetric about the centre and a shading about the flash's axis cancels, so the map corrects little of it; calibrate flat-field again with --grid of 3 or more a side")
        }
        if countColorimetricUncertainty && flash.colorimetricUncertainty == nil {
            lines.append("warning: \(flashPath) has no colorimetricUncertainty: the confidence map counts the measurement only, not the matrix's error by colour (calibrate spectral or chart writes it)")
        }
        return lines
    }

    /// The warning for a flash profile calibrated for another camera than `camera` (nil: the same,
    /// or not recorded); `calibrate flat-field` says it too, whose map is that camera's response.
    package static func cameraMismatch(camera: CameraProfile, cameraPath: String, flash: FlashProfile, flashPath: String) -> String? {
        guard let expected = flash.cameraName, expected != camera.name else { return nil }
        return "warning: \(flashPath) was calibrated for camera '\(expected)', and \(cameraPath) is '\(camera.name)': its matrix and white are that camera's"
    }
}
