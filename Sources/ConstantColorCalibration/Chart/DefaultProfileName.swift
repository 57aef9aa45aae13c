import ConstantColor
import Foundation

/// The names `calibrate chart` gives the profiles it writes when no name is given
/// (`--camera-name`, `--flash-name`, or an existing camera profile's): made from the capture's
/// file name and a digest of its pixels, so they say where a profile came from, not which device
/// it is, and two calibrations from different captures never share one (with the file name alone,
/// every `darkroom.tif` gave the same name, and `fuse` took a Sony's flash profile with a Canon's
/// camera profile without a word: `constantColor` at 26 ΔE00).
public enum DefaultProfileName {
    /// "camera calibrated from CAPTURE (DIGEST)" (the capture's last path component, `digest(of:)`).
    public static func camera(capture: String, digest: String) -> String {
        cameraPrefix + (capture as NSString).lastPathComponent + " (\(digest))"
    }
    /// "flash calibrated from CAPTURE (DIGEST)".
    public static func flash(capture: String, digest: String) -> String {
        flashPrefix + (capture as NSString).lastPathComponent + " (\(digest))"
    }
    /// 16 hexadecimal digits of the FNV-1a hash (64-bit) of an image's size and samples' bits.
    public static func digest(of image: PlanarImage) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ word: UInt64) { hash = (hash ^ word) &* 0x0000_0100_0000_01b3 }
        mix(UInt64(image.width)); mix(UInt64(image.height)); mix(UInt64(image.channelCount))
        image.samples.withUnsafeBufferPointer { samples in for v in samples { mix(UInt64(v.bitPattern)) } }
        return String(hash, radix: 16).leftPadded(to: 16)
    }
    /// Whether `name` is one of those names: it names no device, so it cannot be compared with one.
    public static func isDefault(_ name: String) -> Bool { name.hasPrefix(cameraPrefix) || name.hasPrefix(flashPrefix) }

    static let cameraPrefix = "camera calibrated from ", flashPrefix = "flash calibrated from "
}

private extension String {
    /// The string with zeros before it up to `length` characters.
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
