import CTIFF
import Foundation

/// The sample types this package reads and writes.
enum TIFFSampleKind: Sendable, Equatable {
    /// BitsPerSample 8, SampleFormat 1 (unsigned integer).
    case uint8
    /// BitsPerSample 16, SampleFormat 1.
    case uint16
    /// BitsPerSample 16, SampleFormat 3 (IEEE binary16, "half"); read only.
    case float16
    /// BitsPerSample 32, SampleFormat 3 (IEEE floating point).
    case float32

    /// Bytes per stored sample.
    var byteCount: Int {
        switch self {
        case .uint8: return 1
        case .uint16, .float16: return 2
        case .float32: return 4
        }
    }

    /// IEEE floating-point samples (SampleFormat 3).
    var isFloatingPoint: Bool { self == .float16 || self == .float32 }

    /// An alpha sample's value for full coverage (TIFF 6.0 section 18: alpha runs from 0, clear, to
    /// the largest code, opaque; floating-point alpha to 1).
    var opaqueAlpha: Float {
        switch self {
        case .uint8: return 255
        case .uint16: return 65535
        case .float16, .float32: return 1
        }
    }
}

/// How the pixel data of a directory is cut into separately decoded chunks.
enum TIFFChunking: Sendable, Equatable {
    /// Strips of `rowsPerStrip` full-width rows (the last one may be shorter).
    case strips(rowsPerStrip: Int)
    /// Tiles of `width` × `length` pixels; edge tiles are padded to the full size.
    case tiles(width: Int, length: Int)
}

/// The validated layout of the first directory of a TIFF file: everything the decoder needs.
///
/// Built by reading and checking the directory's tags (TIFF 6.0 sections 3–8, 14, 15, 19) before
/// any pixel memory is allocated; every layout this package does not decode is refused here with
/// a message naming it.
struct TIFFLayout: Sendable {
    /// Image width in pixels.
    let width: Int
    /// Image height in pixels.
    let height: Int
    /// SamplesPerPixel in the file (1, or 3 and more for RGB).
    let samplesPerPixel: Int
    /// Channels kept in the decoded image: 1 (grayscale) or 3 (RGB; extra samples dropped).
    let outputChannelCount: Int
    /// The stored sample type.
    let sampleKind: TIFFSampleKind
    /// PlanarConfiguration 2: each sample in its own strips or tiles.
    let isPlanarSeparate: Bool
    /// Strips or tiles.
    let chunking: TIFFChunking
    /// Size in bytes of the largest decoded chunk (`TIFFStripSize` / `TIFFTileSize`).
    let chunkByteCount: Int
    /// The Orientation tag (274, TIFF 6.0 section 8), 1…8: where the stored row 0 and column 0
    /// are meant to be shown. The samples are decoded as stored, not turned.
    let orientation: Int
    /// Deflate (8 or 32946): each chunk is a zlib stream whose Adler-32 the decoder checks
    /// (`cc_tiff_deflate_chunk_is_intact`).
    let isDeflate: Bool
    /// Whether the chunks are stored uncompressed (Compression 1): each then holds its rows' bytes.
    let isUncompressed: Bool
    /// The index of an RGB file's unassociated alpha sample (ExtraSamples 2), whose coverage the
    /// decoder counts (`TransparentPixels`); nil where there is none.
    let alphaSample: Int?

    /// Rows covered by one strip or one row of tiles.
    var rowsPerUnit: Int {
        switch chunking {
        case .strips(let rows): return rows
        case .tiles(_, let length): return length
        }
    }

    /// Number of strips per plane, or of tile rows.
    var unitCount: Int { (height + rowsPerUnit - 1) / rowsPerUnit }

    /// Samples per pixel inside one decoded chunk: 1 for planar-separate files.
    var samplesPerChunkPixel: Int { isPlanarSeparate ? 1 : samplesPerPixel }

    /// Reads and validates the current directory of `handle`.
    ///
    /// Refuses (before allocating) zero-sized images, more than `maximumPixelCount` pixels,
    /// compression other than none / LZW / Deflate / PackBits, photometric interpretations other
    /// than MinIsBlack (1 sample) and RGB (3 or more samples), bit depths other than 8/16-bit
    /// unsigned and 16/32-bit float, an Orientation value outside 1…8, a reduced-resolution first
    /// image and associated (premultiplied) alpha.
    init(handle: TIFFHandle, path: String, maximumPixelCount: Int) throws(TIFFError) {
        let tif = handle.tif
        var width32: UInt32 = 0
        var height32: UInt32 = 0
        guard cc_tiff_get_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), &width32) == 1,
              cc_tiff_get_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), &height32) == 1 else {
            throw .corrupt(path: path, detail: "ImageWidth or ImageLength tag missing")
        }
        let width = Int(width32)
        let height = Int(height32)
        guard width > 0, height > 0 else {
            throw .corrupt(path: path, detail: "image is \(width)×\(height) pixels (zero size)")
        }
        guard width * height <= maximumPixelCount else {
            throw .tooLarge(path: path, width: width, height: height, limit: maximumPixelCount)
        }

        // Where the directory's StripByteCounts or TileByteCounts are missing or do not fit the image,
        // libtiff replaces them by its own estimate from the image's size and reads on: an
        // uncompressed strip declared (and stored) at half its size was read into the next strip's
        // bytes, and a probe's pair fused `constantColor` with 32 rows shifted. The stored chunks'
        // sizes are unknown, so the file is refused — unless the estimate runs past the file's end:
        // then the file is cut short, which reading the chunk says more precisely (how many of its
        // bytes the file holds).
        if let guessed = handle.messages.warningList.first(where: { $0.contains("calculating from imagelength") }) {
            let fileSize = Self.fileSize(of: tif) ?? UInt64.max
            let chunks = TIFFIsTiled(tif) != 0 ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif)
            let fits = (0..<chunks).allSatisfy { k in
                let offset = TIFFGetStrileOffset(tif, k), count = TIFFGetStrileByteCount(tif, k)
                return offset <= fileSize && count <= fileSize - offset
            }
            if fits {
                throw .corrupt(path: path, detail: "its strip or tile byte counts (tags 279, 325) are missing or do not fit the image, "
                               + "so where each chunk's pixels end is unknown (libtiff: \(guessed))")
            }
        }

        var compression: UInt16 = 1
        _ = cc_tiff_get_u16_defaulted(tif, UInt32(TIFFTAG_COMPRESSION), &compression)
        guard Self.supportedCompressions.contains(compression) else {
            throw .unsupported(path: path, what: "\(Self.compressionName(compression)) compression (\(compression)); "
                               + "supported: none, LZW, Deflate, PackBits")
        }
        // libtiff undoes a predictor only inside the codecs that define one (LZW, Deflate) and drops
        // the tag with others: with none or PackBits the samples would be read as the differences
        // they hold. The tag is read from the file itself.
        if !Self.predictorCompressions.contains(compression),
           let predictor = TIFFRawDirectory.integerTag(317, of: tif, path: path), predictor != 1 {
            throw .unsupported(path: path, what: "Predictor \(predictor) with \(Self.compressionName(compression)) compression "
                               + "(libtiff applies a predictor only with LZW or Deflate, so the samples would be read as differences); "
                               + "save the file without the predictor, or with LZW or Deflate")
        }

        var samplesPerPixel16: UInt16 = 1
        _ = cc_tiff_get_u16_defaulted(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), &samplesPerPixel16)
        let samplesPerPixel = Int(samplesPerPixel16)
        var photometric: UInt16 = 0
        guard cc_tiff_get_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), &photometric) == 1 else {
            throw .corrupt(path: path, detail: "PhotometricInterpretation tag missing")
        }
        switch photometric {
        case UInt16(PHOTOMETRIC_MINISBLACK):
            guard samplesPerPixel == 1 else {
                throw .unsupported(path: path, what: "\(samplesPerPixel) samples per pixel with MinIsBlack photometric; "
                                   + "supported: 1 (grayscale, for maps), or RGB photometric with 3 samples or more (camera frames)")
            }
        case UInt16(PHOTOMETRIC_RGB):
            guard samplesPerPixel >= 3 else {
                throw .unsupported(path: path, what: "\(samplesPerPixel) samples per pixel with RGB photometric")
            }
        default:
            throw .unsupported(path: path, what: "\(Self.photometricName(photometric)) photometric interpretation "
                               + "(\(photometric)); supported: RGB with 3 samples or more (camera frames), MinIsBlack with 1 (maps)")
        }

        var bitsPerSample: UInt16 = 1
        _ = cc_tiff_get_u16_defaulted(tif, UInt32(TIFFTAG_BITSPERSAMPLE), &bitsPerSample)
        var sampleFormat: UInt16 = 1
        _ = cc_tiff_get_u16_defaulted(tif, UInt32(TIFFTAG_SAMPLEFORMAT), &sampleFormat)
        let sampleKind: TIFFSampleKind
        switch (sampleFormat, bitsPerSample) {
        case (UInt16(SAMPLEFORMAT_UINT), 8): sampleKind = .uint8
        case (UInt16(SAMPLEFORMAT_UINT), 16): sampleKind = .uint16
        case (UInt16(SAMPLEFORMAT_IEEEFP), 16): sampleKind = .float16
        case (UInt16(SAMPLEFORMAT_IEEEFP), 32): sampleKind = .float32
        default:
            throw .unsupported(path: path, what: "\(bitsPerSample)-bit \(Self.sampleFormatName(sampleFormat)) samples; "
                               + "supported: 8/16-bit unsigned integer, 16/32-bit float")
        }

        var orientation: UInt16 = 1
        _ = cc_tiff_get_u16_defaulted(tif, UInt32(TIFFTAG_ORIENTATION), &orientation)
        // libtiff drops an Orientation outside 1…8 (with a warning) and hands over its default 1: the
        // stored value is read from the entry itself (an Orientation of 9 was read as 1, silently).
        let storedOrientation = TIFFRawDirectory.integerTag(274, of: tif, path: path).map(Int.init) ?? Int(orientation)
        guard TIFFOrientation(storedOrientation) != nil else {
            throw .corrupt(path: path, detail: "Orientation tag \(storedOrientation): not a valid orientation (TIFF 6.0 defines 1 to 8)")
        }

        var subfileType: UInt32 = 0
        _ = cc_tiff_get_u32_defaulted(tif, UInt32(TIFFTAG_SUBFILETYPE), &subfileType)
        guard subfileType & UInt32(FILETYPE_REDUCEDIMAGE) == 0 else {
            throw .unsupported(path: path, what: "the first image is a reduced-resolution preview "
                               + "(NewSubfileType \(subfileType)); save the full-resolution image first")
        }

        // Premultiplied colors cannot be measured once alpha is dropped (TIFF 6.0 section 18).
        var extraCount: UInt16 = 0
        var extraTypes: UnsafePointer<UInt16>?
        var alphaSample: Int? = nil
        if cc_tiff_get_extrasamples(tif, &extraCount, &extraTypes) == 1, let extraTypes {
            if (0..<Int(extraCount)).contains(where: { extraTypes[$0] == UInt16(EXTRASAMPLE_ASSOCALPHA) }) {
                throw .unsupported(path: path, what: "associated (premultiplied) alpha; "
                                   + "save without alpha or with unassociated alpha")
            }
            // The extra samples are the last ExtraSamples-count of the pixel's samples.
            if photometric == UInt16(PHOTOMETRIC_RGB), Int(extraCount) <= samplesPerPixel - 3,
               let e = (0..<Int(extraCount)).first(where: { extraTypes[$0] == UInt16(EXTRASAMPLE_UNASSALPHA) }) {
                alphaSample = samplesPerPixel - Int(extraCount) + e
            }
        }

        var planarConfig: UInt16 = 1
        _ = cc_tiff_get_u16_defaulted(tif, UInt32(TIFFTAG_PLANARCONFIG), &planarConfig)
        guard planarConfig == 1 || planarConfig == 2 else {
            throw .unsupported(path: path, what: "planar configuration \(planarConfig)")
        }
        let isPlanarSeparate = planarConfig == 2 && samplesPerPixel > 1

        let chunking: TIFFChunking
        let chunkByteCount: Int
        let chunkCount: Int
        let outputChannelCount = samplesPerPixel == 1 ? 1 : 3
        let planesStored = isPlanarSeparate ? samplesPerPixel : 1
        if TIFFIsTiled(tif) != 0 {
            var tileWidth: UInt32 = 0
            var tileLength: UInt32 = 0
            guard cc_tiff_get_u32(tif, UInt32(TIFFTAG_TILEWIDTH), &tileWidth) == 1,
                  cc_tiff_get_u32(tif, UInt32(TIFFTAG_TILELENGTH), &tileLength) == 1,
                  tileWidth > 0, tileLength > 0 else {
                throw .corrupt(path: path, detail: "tiled image without a valid TileWidth/TileLength")
            }
            // A tile may legitimately be larger than a small image, but never absurdly large.
            let tilePixels = Int(tileWidth) * Int(tileLength)
            guard tilePixels <= max(maximumPixelCount, 1 << 24) else {
                throw .unsupported(path: path, what: "tiles of \(tileWidth)×\(tileLength) pixels")
            }
            chunking = .tiles(width: Int(tileWidth), length: Int(tileLength))
            chunkByteCount = Int(TIFFTileSize(tif))
            let across = (width + Int(tileWidth) - 1) / Int(tileWidth)
            let down = (height + Int(tileLength) - 1) / Int(tileLength)
            chunkCount = across * down * planesStored
            guard Int(TIFFNumberOfTiles(tif)) >= chunkCount else {
                throw .corrupt(path: path, detail: "\(TIFFNumberOfTiles(tif)) tiles, expected \(chunkCount)")
            }
        } else {
            var rowsPerStrip: UInt32 = UInt32.max
            _ = cc_tiff_get_u32_defaulted(tif, UInt32(TIFFTAG_ROWSPERSTRIP), &rowsPerStrip)
            let rows = Int(min(max(rowsPerStrip, 1), height32))
            chunking = .strips(rowsPerStrip: rows)
            chunkByteCount = Int(TIFFStripSize(tif))
            chunkCount = (height + rows - 1) / rows * planesStored
            guard Int(TIFFNumberOfStrips(tif)) >= chunkCount else {
                throw .corrupt(path: path, detail: "\(TIFFNumberOfStrips(tif)) strips, expected \(chunkCount)")
            }
        }
        let rowsPerChunk: Int
        let columnsPerChunk: Int
        switch chunking {
        case .strips(let rows): (rowsPerChunk, columnsPerChunk) = (rows, width)
        case .tiles(let w, let l): (rowsPerChunk, columnsPerChunk) = (l, w)
        }
        let expectedChunkBytes = rowsPerChunk * columnsPerChunk * (isPlanarSeparate ? 1 : samplesPerPixel)
            * sampleKind.byteCount
        guard chunkByteCount >= expectedChunkBytes else {
            throw .corrupt(path: path, detail: "libtiff reports \(chunkByteCount)-byte chunks, expected \(expectedChunkBytes)"
                           + (handle.messages.errors.isEmpty ? "" : " (\(handle.messages.errors))"))
        }

        self.width = width
        self.height = height
        self.samplesPerPixel = samplesPerPixel
        self.outputChannelCount = outputChannelCount
        self.sampleKind = sampleKind
        self.isPlanarSeparate = isPlanarSeparate
        self.alphaSample = alphaSample
        self.chunking = chunking
        self.chunkByteCount = chunkByteCount
        self.orientation = Int(orientation)
        isDeflate = compression == 8 || compression == 32946
        isUncompressed = compression == 1
    }

    /// The size in bytes of the file `tif` reads (nil where it cannot be known).
    static func fileSize(of tif: OpaquePointer) -> UInt64? {
        var status = stat()
        return fstat(TIFFFileno(tif), &status) == 0 ? UInt64(status.st_size) : nil
    }

    /// COMPRESSION_NONE, LZW, ADOBE_DEFLATE, DEFLATE, PACKBITS.
    static let supportedCompressions: Set<UInt16> = [1, 5, 8, 32946, 32773]
    /// The supported compressions whose codec applies the Predictor tag (TIFF 6.0 section 14;
    /// Adobe's TIFF Technical Note 3 for Deflate and the floating-point predictor).
    static let predictorCompressions: Set<UInt16> = [5, 8, 32946]

    /// Names of TIFF Compression values (TIFF 6.0 section 8 and the TIFF Technical Notes).
    static func compressionName(_ value: UInt16) -> String {
        switch value {
        case 1: return "no"
        case 2: return "CCITT RLE"
        case 3: return "CCITT Group 3"
        case 4: return "CCITT Group 4"
        case 5: return "LZW"
        case 6: return "old-style JPEG"
        case 7: return "JPEG"
        case 8, 32946: return "Deflate"
        case 32773: return "PackBits"
        case 34676, 34677: return "SGI Log"
        case 34712: return "JPEG 2000"
        case 34887: return "LERC"
        case 34925: return "LZMA"
        case 50000: return "Zstandard"
        case 50001: return "WebP"
        case 50002: return "JPEG XL"
        default: return "unknown"
        }
    }

    /// Names of PhotometricInterpretation values (TIFF 6.0 section 3, 5, 16, 21, 23).
    static func photometricName(_ value: UInt16) -> String {
        switch value {
        case 0: return "MinIsWhite"
        case 1: return "MinIsBlack"
        case 2: return "RGB"
        case 3: return "palette color"
        case 4: return "transparency mask"
        case 5: return "separated (CMYK)"
        case 6: return "YCbCr"
        case 8: return "CIELab"
        case 9: return "ICCLab"
        case 10: return "ITULab"
        case 32803: return "color filter array"
        case 32844: return "LogL"
        case 32845: return "LogLuv"
        case 34892: return "LinearRaw"
        default: return "unknown"
        }
    }

    /// Names of SampleFormat values (TIFF 6.0 section 19).
    static func sampleFormatName(_ value: UInt16) -> String {
        switch value {
        case 1: return "unsigned integer"
        case 2: return "signed integer"
        case 3: return "floating-point"
        case 4: return "untyped"
        case 5: return "complex signed integer"
        case 6: return "complex floating-point"
        default: return "format \(value)"
        }
    }
}
