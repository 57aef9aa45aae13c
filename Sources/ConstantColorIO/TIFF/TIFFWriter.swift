import ConstantColor
#if canImport(Glibc)
import Glibc
#endif
import CTIFF

/// Writes planar `Float` images as TIFF files (TIFF 6.0, through libtiff), atomically.
public enum TIFFWriter {
    /// Writes `image` (1 channel: MinIsBlack; 3: RGB; 4: RGB + unassociated alpha) to `path`.
    ///
    /// Integer sample types clamp and round to nearest, ties to even; every sample must be finite
    /// (a NaN or infinity is refused as `nonFinite`, naming the first one in raster order). The file is
    /// written to a temporary file next to `path` and renamed into place (`AtomicFile`); nothing
    /// is left behind on failure. Refuses with `outputIsInput` when `path` resolves (through
    /// symbolic or hard links) to one of `protectedPaths`. With `staging`, the file is renamed into
    /// place only when the set is committed (`AtomicFileSet`).
    public static func write(_ image: PlanarImage, to path: String, options: TIFFWriteOptions,
                             protectedPaths: [String] = [], staging: AtomicFileSet? = nil) throws(TIFFError) {
        if AtomicFile.isProtected(path, protectedPaths: protectedPaths) { throw .outputIsInput(path: path) }
        try validate(image, options: options, path: path)
        let bad = image.samples.withUnsafeBufferPointer {
            firstNonFiniteSample($0, width: image.width, height: image.height, channelCount: image.channelCount)
        }
        if let bad { throw .nonFinite(path: path, x: bad.x, y: bad.y, channel: bad.channel) }

        try AtomicFile.withTemporaryPath(for: path, protectedPaths: protectedPaths, staging: staging, mapError: { error in
            switch error {
            case .outputIsInput(let p): return TIFFError.outputIsInput(path: p)
            case .writeFailed(let p, let reason): return TIFFError.writeFailed(path: p, detail: reason)
            }
        }) { (temporary: String) throws(TIFFError) in
            try encode(image, to: temporary, reportedPath: path, options: options)
        }
    }

    /// Writes a 3-channel image as 16-bit RGB with an optional ICC profile; input samples are
    /// data numbers 0…65535 (clamped, rounded to nearest with ties to even).
    public static func writeRGB16(_ image: PlanarImage, to path: String, iccProfile: [UInt8]?,
                                  compression: TIFFWriteOptions.Compression = .none, orientation: Int = 1,
                                  resolution: TIFFResolution? = nil,
                                  protectedPaths: [String] = [], staging: AtomicFileSet? = nil) throws(TIFFError) {
        guard image.channelCount == 3 else {
            throw .writeFailed(path: path, detail: "a 16-bit RGB file needs 3 channels, the image has \(image.channelCount)")
        }
        try write(image, to: path,
                  options: TIFFWriteOptions(sampleType: .uint16, compression: compression, iccProfile: iccProfile,
                                            orientation: orientation, resolution: resolution),
                  protectedPaths: protectedPaths, staging: staging)
    }

    /// Writes a 1- or 3-channel image as 32-bit float samples, unchanged.
    public static func writeFloat(_ image: PlanarImage, to path: String,
                                  compression: TIFFWriteOptions.Compression = .none, orientation: Int = 1,
                                  resolution: TIFFResolution? = nil, protectedPaths: [String] = [], staging: AtomicFileSet? = nil) throws(TIFFError) {
        guard image.channelCount == 1 || image.channelCount == 3 else {
            throw .writeFailed(path: path, detail: "a float file needs 1 or 3 channels, the image has \(image.channelCount)")
        }
        try write(image, to: path, options: TIFFWriteOptions(sampleType: .float32, compression: compression, orientation: orientation,
                                                             resolution: resolution),
                  protectedPaths: protectedPaths, staging: staging)
    }

    /// Checks what can be checked before creating any file.
    static func validate(_ image: PlanarImage, options: TIFFWriteOptions, path: String) throws(TIFFError) {
        guard [1, 3, 4].contains(image.channelCount) else {
            throw .writeFailed(path: path, detail: "\(image.channelCount) channels; TIFF output takes 1, 3 or 4")
        }
        guard image.width > 0, image.height > 0, image.width <= Int(UInt32.max), image.height <= Int(UInt32.max) else {
            throw .writeFailed(path: path, detail: "image is \(image.width)×\(image.height) pixels")
        }
        // A buffer replaced by one of another size would be read past its end.
        guard image.samples.count == image.pixelCount * image.channelCount else {
            throw .writeFailed(path: path, detail: "the image's samples hold \(image.samples.count) values, but \(image.width)×\(image.height)×\(image.channelCount) calls for \(image.pixelCount * image.channelCount)")
        }
        if let tile = options.tileSize, tile <= 0 || tile % 16 != 0 {
            throw .writeFailed(path: path, detail: "tile size \(tile) is not a positive multiple of 16")
        }
        guard TIFFOrientation(options.orientation) != nil else {
            throw .writeFailed(path: path, detail: "orientation \(options.orientation) is not a TIFF orientation (1 to 8)")
        }
        if let rows = options.rowsPerStrip, rows <= 0 {
            throw .writeFailed(path: path, detail: "rows per strip \(rows) is not positive")
        }
        if let r = options.resolution, !r.isUsable {
            throw .writeFailed(path: path, detail: "resolution \(r.x) x \(r.y) is not positive and finite")
        }
        if let icc = options.iccProfile, icc.isEmpty || icc.count > Int(UInt32.max) {
            throw .writeFailed(path: path, detail: "ICC profile of \(icc.count) bytes")
        }
        if let exposure = options.exposure {
            do {
                _ = try exposure.validated()
            } catch {
                throw .writeFailed(path: path, detail: "exposure: \(error)")
            }
            // Above 65535 EXIF writes 65535 and the value in RecommendedExposureIndex (EXIF directory only).
            let largest: Double = options.exposureInIFD0 ? 65535 : Double(UInt32.max)
            guard exposure.isoSpeed.rounded() >= 1, exposure.isoSpeed.rounded() <= largest else {
                throw .writeFailed(path: path, detail: "ISO \(exposure.isoSpeed) does not fit the "
                                   + (options.exposureInIFD0 ? "16-bit PhotographicSensitivity tag of IFD0 (1…65535)"
                                                             : "EXIF sensitivity tags (1…\(UInt32.max))"))
            }
        }
    }

    /// Writes the file at `temporary` with libtiff; errors name `reportedPath`.
    static func encode(_ image: PlanarImage, to temporary: String, reportedPath path: String,
                       options: TIFFWriteOptions) throws(TIFFError) {
        let sampleBytes: Int
        switch options.sampleType {
        case .uint8: sampleBytes = 1
        case .uint16: sampleBytes = 2
        case .float32: sampleBytes = 4
        }
        // Classic TIFF addresses at most 4 GiB; switch to BigTIFF well before that.
        let rawBytes = image.samples.count * sampleBytes
        let handle: TIFFHandle
        switch TIFFHandle.open(temporary, mode: rawBytes > 3_500_000_000 ? "w8" : "w") {
        case .success(let h): handle = h
        case .failure(let failure): throw .writeFailed(path: path, detail: failure.message)
        }
        let tif = handle.tif

        func fail(_ what: String) -> TIFFError {
            // libtiff says "Write error at scanline 860" where the system said why: a full disk or
            // quota (the only causes said here, so that a stale errno names nothing).
            let code = errno
            let system = [ENOSPC, EDQUOT, EFBIG, EIO].contains(code) ? " (" + String(cString: strerror(code)) + ")" : ""
            let libtiff = handle.messages.errors
            return .writeFailed(path: path, detail: what + (libtiff.isEmpty ? "" : ": \(libtiff)") + system)
        }
        func require(_ status: Int32, _ what: @autoclosure () -> String) throws(TIFFError) {
            guard status == 1 else { throw fail("cannot set \(what())") }
        }

        // The EXIF sub-IFD is written first, as a custom directory, so that its offset is known
        // when IFD0 (which points to it through tag 34665) is filled in and written.
        var exifOffset: UInt64?
        if let exposure = options.exposure, !options.exposureInIFD0 {
            guard TIFFCreateEXIFDirectory(tif) == 0 else { throw fail("cannot create the EXIF directory") }
            if let tag = setExposure(exposure, tif: tif) { throw fail("cannot set \(tag) in the EXIF directory") }
            if let f = options.focalLengthMillimetres {
                guard f > 0, f.isFinite, cc_tiff_set_double(tif, UInt32(EXIFTAG_FOCALLENGTH), f) == 1 else {
                    throw fail("cannot set FocalLength \(f) in the EXIF directory")
                }
            }
            var offset: UInt64 = 0
            guard TIFFWriteCustomDirectory(tif, &offset) == 1, offset != 0 else {
                throw fail("cannot write the EXIF directory")
            }
            guard TIFFCreateDirectory(tif) == 0 else { throw fail("cannot start the image directory") }
            exifOffset = offset
        }

        let channels = image.channelCount
        let isPlanar = options.planar && channels > 1
        try require(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(image.width)), "ImageWidth")
        try require(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), UInt32(image.height)), "ImageLength")
        try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), UInt16(channels)), "SamplesPerPixel")
        try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), UInt16(sampleBytes * 8)), "BitsPerSample")
        try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLEFORMAT),
                                    UInt16(options.sampleType == .float32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT)),
                    "SampleFormat")
        try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC),
                                    UInt16(channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB)), "Photometric")
        try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_PLANARCONFIG),
                                    UInt16(isPlanar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG)), "PlanarConfig")
        try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_ORIENTATION), UInt16(options.orientation)), "Orientation")
        if let r = options.resolution {
            try require(cc_tiff_set_double(tif, UInt32(TIFFTAG_XRESOLUTION), r.x), "XResolution")
            try require(cc_tiff_set_double(tif, UInt32(TIFFTAG_YRESOLUTION), r.y), "YResolution")
            try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_RESOLUTIONUNIT), UInt16(r.unit.rawValue)), "ResolutionUnit")
        }
        if channels == 4 {
            var alpha = UInt16(EXTRASAMPLE_UNASSALPHA)
            try require(cc_tiff_set_u16_array(tif, UInt32(TIFFTAG_EXTRASAMPLES), 1, &alpha), "ExtraSamples")
        }
        let compression: Int32
        switch options.compression {
        case .none: compression = COMPRESSION_NONE
        case .lzw: compression = COMPRESSION_LZW
        case .deflate: compression = COMPRESSION_ADOBE_DEFLATE
        case .packBits: compression = COMPRESSION_PACKBITS
        }
        try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), UInt16(compression)), "Compression")
        if options.usePredictor, options.compression == .lzw || options.compression == .deflate {
            let predictor = options.sampleType == .float32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL
            try require(cc_tiff_set_u16(tif, UInt32(TIFFTAG_PREDICTOR), UInt16(predictor)), "Predictor")
        }
        let chunkSamplesPerPixel = isPlanar ? 1 : channels
        let rowBytes = image.width * chunkSamplesPerPixel * sampleBytes
        if let tile = options.tileSize {
            try require(cc_tiff_set_u32(tif, UInt32(TIFFTAG_TILEWIDTH), UInt32(tile)), "TileWidth")
            try require(cc_tiff_set_u32(tif, UInt32(TIFFTAG_TILELENGTH), UInt32(tile)), "TileLength")
        } else {
            let rows = min(image.height, options.rowsPerStrip ?? max(1, (256 * 1024) / max(1, rowBytes)))
            try require(cc_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(rows)), "RowsPerStrip")
        }
        if let icc = options.iccProfile {
            let status = icc.withUnsafeBytes { cc_tiff_set_bytes(tif, UInt32(TIFFTAG_ICCPROFILE), UInt32($0.count), $0.baseAddress) }
            try require(status, "the ICC profile")
        }
        if let description = options.imageDescription {
            try require(cc_tiff_set_string(tif, UInt32(TIFFTAG_IMAGEDESCRIPTION), description), "ImageDescription")
        }
        if let software = options.software {
            try require(cc_tiff_set_string(tif, UInt32(TIFFTAG_SOFTWARE), software), "Software")
        }
        if let exifOffset {
            try require(cc_tiff_set_ifd8(tif, UInt32(TIFFTAG_EXIFIFD), exifOffset), "the EXIF directory offset")
        }
        if let exposure = options.exposure, options.exposureInIFD0 {
            guard cc_tiff_register_ifd0_exposure_fields(tif) == 0 else {
                throw fail("cannot register the exposure tags for IFD0")
            }
            if let tag = setExposure(exposure, tif: tif) { throw fail("cannot set \(tag) in IFD0") }
        }

        switch options.sampleType {
        case .uint8: try writePixels(UInt8.self, image, handle: handle, isPlanar: isPlanar, fail: fail)
        case .uint16: try writePixels(UInt16.self, image, handle: handle, isPlanar: isPlanar, fail: fail)
        case .float32: try writePixels(Float.self, image, handle: handle, isPlanar: isPlanar, fail: fail)
        }
        guard TIFFWriteDirectory(tif) == 1 else { throw fail("cannot write the image directory") }
        handle.close()
        guard handle.messages.errorCount == 0 else { throw fail("libtiff reported errors") }
    }

    /// Sets ExposureTime, FNumber and PhotographicSensitivity in the current directory (the
    /// EXIF directory, or IFD0 after `cc_tiff_register_ifd0_exposure_fields`).
    /// Returns the name of the tag libtiff refused, or nil.
    private static func setExposure(_ exposure: ExposureSettings, tif: OpaquePointer) -> String? {
        guard cc_tiff_set_double(tif, UInt32(EXIFTAG_EXPOSURETIME), exposure.exposureTimeSeconds) == 1 else {
            return "ExposureTime"
        }
        guard cc_tiff_set_double(tif, UInt32(EXIFTAG_FNUMBER), exposure.fNumber) == 1 else { return "FNumber" }
        let value = exposure.isoSpeed.rounded()
        var iso = UInt16(min(value, 65535))
        guard cc_tiff_set_u16_array(tif, UInt32(EXIFTAG_ISOSPEEDRATINGS), 1, &iso) == 1 else {
            return "PhotographicSensitivity"
        }
        // EXIF 2.3: 65535 or more is written as 65535, the value in RecommendedExposureIndex with
        // SensitivityType 2 (only above 65535: `validate` keeps IFD0 files below it).
        if value > 65535 {
            guard cc_tiff_set_u16(tif, UInt32(EXIFTAG_SENSITIVITYTYPE), 2) == 1 else { return "SensitivityType" }
            guard cc_tiff_set_u32(tif, UInt32(EXIFTAG_RECOMMENDEDEXPOSUREINDEX), UInt32(value)) == 1 else {
                return "RecommendedExposureIndex"
            }
        }
        return nil
    }

    /// Converts the image strip by strip (or tile by tile) into one reused buffer of stored
    /// samples and hands each to libtiff, checking every write.
    private static func writePixels<T: TIFFStoredSample>(
        _: T.Type, _ image: PlanarImage, handle: TIFFHandle, isPlanar: Bool, fail: (String) -> TIFFError
    ) throws(TIFFError) {
        let tif = handle.tif
        let width = image.width
        let height = image.height
        let planeSize = width * height
        let chunkSamplesPerPixel = isPlanar ? 1 : image.channelCount
        let planes = isPlanar ? image.channelCount : 1
        let channelsPerChunk = isPlanar ? 1 : image.channelCount
        let isTiled = TIFFIsTiled(tif) != 0
        let chunkBytes = Int(isTiled ? TIFFTileSize(tif) : TIFFStripSize(tif))
        guard chunkBytes > 0 else { throw fail("libtiff computed no strip or tile size") }
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkBytes, alignment: 64)
        defer { chunk.deallocate() }
        let destination = chunk.assumingMemoryBound(to: T.self)

        let failure: TIFFError? = image.samples.withUnsafeBufferPointer { buffer -> TIFFError? in
            let source = buffer.baseAddress!
            if isTiled {
                var tileWidth: UInt32 = 0
                var tileLength: UInt32 = 0
                _ = cc_tiff_get_u32(tif, UInt32(TIFFTAG_TILEWIDTH), &tileWidth)
                _ = cc_tiff_get_u32(tif, UInt32(TIFFTAG_TILELENGTH), &tileLength)
                let tw = Int(tileWidth)
                let tl = Int(tileLength)
                for y0 in stride(from: 0, to: height, by: tl) {
                    let rows = min(tl, height - y0)
                    for x0 in stride(from: 0, to: width, by: tw) {
                        let columns = min(tw, width - x0)
                        for plane in 0..<planes {
                            // libtiff may encode in place (predictor), so padding is cleared every time.
                            if rows < tl || columns < tw { chunk.initializeMemory(as: UInt8.self, repeating: 0, count: chunkBytes) }
                            fillBlock(destination: destination, rows: rows, columns: columns,
                                      destinationRowStride: tw * chunkSamplesPerPixel,
                                      destinationPixelStride: chunkSamplesPerPixel, channelCount: channelsPerChunk,
                                      source: source + plane * planeSize + y0 * width + x0,
                                      sourceRowStride: width, planeSize: planeSize)
                            let tile = TIFFComputeTile(tif, UInt32(x0), UInt32(y0), 0, UInt16(plane))
                            guard Int(TIFFWriteEncodedTile(tif, tile, chunk, tmsize_t(chunkBytes))) == chunkBytes else {
                                return fail("cannot write tile \(tile)")
                            }
                        }
                    }
                }
            } else {
                var rowsPerStrip: UInt32 = 0
                _ = cc_tiff_get_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), &rowsPerStrip)
                let rps = Int(rowsPerStrip)
                let stripsPerPlane = (height + rps - 1) / rps
                for (unit, y0) in stride(from: 0, to: height, by: rps).enumerated() {
                    let rows = min(rps, height - y0)
                    let bytes = rows * width * chunkSamplesPerPixel * MemoryLayout<T>.size
                    for plane in 0..<planes {
                        fillBlock(destination: destination, rows: rows, columns: width,
                                  destinationRowStride: width * chunkSamplesPerPixel,
                                  destinationPixelStride: chunkSamplesPerPixel, channelCount: channelsPerChunk,
                                  source: source + plane * planeSize + y0 * width,
                                  sourceRowStride: width, planeSize: planeSize)
                        let strip = UInt32(plane * stripsPerPlane + unit)
                        guard Int(TIFFWriteEncodedStrip(tif, strip, chunk, tmsize_t(bytes))) == bytes else {
                            return fail("cannot write strip \(strip)")
                        }
                    }
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Converts a block of planar `Float`s to interleaved stored samples: channel `c` of pixel
    /// `x` in block row `r` goes to `destination[r * destinationRowStride + x * destinationPixelStride + c]`.
    @inline(__always)
    private static func fillBlock<T: TIFFStoredSample>(
        destination: UnsafeMutablePointer<T>, rows: Int, columns: Int, destinationRowStride: Int,
        destinationPixelStride: Int, channelCount: Int, source: UnsafePointer<Float>, sourceRowStride: Int,
        planeSize: Int
    ) {
        for r in 0..<rows {
            let d = destination + r * destinationRowStride
            let s0 = source + r * sourceRowStride
            switch (destinationPixelStride, channelCount) {
            case (1, 1):
                for x in 0..<columns { d[x] = T(roundingAndClamping: s0[x]) }
            case (3, 3):
                let s1 = s0 + planeSize
                let s2 = s1 + planeSize
                for x in 0..<columns {
                    d[3 * x] = T(roundingAndClamping: s0[x])
                    d[3 * x + 1] = T(roundingAndClamping: s1[x])
                    d[3 * x + 2] = T(roundingAndClamping: s2[x])
                }
            case (4, 4):
                let s1 = s0 + planeSize
                let s2 = s1 + planeSize
                let s3 = s2 + planeSize
                for x in 0..<columns {
                    d[4 * x] = T(roundingAndClamping: s0[x])
                    d[4 * x + 1] = T(roundingAndClamping: s1[x])
                    d[4 * x + 2] = T(roundingAndClamping: s2[x])
                    d[4 * x + 3] = T(roundingAndClamping: s3[x])
                }
            default:
                for c in 0..<channelCount {
                    let s = s0 + c * planeSize
                    for x in 0..<columns { d[destinationPixelStride * x + c] = T(roundingAndClamping: s[x]) }
                }
            }
        }
    }
}
