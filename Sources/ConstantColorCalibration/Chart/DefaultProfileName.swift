import Foundation

/// The names `calibrate chart` gives the profiles it writes when no name is given
/// (`--camera-name`, `--flash-name`, or an existing camera profile's): made from the capture's
/// file name, so they say where a profile came from, not which device it is.
public enum DefaultProfileName {
    /// "camera calibrated from CAPTURE" (the capture's last path component).
    public static func camera(capture: String) -> String { cameraPrefix + (capture as NSString).lastPathComponent }
    /// "flash calibrated from CAPTURE".
    public static func flash(capture: String) -> String { flashPrefix + (capture as NSString).lastPathComponent }
    /// Whether `name` is one of those names: it names no device, so it cannot be compared with one.
    public static func isDefault(_ name: String) -> Bool { name.hasPrefix(cameraPrefix) || name.hasPrefix(flashPrefix) }

    static let cameraPrefix = "camera calibrated from ", flashPrefix = "flash calibrated from "
}
