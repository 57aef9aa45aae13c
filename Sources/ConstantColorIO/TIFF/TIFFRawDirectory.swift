import CTIFF
import Foundation

/// Tags read straight from a TIFF file's directory entries, for what libtiff's API does not show:
/// libtiff drops a codec-specific tag (e.g. Predictor, 317) when the image's compression does not
/// use it (`_TIFFCheckFieldIsValidForCodec`), so a file with Predictor 2 and no compression reads
/// as if it had none; and libtiff 4.5 hands EXIF's RATIONAL values over in single precision.
/// (TIFF 6.0 section 2 for the classic layout, BigTIFF for the 64-bit one.)
enum TIFFRawDirectory {
    /// The first value of `tag` in the directory libtiff has current on `tif` (read from `path`),
    /// when its type is BYTE, SHORT or LONG; nil when the tag is absent or unreadable.
    static func integerTag(_ tag: UInt16, of tif: OpaquePointer, path: String) -> UInt32? {
        guard let e = firstValue(tag, of: tif, path: path) else { return nil }
        switch e.type {
        case 1, 7: return UInt32(e.bytes[e.bytes.startIndex])
        case 3: return UInt32(e.integer(0, 2))
        case 4: return UInt32(e.integer(0, 4))
        default: return nil
        }
    }

    /// A numeric entry's first value, as stored.
    struct Number {
        /// The value; a rational's as the exact quotient of its numerator and denominator (1/79 s is
        /// 0.012658227848101266, not libtiff's float 0.012658228); nil for a zero denominator.
        var value: Double?
        /// A rational's numerator (0 for other types).
        var numerator: Int64
        /// The TIFF type's name (SHORT, RATIONAL, …).
        var typeName: String
        /// Whether the type is RATIONAL or SRATIONAL.
        var isRational: Bool { typeName.hasSuffix("RATIONAL") }
    }

    /// The first value of every entry of `tag` in the current directory, whatever its numeric type
    /// (BYTE, SHORT, LONG, LONG8 and their signed forms, RATIONAL, SRATIONAL, FLOAT, DOUBLE), in the directory's order
    /// (TIFF 6.0 allows one; a damaged or hand-edited file may hold more, and libtiff keeps the
    /// last without a word); entries that are unreadable or not numeric are left out.
    static func numericTags(_ tag: UInt16, of tif: OpaquePointer, path: String) -> [Number] {
        values(tag, of: tif, path: path).compactMap(number)
    }

    /// An entry's first value as a `Number` (nil: not a numeric type).
    static func number(_ e: Value) -> Number? {
        func signed(_ size: Int) -> Int64 {
            let v = e.integer(0, size), shift = UInt64(64 - 8 * size)
            return Int64(bitPattern: v << shift) >> Int64(shift)
        }
        switch e.type {
        case 1: return Number(value: Double(e.integer(0, 1)), numerator: 0, typeName: "BYTE")
        case 3: return Number(value: Double(e.integer(0, 2)), numerator: 0, typeName: "SHORT")
        case 4: return Number(value: Double(e.integer(0, 4)), numerator: 0, typeName: "LONG")
        case 16: return Number(value: Double(e.integer(0, 8)), numerator: 0, typeName: "LONG8")
        case 6: return Number(value: Double(signed(1)), numerator: 0, typeName: "SBYTE")
        case 8: return Number(value: Double(signed(2)), numerator: 0, typeName: "SSHORT")
        case 9: return Number(value: Double(signed(4)), numerator: 0, typeName: "SLONG")
        case 17: return Number(value: Double(signed(8)), numerator: 0, typeName: "SLONG8")
        case 5, 10:
            let isSigned = e.type == 10
            let n = isSigned ? Int64(Int32(truncatingIfNeeded: e.integer(0, 4))) : Int64(e.integer(0, 4))
            let d = isSigned ? Int64(Int32(truncatingIfNeeded: e.integer(4, 4))) : Int64(e.integer(4, 4))
            return Number(value: d == 0 ? nil : Double(n) / Double(d), numerator: n, typeName: isSigned ? "SRATIONAL" : "RATIONAL")
        case 11: return Number(value: Double(Float(bitPattern: UInt32(e.integer(0, 4)))), numerator: 0, typeName: "FLOAT")
        case 12: return Number(value: Double(bitPattern: e.integer(0, 8)), numerator: 0, typeName: "DOUBLE")
        default: return nil
        }
    }

    /// One entry's first value: its type and bytes, in the file's byte order.
    struct Value {
        var type: UInt64, bytes: Data, bigEndian: Bool

        /// The unsigned integer of `size` bytes at `at`.
        func integer(_ at: Int, _ size: Int) -> UInt64 { TIFFRawDirectory.integer(bytes, at, size, bigEndian: bigEndian) }
    }

    /// The unsigned integer of `size` bytes at `at` of `bytes`, in the file's byte order.
    static func integer(_ bytes: Data, _ at: Int, _ size: Int, bigEndian: Bool) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<size { v = v << 8 | UInt64(bytes[bytes.startIndex + at + (bigEndian ? k : size - 1 - k)]) }
        return v
    }

    /// Whether `count` values of `valueSize` bytes fit in an entry's value field of `fieldSize`
    /// bytes (held there, not at an offset); a count a damaged file makes huge does not overflow.
    static func fitsInEntry(valueSize: Int, count: UInt64, fieldSize: Int) -> Bool {
        count <= UInt64(fieldSize / valueSize)
    }

    /// The bytes of the first value of `tag` in the current directory (inline in the entry where
    /// they fit, else at the offset the entry gives); nil when absent, of an unknown type, or unreadable.
    static func firstValue(_ tag: UInt16, of tif: OpaquePointer, path: String) -> Value? {
        values(tag, of: tif, path: path, limit: 1).first
    }

    /// The first value of each entry of `tag` in the current directory, up to `limit` entries
    /// (`firstValue`'s reading); an entry of an unknown type or unreadable ends the list.
    static func values(_ tag: UInt16, of tif: OpaquePointer, path: String, limit: Int = .max) -> [Value] {
        var found: [Value] = []
        let offset = TIFFCurrentDirOffset(tif)
        let bigEndian = TIFFIsBigEndian(tif) != 0, big = TIFFIsBigTIFF(tif) != 0
        guard offset > 0, let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        func integer(_ bytes: Data, _ at: Int, _ size: Int) -> UInt64 { Self.integer(bytes, at, size, bigEndian: bigEndian) }
        // Bytes of one value of each TIFF type (TIFF 6.0 section 2, BigTIFF's 16–18).
        let sizes: [UInt64: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8]
        do {
            try handle.seek(toOffset: offset)
            let countSize = big ? 8 : 2, entrySize = big ? 20 : 12, fieldSize = big ? 8 : 4
            guard let countBytes = try handle.read(upToCount: countSize), countBytes.count == countSize else { return [] }
            let count = Int(min(integer(countBytes, 0, countSize), 65_535))
            guard let entries = try handle.read(upToCount: count * entrySize), entries.count == count * entrySize else { return [] }
            for e in 0..<count where found.count < limit {
                let base = e * entrySize
                guard UInt16(integer(entries, base, 2)) == tag else { continue }
                let type = integer(entries, base + 2, 2), valueCount = integer(entries, base + 4, big ? 8 : 4)
                guard valueCount >= 1, let size = sizes[type] else { return found }
                let field = base + (big ? 12 : 8)  // the value field: left-justified when it fits
                if fitsInEntry(valueSize: size, count: valueCount, fieldSize: fieldSize) {
                    found.append(Value(type: type, bytes: entries.subdata(in: (entries.startIndex + field)..<(entries.startIndex + field + size)),
                                       bigEndian: bigEndian))
                    continue
                }
                try handle.seek(toOffset: integer(entries, field, fieldSize))
                guard let bytes = try handle.read(upToCount: size), bytes.count == size else { return found }
                found.append(Value(type: type, bytes: bytes, bigEndian: bigEndian))
            }
        } catch {
            return found
        }
        return found
    }
}
