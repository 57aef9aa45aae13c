import CTIFF
import Foundation

/// Tags read straight from a TIFF file's directory entries, for what libtiff's API does not show:
/// libtiff drops a codec-specific tag (e.g. Predictor, 317) when the image's compression does not
/// use it (`_TIFFCheckFieldIsValidForCodec`), so a file with Predictor 2 and no compression reads
/// as if it had none. (TIFF 6.0 section 2 for the classic layout, BigTIFF for the 64-bit one.)
enum TIFFRawDirectory {
    /// The first value of `tag` in the directory libtiff has current on `tif` (read from `path`),
    /// when its type is BYTE, SHORT or LONG; nil when the tag is absent or unreadable.
    static func integerTag(_ tag: UInt16, of tif: OpaquePointer, path: String) -> UInt32? {
        let offset = TIFFCurrentDirOffset(tif)
        let bigEndian = TIFFIsBigEndian(tif) != 0, big = TIFFIsBigTIFF(tif) != 0
        guard offset > 0, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        func integer(_ bytes: Data, _ at: Int, _ size: Int) -> UInt64 {
            var v: UInt64 = 0
            for k in 0..<size {
                let byte = UInt64(bytes[bytes.startIndex + at + (bigEndian ? k : size - 1 - k)])
                v = v << 8 | byte
            }
            return v
        }
        do {
            try handle.seek(toOffset: offset)
            let countSize = big ? 8 : 2, entrySize = big ? 20 : 12
            guard let countBytes = try handle.read(upToCount: countSize), countBytes.count == countSize else { return nil }
            let count = Int(min(integer(countBytes, 0, countSize), 65_535))
            guard let entries = try handle.read(upToCount: count * entrySize), entries.count == count * entrySize else { return nil }
            for e in 0..<count {
                let base = e * entrySize
                guard UInt16(integer(entries, base, 2)) == tag else { continue }
                let type = integer(entries, base + 2, 2), valueCount = integer(entries, base + 4, big ? 8 : 4)
                let value = base + (big ? 12 : 8)  // the value field: left-justified when it fits
                guard valueCount >= 1 else { return nil }
                switch type {
                case 1, 7: return UInt32(entries[entries.startIndex + value])
                case 3: return UInt32(integer(entries, value, 2))
                case 4: return UInt32(integer(entries, value, 4))
                default: return nil
                }
            }
        } catch {
            return nil
        }
        return nil
    }
}
