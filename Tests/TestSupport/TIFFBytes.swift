/// Edits of a TIFF file's bytes that no writer makes, for tests of what cameras write.
public enum TIFFBytes {
    /// Sets the first RATIONAL `tag` of the little-endian EXIF directory at offset 8 (where
    /// `TIFFWriter` puts it: written first, right after the header) to numerator / denominator, in
    /// place. Returns false when the directory holds no such entry.
    public static func setEXIFRational(_ bytes: inout [UInt8], tag: UInt16, _ numerator: UInt32, _ denominator: UInt32) -> Bool {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        for k in 0..<u16(8) where u16(10 + 12 * k) == Int(tag) && u16(12 + 12 * k) == 5 {
            let at = u32(18 + 12 * k)
            for (i, v) in [numerator, denominator].enumerated() {
                for b in 0..<4 { bytes[at + 4 * i + b] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(b))) }
            }
            return true
        }
        return false
    }

    /// The byte offset of the entry of `tag` in the first directory of a little-endian classic TIFF
    /// (its 12 bytes: tag, type, count, value or offset); nil when the directory holds none.
    public static func entryOffsetOfFirstIFD(_ bytes: [UInt8], tag: UInt16) -> Int? {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let directory = u16(4) | u16(6) << 16
        for k in 0..<u16(directory) where u16(directory + 2 + 12 * k) == Int(tag) { return directory + 2 + 12 * k }
        return nil
    }
}
