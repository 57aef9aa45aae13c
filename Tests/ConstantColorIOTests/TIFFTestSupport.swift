import TestSupport
import ConstantColor
import ConstantColorIO
import CTIFF
import Foundation
import Testing

/// A fresh temporary folder per test, removed when the value is released.
final class TemporaryFolder {
    /// The folder's path.
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        let name = "cc-tiff-tests-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        path = (base as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `name` inside the folder.
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The names of every entry in the folder, hidden ones included.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

/// Small deterministic test images.
enum TestImages {
    /// Odd size so that the last strip and the edge tiles are partial.
    static let width = 37
    static let height = 23

    /// Samples exactly representable in `type`: integers over the whole range for integer
    /// types (both extremes included), and finite floats of many magnitudes and both signs.
    static func image(channels: Int, type: TIFFWriteOptions.SampleType, seed: UInt64 = 1,
                      width: Int = width, height: Int = height) -> PlanarImage {
        var rng = SplitMix64(state: seed)
        var image = PlanarImage(width: width, height: height, channelCount: channels)
        for i in image.samples.indices {
            let r = rng.next()
            switch type {
            case .uint8: image.samples[i] = Float(r % 256)
            case .uint16: image.samples[i] = Float(r % 65536)
            case .float32:
                let magnitude = Float(r % 1_000_000) / 1000 * Float(1 << Int((r >> 32) % 12))
                image.samples[i] = (r >> 63) == 0 ? magnitude : -magnitude
            }
        }
        if type != .float32, image.samples.count >= 2 {
            image.samples[0] = 0
            image.samples[1] = type == .uint8 ? 255 : 65535
        }
        return image
    }

    /// The first three planes of a 4-channel image (what the reader keeps), or the image itself.
    static func withoutExtraChannels(_ image: PlanarImage) -> PlanarImage {
        guard image.channelCount == 4 else { return image }
        let n = image.pixelCount * 3
        return PlanarImage(width: image.width, height: image.height, channelCount: 3,
                           samples: Array(image.samples[0..<n]))
    }
}

/// Writes TIFF files that `TIFFWriter` deliberately cannot produce (unsupported layouts,
/// non-finite floats, other orientations), straight through libtiff.
enum RawTIFF {
    /// Tags to set on the directory before the single strip of `data` is written.
    struct Fields {
        var width: Int = TestImages.width
        var height: Int = TestImages.height
        var samplesPerPixel: UInt16 = 1
        var bitsPerSample: UInt16 = 8
        var sampleFormat: UInt16 = UInt16(SAMPLEFORMAT_UINT)
        var photometric: UInt16 = UInt16(PHOTOMETRIC_MINISBLACK)
        var compression: UInt16 = UInt16(COMPRESSION_NONE)
        var orientation: UInt16 = 1
        var extraSamples: [UInt16] = []
    }

    /// Writes one directory with all rows in one strip; `configure` may set further tags.
    /// `mode` as for `TIFFOpen`: `"wb"` big-endian, `"w8"` BigTIFF. `data` is in native byte
    /// order (libtiff swaps it for big-endian files).
    /// Returns false when libtiff refused (so the caller can fail the test with a message).
    @discardableResult
    static func write(_ path: String, _ fields: Fields, data: [UInt8], mode: String = "w",
                      configure: (OpaquePointer) -> Void = { _ in }) -> Bool {
        guard let tif = TIFFOpen(path, mode) else { return false }
        defer { TIFFClose(tif) }
        var ok = cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(fields.width)) == 1
        ok = ok && cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), UInt32(fields.height)) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), fields.samplesPerPixel) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), fields.bitsPerSample) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLEFORMAT), fields.sampleFormat) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), fields.photometric) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), fields.compression) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_ORIENTATION), fields.orientation) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)) == 1
        ok = ok && cc_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(fields.height)) == 1
        if !fields.extraSamples.isEmpty {
            var extras = fields.extraSamples
            ok = ok && cc_tiff_set_u16_array(tif, UInt32(TIFFTAG_EXTRASAMPLES), UInt16(extras.count), &extras) == 1
        }
        configure(tif)
        guard ok else { return false }
        var bytes = data
        let written = bytes.withUnsafeMutableBytes {
            TIFFWriteEncodedStrip(tif, 0, $0.baseAddress, tmsize_t($0.count))
        }
        return Int(written) == data.count && TIFFWriteDirectory(tif) == 1
    }

    /// The native-endian bytes of `samples`.
    static func bytes<T>(_ samples: [T]) -> [UInt8] {
        samples.withUnsafeBytes { Array($0) }
    }
}

/// A libtiff handle opened with `cc_tiff_open`, so libtiff's messages (e.g. unknown-tag
/// warnings) are kept here instead of printed; closed on release.
final class QuietTIFF {
    let tif: OpaquePointer
    private let messages: UnsafeMutablePointer<cc_tiff_messages>

    init?(_ path: String, _ mode: String) {
        let capacity = 4096
        messages = .allocate(capacity: 1)
        let errors = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        let warnings = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        errors[0] = 0
        warnings[0] = 0
        messages.initialize(to: cc_tiff_messages(errors: errors, errorsCapacity: capacity, errorCount: 0,
                                                 warnings: warnings, warningsCapacity: capacity, warningCount: 0))
        guard let tif = cc_tiff_open(path, mode, messages) else {
            Self.free(messages)
            return nil
        }
        self.tif = tif
    }

    deinit {
        TIFFClose(tif)
        Self.free(messages)
    }

    private static func free(_ messages: UnsafeMutablePointer<cc_tiff_messages>) {
        messages.pointee.errors.deallocate()
        messages.pointee.warnings.deallocate()
        messages.deallocate()
    }
}

/// Builds a minimal little-endian classic TIFF by hand (TIFF 6.0 section 2): header, one IFD
/// placed right after the header, values that do not fit in an entry, then the pixel data, so
/// that cutting the file short removes pixel data while the directory stays readable, and so
/// that tags can be given any TIFF type.
enum HandmadeTIFF {
    /// One IFD entry: tag, TIFF type (3 SHORT, 4 LONG, 5 RATIONAL, 12 DOUBLE), count and the
    /// value bytes (little-endian).
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var payload: [UInt8]
    }

    static func short(_ tag: UInt16, _ values: [UInt16]) -> Entry {
        Entry(tag: tag, type: 3, count: UInt32(values.count), payload: values.flatMap { le($0) })
    }

    static func long(_ tag: UInt16, _ values: [UInt32]) -> Entry {
        Entry(tag: tag, type: 4, count: UInt32(values.count), payload: values.flatMap { le($0) })
    }

    static func rational(_ tag: UInt16, _ numerator: UInt32, _ denominator: UInt32) -> Entry {
        Entry(tag: tag, type: 5, count: 1, payload: le(numerator) + le(denominator))
    }

    static func double(_ tag: UInt16, _ value: Double) -> Entry {
        Entry(tag: tag, type: 12, count: 1, payload: le(value.bitPattern))
    }

    /// A one-strip, uncompressed image of `data` with the basic tags plus `extra` entries.
    static func make(width: UInt32, height: UInt32, samplesPerPixel: UInt16, bitsPerSample: UInt16,
                     photometric: UInt16, data: [UInt8], extra: [Entry] = []) -> [UInt8] {
        var entries = [
            long(256, [width]), long(257, [height]),
            short(258, [UInt16](repeating: bitsPerSample, count: Int(samplesPerPixel))),
            short(259, [1]), short(262, [photometric]), long(273, [0]), short(277, [samplesPerPixel]),
            long(278, [height]), long(279, [UInt32(data.count)]),
        ] + extra
        entries.sort { $0.tag < $1.tag }
        var next = 8 + 2 + entries.count * 12 + 4
        var offsets: [Int?] = []
        for e in entries {
            if e.payload.count > 4 {
                offsets.append(next)
                next += (e.payload.count + 1) & ~1  // word boundary
            } else {
                offsets.append(nil)
            }
        }
        let dataOffset = next
        let stripIndex = entries.firstIndex { $0.tag == 273 }!
        entries[stripIndex].payload = le(UInt32(dataOffset))

        var out: [UInt8] = [0x49, 0x49, 42, 0] + le(UInt32(8)) + le(UInt16(entries.count))
        for (e, offset) in zip(entries, offsets) {
            out += le(e.tag) + le(e.type) + le(e.count)
            if let offset {
                out += le(UInt32(offset))
            } else {
                // Values that fit are left-justified in the 4-byte field.
                out += e.payload + [UInt8](repeating: 0, count: 4 - e.payload.count)
            }
        }
        out += le(UInt32(0))
        for (e, offset) in zip(entries, offsets) where offset != nil {
            precondition(out.count == offset)
            out += e.payload
            if e.payload.count % 2 == 1 { out.append(0) }
        }
        precondition(out.count == dataOffset)
        return out + data
    }

    /// Little-endian bytes of an integer.
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

/// Reads `path` and returns the error, or records a test failure if it was read.
func readError(_ path: String, maximumPixelCount: Int = 250_000_000,
               sourceLocation: SourceLocation = #_sourceLocation) -> TIFFError? {
    do {
        let decoded = try TIFFReader.read(path: path, maximumPixelCount: maximumPixelCount)
        Issue.record("expected an error, read \(decoded.image.width)×\(decoded.image.height)",
                     sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
