import ConstantColor

/// A TIFF file decoded into planar floating-point samples, with the metadata the pipeline needs.
public struct DecodedTIFF: Sendable, Equatable {
    /// The file this came from.
    public var path: String
    /// The samples in the file's own data numbers as `Float`: 8-bit files give 0…255, 16-bit
    /// integer files 0…65535, float files (16 or 32 bits) the stored values. One channel for grayscale files, three for
    /// RGB (an alpha or other extra sample is dropped).
    public var image: PlanarImage
    /// Bits per sample in the file (8, 16 or 32).
    public var bitsPerSample: Int
    /// True when the file stores IEEE floating-point samples (SampleFormat 3).
    public var isFloatingPoint: Bool
    /// Exposure tags found in the EXIF sub-IFD or, failing that, in IFD0.
    public var exposure: ExposureFields
    /// The embedded ICC profile (tag 34675, InterColorProfile), if any.
    public var iccProfile: [UInt8]?
    /// The Orientation tag (274, TIFF 6.0 section 8), 1…8 (1 where the file has none): where the
    /// stored row 0 and column 0 are meant to be shown (1: top, left). `image` holds the samples as
    /// stored, not turned (`TIFFOrientation`).
    public var orientation: Int
    /// Warnings libtiff reported while reading (for example unknown tags); the file was read.
    public var warnings: [String]
    /// The ImageDescription tag (270), if any.
    public var imageDescription: String?
    /// The number of images (directories in IFD0's chain) the file holds; `image` is the first.
    public var imageCount = 1
    /// XResolution, YResolution and ResolutionUnit (TIFF's default inch where the unit is absent);
    /// nil where the file has no usable pair of resolutions (absent, zero, negative or not finite).
    public var resolution: TIFFResolution? = nil
    /// Why resolution tags the file has are not used (nil: none, or used).
    public var resolutionNote: String? = nil
    /// For a floating-point file the reader decoded, its largest sample as decoded (found in the
    /// same pass that checks every sample is finite); nil for integer files, descriptions made by
    /// hand, and samples changed since (`LinearInput.make`).
    public var largestSample: Float? = nil
    /// The pixels whose unassociated alpha is below full coverage (nil: none, or no such alpha).
    public var transparentPixels: TransparentPixels? = nil

    /// Creates a decoded file description.
    public init(path: String, image: PlanarImage, bitsPerSample: Int, isFloatingPoint: Bool,
                exposure: ExposureFields, iccProfile: [UInt8]?, orientation: Int, warnings: [String] = [],
                imageDescription: String? = nil) {
        self.path = path
        self.image = image
        self.bitsPerSample = bitsPerSample
        self.isFloatingPoint = isFloatingPoint
        self.exposure = exposure
        self.iccProfile = iccProfile
        self.orientation = orientation
        self.warnings = warnings
        self.imageDescription = imageDescription
    }

    /// `orientation` as a `TIFFOrientation` (the reader refuses values outside 1…8; a hand-made
    /// description holding one reads as shown as stored, 1).
    public var tiffOrientation: TIFFOrientation { TIFFOrientation(orientation) ?? .topLeft }

    /// The largest value the file's sample type can hold: 255, 65535, 65504 for 16-bit floats
    /// (binary16's largest finite value), or nil for 32-bit floats.
    public var maximumDataNumber: Float? {
        isFloatingPoint ? (bitsPerSample == 16 ? BinaryFloat16.largestFinite : nil) : Float((1 << bitsPerSample) - 1)
    }

    /// For a floating-point file, its largest sample: `largestSample` where the reader found it,
    /// else one pass over the samples; nil for integer files.
    public var largestFloatSample: Float? {
        isFloatingPoint ? largestSample ?? image.samples.max() : nil
    }
}

/// The exposure tags of a file, each present or not.
///
/// Tags: ExposureTime (EXIF 2.3 tag 33434), FNumber (33437), PhotographicSensitivity (34855,
/// ISOSpeedRatings in EXIF 2.2). Values are as stored; libtiff 4.5 hands rational EXIF values
/// over in single precision (relative error below 1e-7).
public struct ExposureFields: Sendable, Equatable {
    /// ExposureTime in seconds.
    public var exposureTimeSeconds: Double?
    /// FNumber (focal length / entrance pupil diameter).
    public var fNumber: Double?
    /// PhotographicSensitivity (ISO speed); where it is 65535, which EXIF 2.3 uses for "65535 or
    /// more", RecommendedExposureIndex (34866) or ISOSpeed (34867) when the file has one; where it
    /// is absent, the ISO 12232 parameter SensitivityType (34864) designates (StandardOutput-
    /// Sensitivity 34865, RecommendedExposureIndex or ISOSpeed), which EXIF 2.3 has equal to it.
    public var isoSpeed: Double?
    /// FocalLength (EXIF 2.3 tag 37386), millimetres, from the EXIF directory: not part of the
    /// exposure, but a flash's shading map is laid on the frame, so it must be of the same field
    /// of view (`FlashShading.captureFocalLengthMillimetres`).
    public var focalLengthMillimetres: Double?
    /// What the reader noticed about these tags that a user should hear (e.g. an ISO of 65535 with
    /// no tag giving the value, taken as 65535).
    public var notes: [String] = []

    /// Creates the fields; each may be missing.
    public init(exposureTimeSeconds: Double? = nil, fNumber: Double? = nil, isoSpeed: Double? = nil) {
        self.exposureTimeSeconds = exposureTimeSeconds
        self.fNumber = fNumber
        self.isoSpeed = isoSpeed
    }

    /// The three values as `ExposureSettings`, or nil unless all three are present.
    ///
    /// The values are not validated here; call `ExposureSettings.validated()` before use.
    public var settings: ExposureSettings? {
        guard let t = exposureTimeSeconds, let n = fNumber, let iso = isoSpeed else { return nil }
        return ExposureSettings(exposureTimeSeconds: t, fNumber: n, isoSpeed: iso)
    }

    /// The names of the missing tags, e.g. `["FNumber"]`; empty when all are present.
    public var missingTagNames: [String] {
        var names: [String] = []
        if exposureTimeSeconds == nil { names.append("ExposureTime") }
        if fNumber == nil { names.append("FNumber") }
        if isoSpeed == nil { names.append("PhotographicSensitivity") }
        return names
    }
}
