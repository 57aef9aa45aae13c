import ConstantColor

/// How `TIFFWriter` lays out and encodes a file.
public struct TIFFWriteOptions: Sendable, Equatable {
    /// The stored sample type.
    public enum SampleType: Sendable, Equatable, CaseIterable {
        /// 8-bit unsigned integers; input data numbers 0…255 are clamped and rounded to nearest
        /// (ties to even).
        case uint8
        /// 16-bit unsigned integers; input data numbers 0…65535 are clamped and rounded to nearest
        /// (ties to even).
        case uint16
        /// 32-bit IEEE floats, stored unchanged.
        case float32
    }

    /// The lossless compression scheme (TIFF 6.0 Compression tag).
    public enum Compression: Sendable, Equatable, CaseIterable {
        /// No compression (1): the fastest to write and read.
        case none
        /// LZW (5), TIFF 6.0 section 13.
        case lzw
        /// Deflate / zlib (8, Adobe Deflate), TIFF Technical Note 2 / RFC 1950.
        case deflate
        /// PackBits run-length encoding (32773), TIFF 6.0 section 9.
        case packBits
    }

    /// The stored sample type.
    public var sampleType: SampleType
    /// The compression scheme.
    public var compression: Compression
    /// With LZW or Deflate, apply the horizontal-differencing predictor (2, TIFF 6.0 section 14)
    /// to integer samples, or the floating-point predictor (3, Adobe TIFF Technical Note 3) to
    /// floats; it makes photographs compress much better. Ignored for other compressions.
    public var usePredictor: Bool
    /// Store each channel in its own strips or tiles (PlanarConfiguration 2) instead of
    /// interleaved (1). Ignored for single-channel images.
    public var planar: Bool
    /// Tile width and height in pixels (a positive multiple of 16, TIFF 6.0 section 15), or nil
    /// for strips.
    public var tileSize: Int?
    /// Rows per strip, or nil to choose strips of about 256 KiB. Ignored when tiled.
    public var rowsPerStrip: Int?
    /// An ICC profile to embed (tag 34675, InterColorProfile).
    public var iccProfile: [UInt8]?
    /// Exposure to record as ExposureTime (33434), FNumber (33437) and PhotographicSensitivity
    /// (34855) in an EXIF sub-IFD. PhotographicSensitivity is a 16-bit integer: ISO is rounded.
    public var exposure: ExposureSettings?
    /// FocalLength (37386) to record in the EXIF sub-IFD with `exposure` (ignored without it), mm.
    public var focalLengthMillimetres: Double? = nil
    /// Test-only: write the exposure tags into IFD0 instead of an EXIF sub-IFD, as some tools do,
    /// so that the reader's IFD0 fallback can be tested.
    public var exposureInIFD0: Bool
    /// The Software tag (305).
    public var software: String?
    /// The ImageDescription tag (270): what the samples are, where no ICC profile can say it (e.g.
    /// CIE XYZ data, which TIFF's photometric interpretations cannot name).
    public var imageDescription: String?
    /// The Orientation tag (274), 1…8: how a viewer should turn the stored samples (an output
    /// keeps its input's, so that it is shown as the input is).
    public var orientation: Int
    /// XResolution, YResolution and ResolutionUnit (TIFF 6.0 section 8) to write; nil writes none.
    public var resolution: TIFFResolution?

    /// Creates options; by default uncompressed, interleaved strips with no metadata.
    public init(sampleType: SampleType, compression: Compression = .none, usePredictor: Bool = true,
                planar: Bool = false, tileSize: Int? = nil, rowsPerStrip: Int? = nil,
                iccProfile: [UInt8]? = nil, exposure: ExposureSettings? = nil,
                exposureInIFD0: Bool = false, software: String? = nil, imageDescription: String? = nil,
                orientation: Int = 1, resolution: TIFFResolution? = nil) {
        self.sampleType = sampleType
        self.compression = compression
        self.usePredictor = usePredictor
        self.planar = planar
        self.tileSize = tileSize
        self.rowsPerStrip = rowsPerStrip
        self.iccProfile = iccProfile
        self.exposure = exposure
        self.exposureInIFD0 = exposureInIFD0
        self.software = software
        self.imageDescription = imageDescription
        self.orientation = orientation
        self.resolution = resolution
    }
}
