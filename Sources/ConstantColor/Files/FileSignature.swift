import Foundation

/// What kind of file a path holds, by its first bytes (its "magic number"), for errors that say
/// what a file is when it is not what a command reads: a PNG renamed `.tif`, a TIFF given as a
/// JSON profile. Only formats a user plausibly confuses are named; anything else is nil.
public enum FileSignature {
    /// The kind of file `path` holds ("a PNG image", "a TIFF image", "JSON text", …), or nil where
    /// the first bytes name none of them or the file cannot be read.
    public static func kind(ofFileAt path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? (handle.read(upToCount: 16) ?? Data()) else { return nil }  // nil at the end: empty
        return kind(of: [UInt8](data))
    }

    /// The kind of file whose first bytes are `prefix` (see `kind(ofFileAt:)`).
    public static func kind(of prefix: [UInt8]) -> String? {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            prefix.count >= offset + bytes.count && Array(prefix[offset..<(offset + bytes.count)]) == bytes
        }
        if prefix.isEmpty { return "an empty file" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "a PNG image" }          // PNG (ISO/IEC 15948)
        if starts([0xFF, 0xD8, 0xFF]) { return "a JPEG image" }                                       // JFIF / EXIF SOI marker
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A])
            || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) { return "a TIFF image" }  // TIFF 6.0, BigTIFF
        if starts(Array("GIF8".utf8)) { return "a GIF image" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "a WebP image" }
        if starts(Array("ftyp".utf8), at: 4) { return "an ISO media file (HEIF/HEIC, AVIF or MP4)" }   // ISO/IEC 14496-12 box
        if starts(Array("%PDF".utf8)) { return "a PDF document" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "a ZIP archive" }
        if starts(Array("FUJIFILMCCD-RAW".utf8)) { return "a Fujifilm RAF raw file" }
        if let first = prefix.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
           first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return "JSON text" }
        return nil
    }
}
