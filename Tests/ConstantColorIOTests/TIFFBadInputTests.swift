import ConstantColor
import ConstantColorIO
import CTIFF
import Foundation
import Testing
import TestSupport

@Suite("TIFF reader refuses bad input")
struct TIFFBadInputTests {
    static let width = TestImages.width
    static let height = TestImages.height

    /// Asserts `error` is `.unsupported` and its text mentions every fragment.
    static func expectUnsupported(_ error: TIFFError?, mentioning fragments: [String],
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .unsupported = error else {
            Issue.record("expected unsupported, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        let text = error!.description
        for fragment in fragments {
            #expect(text.contains(fragment), "\(text)", sourceLocation: sourceLocation)
        }
        #expect(!text.contains("\n"), sourceLocation: sourceLocation)
    }

    @Test("missing file and folder are unreadable")
    func missingPath() throws {
        let folder = try TemporaryFolder()
        let missing = folder.file("nope.tif")
        let error = readError(missing)
        guard case .unreadable(let path, let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(path == missing)
        #expect(reason.contains("No such file"))
        #expect(error!.description.contains(missing))
        guard case .unreadable = readError(folder.path) else {
            Issue.record("a folder must be unreadable")
            return
        }
        let fifo = folder.file("pipe.tif")
        #expect(mkfifo(fifo, 0o600) == 0)
        guard case .unreadable(_, let fifoReason) = readError(fifo) else {
            Issue.record("a named pipe must be unreadable (and must not hang)")
            return
        }
        #expect(fifoReason.contains("not a regular file"))
    }

    @Test("garbage bytes and an empty file are corrupt")
    func garbage() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("garbage.tif")
        try Data("this is not a TIFF file at all, just text".utf8).write(to: URL(fileURLWithPath: path))
        let error = readError(path)
        guard case .corrupt(_, let detail) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(detail.contains("magic"), "libtiff's message is passed on: \(detail)")

        let empty = folder.file("empty.tif")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        guard case .corrupt = readError(empty) else {
            Issue.record("an empty file must be corrupt")
            return
        }
        // A TIFF header whose first IFD offset points far past the end.
        let header = folder.file("header.tif")
        try Data([0x49, 0x49, 42, 0, 0xFF, 0xFF, 0, 0]).write(to: URL(fileURLWithPath: header))
        guard case .corrupt = readError(header) else {
            Issue.record("a dangling IFD offset must be corrupt")
            return
        }
    }

    /// Deflate's zlib streams end with an Adler-32 of their data (RFC 1950). libtiff's decoder stops
    /// once it has the chunk's bytes: where damaged data inflate to more than that, it never reaches
    /// the checksum (a review's flash frame with two bytes flipped fused with exit 0 and 35 rows of
    /// garbage; Python's zlib said "incorrect data check"). Each chunk's stream is inflated to its
    /// end and its checksum verified. The damaged strip here inflates to its own 4 rows, then 64
    /// bytes more, then a checksum that does not match.
    @Test("a Deflate strip whose stream runs past the strip's bytes to a checksum that does not match is corrupt; the same strip intact reads")
    func deflateChecksum() throws {
        let folder = try TemporaryFolder()
        let width = 8, height = 8, rowsPerStrip = 4
        let samples = (0..<(width * height * 3)).map { UInt16(truncatingIfNeeded: $0 &* 977 &+ 1234) }
        func write(_ path: String, damaged: Bool) throws {
            let tif = try #require(TIFFOpen(path, "w"))
            for (tag, value) in [(TIFFTAG_IMAGEWIDTH, width), (TIFFTAG_IMAGELENGTH, height), (TIFFTAG_ROWSPERSTRIP, rowsPerStrip)] {
                _ = cc_tiff_set_u32(tif, UInt32(tag), UInt32(value))
            }
            for (tag, value) in [(TIFFTAG_BITSPERSAMPLE, 16), (TIFFTAG_SAMPLESPERPIXEL, 3), (TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_RGB)),
                                 (TIFFTAG_PLANARCONFIG, Int(PLANARCONFIG_CONTIG)), (TIFFTAG_COMPRESSION, Int(COMPRESSION_ADOBE_DEFLATE))] {
                _ = cc_tiff_set_u16(tif, UInt32(tag), UInt16(value))
            }
            for strip in 0..<(height / rowsPerStrip) {
                let count = rowsPerStrip * width * 3
                var data = samples[(strip * count)..<((strip + 1) * count)].withUnsafeBytes { [UInt8]($0) }
                if damaged && strip == 1 { data += [UInt8](repeating: 0xA5, count: 64) }
                var packed = [UInt8](repeating: 0, count: Int(compressBound(uLong(data.count))))
                var packedCount = uLong(packed.count)
                #expect(compress2(&packed, &packedCount, data, uLong(data.count), 6) == Z_OK)
                if damaged && strip == 1 { packed[Int(packedCount) - 1] ^= 0x5A }  // the checksum's last byte
                #expect(TIFFWriteRawStrip(tif, UInt32(strip), &packed, tmsize_t(packedCount)) == tmsize_t(packedCount))
            }
            TIFFClose(tif)
        }
        let intact = folder.file("intact.tif"), damaged = folder.file("damaged.tif")
        try write(intact, damaged: false)
        try write(damaged, damaged: true)
        #expect(try TIFFReader.read(path: intact).image.samples == (0..<(width * height * 3)).map { k in
            // planar Float from interleaved samples
            let plane = k / (width * height), pixel = k % (width * height)
            return Float(samples[pixel * 3 + plane])
        })
        let error = readError(damaged)
        guard case .corrupt(let p, let detail) = error else {
            Issue.record("a checksum that does not match must be corrupt, got \(String(describing: error))")
            return
        }
        #expect(p == damaged && detail.contains("strip 1") && detail.contains("Adler-32"), "\(detail)")
    }

    /// An 8 × 20 RGB 16-bit image written chunk by chunk with `write(tif, index, data)` (raw, as
    /// stored), with `tags` set besides the basic ones; `skip` chunks are never written (a sparse
    /// file: libtiff leaves their offset and byte count 0), `halved` chunks are written with the first
    /// half of their bytes only (their byte counts say so). Tiles are 16 × 16 (the image is one tile
    /// wide, two high, and overhangs them), strips 4 rows. Returns the samples, interleaved.
    static func writeChunks(_ path: String, tiled: Bool, compression: UInt16 = UInt16(COMPRESSION_NONE),
                            fillOrder: UInt16 = UInt16(FILLORDER_MSB2LSB), skip: Set<Int> = [], halved: Set<Int> = []) throws -> [UInt16] {
        let width = 8, height = 20, rowsPerChunk = tiled ? 16 : 4
        let samples = (0..<(width * height * 3)).map { UInt16(truncatingIfNeeded: $0 &* 977 &+ 1234) }
        let tif = try #require(TIFFOpen(path, "w"))
        for (tag, value) in [(TIFFTAG_IMAGEWIDTH, width), (TIFFTAG_IMAGELENGTH, height)] {
            _ = cc_tiff_set_u32(tif, UInt32(tag), UInt32(value))
        }
        if tiled {
            _ = cc_tiff_set_u32(tif, UInt32(TIFFTAG_TILEWIDTH), 16); _ = cc_tiff_set_u32(tif, UInt32(TIFFTAG_TILELENGTH), 16)
        } else {
            _ = cc_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(rowsPerChunk))
        }
        for (tag, value) in [(TIFFTAG_BITSPERSAMPLE, 16), (TIFFTAG_SAMPLESPERPIXEL, 3), (TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_RGB)),
                             (TIFFTAG_PLANARCONFIG, Int(PLANARCONFIG_CONTIG)), (TIFFTAG_COMPRESSION, Int(compression)),
                             (TIFFTAG_FILLORDER, Int(fillOrder))] {
            _ = cc_tiff_set_u16(tif, UInt32(tag), UInt16(value))
        }
        let chunkWidth = tiled ? 16 : width
        for chunk in 0..<((height + rowsPerChunk - 1) / rowsPerChunk) where !skip.contains(chunk) {
            // The chunk's rows, each padded to the chunk's width (a tile's overhang is zeros).
            var data: [UInt8] = []
            for y in (chunk * rowsPerChunk)..<((chunk + 1) * rowsPerChunk) where tiled || y < height {
                var row = [UInt16](repeating: 0, count: chunkWidth * 3)
                if y < height { row.replaceSubrange(0..<(width * 3), with: samples[(y * width * 3)..<((y + 1) * width * 3)]) }
                data += row.withUnsafeBytes { [UInt8]($0) }
            }
            if compression == UInt16(COMPRESSION_ADOBE_DEFLATE) {
                var packed = [UInt8](repeating: 0, count: Int(compressBound(uLong(data.count))))
                var packedCount = uLong(packed.count)
                #expect(compress2(&packed, &packedCount, data, uLong(data.count), 6) == Z_OK)
                data = Array(packed.prefix(Int(packedCount)))
            }
            if fillOrder == UInt16(FILLORDER_LSB2MSB) { TIFFReverseBits(&data, tmsize_t(data.count)) }
            if halved.contains(chunk) { data = Array(data.prefix(data.count / 2)) }
            let written = tiled ? TIFFWriteRawTile(tif, UInt32(chunk), &data, tmsize_t(data.count))
                                : TIFFWriteRawStrip(tif, UInt32(chunk), &data, tmsize_t(data.count))
            #expect(written == tmsize_t(data.count))
        }
        TIFFClose(tif)
        return samples
    }

    /// The planar Floats `TIFFReader` gives for interleaved RGB `samples` of `pixels` pixels.
    static func planar(_ samples: [UInt16], pixels: Int) -> [Float] {
        (0..<(pixels * 3)).map { k in Float(samples[(k % pixels) * 3 + k / pixels]) }
    }

    @Test("a strip or tile stored with no bytes (a sparse file's) is corrupt and named, not read from the file's header",
          arguments: [false, true])
    func missingChunk(tiled: Bool) throws {
        let folder = try TemporaryFolder()
        let whole = folder.file("whole.tif"), sparse = folder.file("sparse.tif")
        let samples = try Self.writeChunks(whole, tiled: tiled)
        #expect(try TIFFReader.read(path: whole).image.samples == Self.planar(samples, pixels: 8 * 20))
        // Tiles of 16 rows: the second of two; strips of 4 rows: the second of five.
        _ = try Self.writeChunks(sparse, tiled: tiled, skip: [1])
        let error = readError(sparse)
        guard case .corrupt(let p, let detail) = error else {
            Issue.record("a missing chunk must be corrupt, got \(String(describing: error))")
            return
        }
        #expect(p == sparse && detail.contains("\(tiled ? "tile" : "strip") 1 holds no data"), "\(detail)")
    }

    /// An uncompressed chunk whose byte count is half its pixels' bytes. libtiff replaces byte counts
    /// that do not fit the image by its own estimate and reads on, and reads a short last chunk's
    /// missing rows from whatever follows it (here the directory): a probe's frame so stored fused
    /// `constantColor` with 32 rows shifted, and the last strip's rows came from the directory.
    @Test("an uncompressed strip or tile whose byte count is short of its pixels is corrupt and named, first or last",
          arguments: [(false, 0), (false, 4), (true, 0), (true, 1)])
    func shortChunk(tiled: Bool, chunk: Int) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("short.tif")
        _ = try Self.writeChunks(path, tiled: tiled, halved: [chunk])
        let error = readError(path)
        guard case .corrupt(let p, let detail) = error else {
            Issue.record("a short chunk must be corrupt, got \(String(describing: error))")
            return
        }
        // Either libtiff found the counts unfit for the image (and would have guessed them), or the
        // chunk's own count is short of its rows.
        #expect(p == path && (detail.contains("byte counts (tags 279, 325) are missing or do not fit the image")
                              || detail.contains("\(tiled ? "tile" : "strip") \(chunk) is stored as")), "\(detail)")
    }

    /// A byte count that runs past the end of the file (the last strip's, larger than what is left):
    /// libtiff reads an uncompressed chunk's own size only, so the pixels came out whole and the
    /// damaged file passed without a word.
    @Test("a strip whose byte count runs past the end of the file is corrupt and named")
    func byteCountPastTheEnd() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("long.tif")
        _ = try Self.writeChunks(path, tiled: false)
        // The last strip's StripByteCounts value (SHORT or LONG, at the offset tag 279 gives) made
        // larger than the file.
        let tif = try #require(TIFFOpen(path, "r"))
        let offset = TIFFGetStrileOffset(tif, 4), count = TIFFGetStrileByteCount(tif, 4)
        TIFFClose(tif)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let entry = try #require(TIFFBytes.entryOffsetOfFirstIFD(bytes, tag: 279))
        let table = Int(UInt32(bytes[entry + 8]) | UInt32(bytes[entry + 9]) << 8 | UInt32(bytes[entry + 10]) << 16 | UInt32(bytes[entry + 11]) << 24)
        let size = bytes[entry + 2] == 3 ? 2 : 4
        let huge = size == 2 ? UInt32(60_000) : UInt32(count) + 1_000_000
        #expect(Int(huge) > bytes.count)
        for k in 0..<size { bytes[table + 4 * size + k] = UInt8(truncatingIfNeeded: huge >> (8 * UInt32(k))) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = readError(path)
        guard case .corrupt(let p, let detail) = error else {
            Issue.record("a byte count past the end must be corrupt, got \(String(describing: error))")
            return
        }
        // (libtiff may find the count unfit for the image itself, and say so first.)
        #expect(p == path && (detail.contains("strip 4 is cut short: the file holds \(bytes.count - Int(offset)) of its \(huge) stored bytes")
                              || detail.contains("byte counts (tags 279, 325) are missing or do not fit the image")), "\(detail)")
    }

    /// A file cut inside a tag's value (the last bytes libtiff wrote, the Software string's): libtiff
    /// drops the tag with a warning and the pixels are whole; the warning is kept for the caller
    /// (`InputFrame` says it), where before it was dropped and the damaged file passed without a word.
    @Test("a file cut inside a tag's value keeps libtiff's IO-error warning, and its pixels")
    func cutInsideATag() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("cut.tif")
        let tif = try #require(TIFFOpen(path, "w"))
        for (tag, value) in [(TIFFTAG_IMAGEWIDTH, 2), (TIFFTAG_IMAGELENGTH, 2), (TIFFTAG_ROWSPERSTRIP, 2)] {
            _ = cc_tiff_set_u32(tif, UInt32(tag), UInt32(value))
        }
        for (tag, value) in [(TIFFTAG_BITSPERSAMPLE, 8), (TIFFTAG_SAMPLESPERPIXEL, 1), (TIFFTAG_PHOTOMETRIC, Int(PHOTOMETRIC_MINISBLACK))] {
            _ = cc_tiff_set_u16(tif, UInt32(tag), UInt16(value))
        }
        _ = cc_tiff_set_string(tif, UInt32(TIFFTAG_SOFTWARE), "a writer with a long name")
        var data: [UInt8] = [1, 2, 3, 4]
        #expect(TIFFWriteRawStrip(tif, 0, &data, 4) == 4)
        TIFFClose(tif)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let entry = try #require(TIFFBytes.entryOffsetOfFirstIFD(bytes, tag: 305))
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        // The string's bytes end the file (libtiff writes the directory last, its values after it).
        try #require(u32(entry + 8) + u32(entry + 4) == bytes.count, "the Software string does not end the file")
        bytes.removeLast()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.image.samples == [1, 2, 3, 4])
        #expect(decoded.warnings.contains { $0.contains("IO error") && $0.contains("Software") }, "\(decoded.warnings)")
    }

    @Test("Deflate data stored with FillOrder 2 (bits reversed in each byte) reads as written, its checksum tested on the restored bytes")
    func deflateReversedBits() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("lsb.tif")
        let samples = try Self.writeChunks(path, tiled: false, compression: UInt16(COMPRESSION_ADOBE_DEFLATE),
                                           fillOrder: UInt16(FILLORDER_LSB2MSB))
        #expect(try TIFFReader.read(path: path).image.samples == Self.planar(samples, pixels: 8 * 20))
    }

    @Test("truncated files are corrupt", arguments: TIFFWriteOptions.Compression.allCases)
    func truncatedHalf(_ compression: TIFFWriteOptions.Compression) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("whole.tif")
        let image = TestImages.image(channels: 3, type: .uint16, seed: 11)
        try TIFFWriter.write(image, to: path, options: TIFFWriteOptions(sampleType: .uint16, compression: compression,
                                                                      rowsPerStrip: 4))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = folder.file("half.tif")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        guard case .corrupt = readError(cut) else {
            Issue.record("a file cut in half must be corrupt")
            return
        }
    }

    @Test("a readable directory with pixel data cut short is corrupt and names the strip")
    func truncatedPixelData() throws {
        let folder = try TemporaryFolder()
        let data = [UInt8](repeating: 0x40, count: Self.width * Self.height * 3 * 2)
        let whole = HandmadeTIFF.make(width: UInt32(Self.width), height: UInt32(Self.height), samplesPerPixel: 3,
                                      bitsPerSample: 16, photometric: 2, data: data)
        let complete = folder.file("complete.tif")
        try Data(whole).write(to: URL(fileURLWithPath: complete))
        let decoded = try TIFFReader.read(path: complete)
        #expect(decoded.image.samples.allSatisfy { $0 == 0x4040 })

        let cut = folder.file("cut.tif")
        try Data(whole.prefix(whole.count - data.count / 2)).write(to: URL(fileURLWithPath: cut))
        let error = readError(cut)
        guard case .corrupt(_, let detail) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(detail.contains("strip 0"), "\(detail)")
        // Said as a truncation, with the bytes present, not libtiff's "scanline 4294967295".
        #expect(detail.contains("strip 0 is cut short: the file holds \(data.count / 2) of its \(data.count) stored bytes")
                && !detail.contains("4294967295"), "\(detail)")
    }

    @Test("damaged compressed data is corrupt")
    func damagedDeflate() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("damaged.tif")
        let image = TestImages.image(channels: 3, type: .uint16, seed: 12)
        try TIFFWriter.write(image, to: path, options: TIFFWriteOptions(sampleType: .uint16, compression: .deflate,
                                                                      rowsPerStrip: 4))
        // libtiff writes the first strip right after the 8-byte header: wreck its zlib header.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for i in 8..<40 { bytes[i] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .corrupt(_, let detail) = readError(path) else {
            Issue.record("damaged Deflate data must be corrupt")
            return
        }
        #expect(detail.contains("strip 0"), "\(detail)")
    }

    @Test("12-bit samples are unsupported")
    func twelveBit() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("twelve.tif")
        var fields = RawTIFF.Fields()
        fields.bitsPerSample = 12
        let rowBytes = (Self.width * 12 + 7) / 8
        #expect(RawTIFF.write(path, fields, data: [UInt8](repeating: 7, count: rowBytes * Self.height)))
        Self.expectUnsupported(readError(path), mentioning: ["12-bit", path])
    }

    @Test("palette color is unsupported")
    func palette() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("palette.tif")
        var fields = RawTIFF.Fields()
        fields.photometric = UInt16(PHOTOMETRIC_PALETTE)
        let map = (0..<256).map { UInt16($0 * 257) }
        #expect(RawTIFF.write(path, fields, data: [UInt8](repeating: 3, count: Self.width * Self.height)) { tif in
            _ = map.withUnsafeBufferPointer { cc_tiff_set_colormap(tif, $0.baseAddress, $0.baseAddress, $0.baseAddress) }
        })
        Self.expectUnsupported(readError(path), mentioning: ["palette"])
    }

    @Test("YCbCr with JPEG compression is unsupported; so is uncompressed YCbCr")
    func ycbcrJPEG() throws {
        let folder = try TemporaryFolder()
        #expect(TIFFIsCODECConfigured(UInt16(COMPRESSION_JPEG)) == 1, "this libtiff has no JPEG codec")
        let path = folder.file("jpeg.tif")
        var fields = RawTIFF.Fields()
        fields.width = 32
        fields.height = 16
        fields.samplesPerPixel = 3
        fields.photometric = UInt16(PHOTOMETRIC_YCBCR)
        fields.compression = UInt16(COMPRESSION_JPEG)
        let rgb = [UInt8](repeating: 128, count: 32 * 16 * 3)
        #expect(RawTIFF.write(path, fields, data: rgb) { tif in
            _ = cc_tiff_set_u16(tif, UInt32(TIFFTAG_JPEGCOLORMODE), UInt16(JPEGCOLORMODE_RGB))
        })
        Self.expectUnsupported(readError(path), mentioning: ["JPEG"])

        let plain = folder.file("ycbcr.tif")
        fields.compression = UInt16(COMPRESSION_NONE)
        #expect(RawTIFF.write(plain, fields, data: rgb) { tif in
            _ = cc_tiff_set_ycbcr_subsampling(tif, 1, 1)
        })
        Self.expectUnsupported(readError(plain), mentioning: ["YCbCr"])
    }

    @Test("2 samples, signed integers, 64-bit float, MinIsWhite are unsupported")
    func otherLayouts() throws {
        let folder = try TemporaryFolder()
        let pixels = Self.width * Self.height

        var twoSamples = RawTIFF.Fields()
        twoSamples.samplesPerPixel = 2
        twoSamples.extraSamples = [UInt16(EXTRASAMPLE_UNASSALPHA)]
        let p2 = folder.file("two.tif")
        #expect(RawTIFF.write(p2, twoSamples, data: [UInt8](repeating: 1, count: pixels * 2)))
        Self.expectUnsupported(readError(p2), mentioning: ["2 samples"])

        var signed = RawTIFF.Fields()
        signed.bitsPerSample = 16
        signed.sampleFormat = UInt16(SAMPLEFORMAT_INT)
        let ps = folder.file("signed.tif")
        #expect(RawTIFF.write(ps, signed, data: [UInt8](repeating: 1, count: pixels * 2)))
        Self.expectUnsupported(readError(ps), mentioning: ["16-bit signed integer"])

        var double = RawTIFF.Fields()
        double.bitsPerSample = 64
        double.sampleFormat = UInt16(SAMPLEFORMAT_IEEEFP)
        let pd = folder.file("double.tif")
        #expect(RawTIFF.write(pd, double, data: RawTIFF.bytes([Double](repeating: 0.5, count: pixels))))
        Self.expectUnsupported(readError(pd), mentioning: ["64-bit floating-point", "supported: 8/16-bit unsigned integer, 16/32-bit float"])
        // (16-bit floats are read: TIFFHalfFloatTests.)

        var minIsWhite = RawTIFF.Fields()
        minIsWhite.photometric = UInt16(PHOTOMETRIC_MINISWHITE)
        let pw = folder.file("white.tif")
        #expect(RawTIFF.write(pw, minIsWhite, data: [UInt8](repeating: 1, count: pixels)))
        Self.expectUnsupported(readError(pw), mentioning: ["MinIsWhite"])
    }

    @Test("a Predictor tag with no compression (or PackBits) is refused: libtiff would hand back the differences as samples")
    func predictorWithoutCodec() throws {
        let folder = try TemporaryFolder()
        let data = [UInt8](repeating: 7, count: 8 * 4 * 3 * 2)
        let path = folder.file("predictor.tif")
        try Data(HandmadeTIFF.make(width: 8, height: 4, samplesPerPixel: 3, bitsPerSample: 16, photometric: 2, data: data,
                                   extra: [HandmadeTIFF.short(317, [2])])).write(to: URL(fileURLWithPath: path))
        Self.expectUnsupported(readError(path), mentioning: ["predictor.tif", "Predictor 2", "no compression"])
        // Predictor 1 (none) is fine.
        let none = folder.file("predictor1.tif")
        try Data(HandmadeTIFF.make(width: 8, height: 4, samplesPerPixel: 3, bitsPerSample: 16, photometric: 2, data: data,
                                   extra: [HandmadeTIFF.short(317, [1])])).write(to: URL(fileURLWithPath: none))
        #expect(try TIFFReader.read(path: none).image.width == 8)
    }

    @Test("associated alpha and a reduced-resolution first image are unsupported")
    func alphaAndPreview() throws {
        let folder = try TemporaryFolder()
        var rgba = RawTIFF.Fields()
        rgba.samplesPerPixel = 4
        rgba.photometric = UInt16(PHOTOMETRIC_RGB)
        rgba.extraSamples = [UInt16(EXTRASAMPLE_ASSOCALPHA)]
        let premultiplied = folder.file("premultiplied.tif")
        #expect(RawTIFF.write(premultiplied, rgba, data: [UInt8](repeating: 9, count: Self.width * Self.height * 4)))
        Self.expectUnsupported(readError(premultiplied), mentioning: ["premultiplied"])

        let preview = folder.file("preview.tif")
        #expect(RawTIFF.write(preview, RawTIFF.Fields(), data: [UInt8](repeating: 9, count: Self.width * Self.height)) {
            _ = cc_tiff_set_u32($0, UInt32(TIFFTAG_SUBFILETYPE), UInt32(FILETYPE_REDUCEDIMAGE))
        })
        Self.expectUnsupported(readError(preview), mentioning: ["reduced-resolution"])
    }

    @Test("every orientation (2…8) is read as stored and reported, not turned and not refused", arguments: [2, 3, 4, 5, 6, 7, 8])
    func orientation(_ value: Int) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("turned.tif")
        var fields = RawTIFF.Fields()
        fields.orientation = UInt16(value)
        let data = (0..<(Self.width * Self.height)).map { UInt8($0 % 251) }
        #expect(RawTIFF.write(path, fields, data: data))
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.orientation == value)
        #expect(decoded.image.width == Self.width && decoded.image.height == Self.height)
        #expect(decoded.image.samples == data.map { Float($0) })
    }

    @Test("an Orientation outside 1…8 is refused with its stored value (libtiff would hand over its default, 1)",
          arguments: [0, 9, 65535])
    func invalidOrientation(_ value: Int) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("orientation.tif")
        let data = [UInt8](repeating: 0x40, count: Self.width * Self.height * 3 * 2)
        let bytes = HandmadeTIFF.make(width: UInt32(Self.width), height: UInt32(Self.height), samplesPerPixel: 3, bitsPerSample: 16,
                                      photometric: 2, data: data, extra: [HandmadeTIFF.short(274, [UInt16(value)])])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .corrupt(let p, let detail) = readError(path) else {
            Issue.record("Orientation \(value) must be refused")
            return
        }
        #expect(p == path && detail.contains("Orientation tag \(value): not a valid orientation"), "\(detail)")
    }

    @Test("more pixels than allowed is refused before decoding")
    func tooLarge() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("big.tif")
        try TIFFWriter.write(TestImages.image(channels: 3, type: .uint8), to: path,
                             options: TIFFWriteOptions(sampleType: .uint8))
        let limit = Self.width * Self.height - 1
        #expect(readError(path, maximumPixelCount: limit)
                == .tooLarge(path: path, width: Self.width, height: Self.height, limit: limit))
        #expect(try TIFFReader.read(path: path, maximumPixelCount: limit + 1).image.width == Self.width)

        // A header claiming 100000 × 100000 pixels with almost no data behind it.
        let huge = folder.file("huge.tif")
        try Data(HandmadeTIFF.make(width: 100_000, height: 100_000, samplesPerPixel: 1, bitsPerSample: 8,
                                   photometric: 1, data: [0, 0, 0, 0])).write(to: URL(fileURLWithPath: huge))
        guard case .tooLarge(_, 100_000, 100_000, 250_000_000) = readError(huge) else {
            Issue.record("a 10-gigapixel header must be too large")
            return
        }
    }

    @Test("a zero-width image is corrupt")
    func zeroSize() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("zero.tif")
        try Data(HandmadeTIFF.make(width: 0, height: 5, samplesPerPixel: 1, bitsPerSample: 8,
                                   photometric: 1, data: [0])).write(to: URL(fileURLWithPath: path))
        guard case .corrupt = readError(path) else {
            Issue.record("zero width must be corrupt")
            return
        }
    }

    @Test("NaN and infinity in a float file name the first bad pixel",
          arguments: [Float.nan, .infinity, -.infinity])
    func nonFinite(_ bad: Float) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("nonfinite.tif")
        var samples = (0..<(Self.width * Self.height * 3)).map { Float($0) * 0.25 }
        // Interleaved RGB: pixel (x, y) channel c is at (y * width + x) * 3 + c.
        samples[(17 * Self.width + 30) * 3 + 2] = bad  // later in raster order
        samples[(9 * Self.width + 21) * 3 + 1] = bad   // the first one
        samples[(9 * Self.width + 25) * 3 + 0] = bad   // same row, further right
        var fields = RawTIFF.Fields()
        fields.samplesPerPixel = 3
        fields.photometric = UInt16(PHOTOMETRIC_RGB)
        fields.bitsPerSample = 32
        fields.sampleFormat = UInt16(SAMPLEFORMAT_IEEEFP)
        #expect(RawTIFF.write(path, fields, data: RawTIFF.bytes(samples)))
        let error = readError(path)
        #expect(error == .nonFinite(path: path, x: 21, y: 9, channel: 1))
        #expect(error?.description.contains("x=21, y=9, channel 1") == true)
    }

    @Test("the writer refuses non-finite samples and leaves no file")
    func writerRefusesNonFinite() throws {
        let folder = try TemporaryFolder()
        var image = TestImages.image(channels: 3, type: .float32)
        image[5, 7, 2] = .nan
        let path = folder.file("out.tif")
        for type in TIFFWriteOptions.SampleType.allCases {
            #expect(throws: TIFFError.nonFinite(path: path, x: 5, y: 7, channel: 2)) {
                try TIFFWriter.write(image, to: path, options: TIFFWriteOptions(sampleType: type))
            }
        }
        #expect(try folder.contents().isEmpty)
    }

    @Test("error descriptions are one line naming the file")
    func descriptions() {
        let errors: [TIFFError] = [
            .unreadable(path: "a.tif", reason: "No such file\nor directory"),
            .corrupt(path: "a.tif", detail: "bad"),
            .unsupported(path: "a.tif", what: "12-bit"),
            .tooLarge(path: "a.tif", width: 10, height: 10, limit: 5),
            .nonFinite(path: "a.tif", x: 1, y: 2, channel: 0),
            .outputIsInput(path: "a.tif"),
            .writeFailed(path: "a.tif", detail: "disk full"),
        ]
        for error in errors {
            #expect(error.description.contains("a.tif"))
            #expect(!error.description.contains("\n"))
            #expect(error.path == "a.tif")
        }
    }
}
