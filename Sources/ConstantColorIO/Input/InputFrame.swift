import ConstantColor
import Foundation

/// What a frame is in its run: it decides which notes about the frame apply and which option gives
/// its exposure when the file has none.
public enum FrameRole: String, Sendable, CaseIterable {
    /// The flash frame of a pair; the outputs carry its resolution.
    case flash
    /// The ambient (no-flash) frame of a pair, or a chart capture's ambient frame.
    case ambient
    /// A chart or flat-field capture for `calibrate`.
    case capture
    /// A dark frame (lens capped, same exposure).
    case dark
}

/// A frame that cannot be used as read, naming the file (one line: `file: problem`).
public struct InputFrameError: Error, Equatable, CustomStringConvertible {
    /// The file concerned.
    public var file: String
    /// What is wrong with it.
    public var problem: String
    /// The error of `file` with `problem` (a clause, no file name).
    public init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }
    public var description: String { "\(file): \(problem)" }
}

/// A camera frame read for the pipeline or a calibration: TIFF decode, the ICC check (linear light
/// or refused), the exposure from EXIF or from the caller, and the warnings about the file that its
/// user must hear. `fuse`, `fuse-batch`, `validate` and `calibrate` read every frame through `load`.
public struct InputFrame: Sendable {
    /// The samples as stored (linear camera RGB) with their exposure.
    public var frame: RawFrame
    /// The Orientation tag (`TIFFOrientation`): what the caller does with a file shown turned is
    /// its own question.
    public var orientation: TIFFOrientation
    /// The warnings about the file, for the caller to say once its run is known good (a refused run
    /// prints its one error line alone).
    public var warnings: [String]
    /// Those of `warnings` that say the samples are not in the profile's units (a white level above
    /// the file's largest code; floats far under it): the likelier cause of a measurement the
    /// samples then upset.
    public var unitsWarnings: [String]
    /// The file's pixel size (XResolution, YResolution, ResolutionUnit), nil where it has none
    /// usable: the outputs carry the flash frame's, so that a print size is not lost.
    public var resolution: TIFFResolution?
    /// The file's FocalLength (EXIF 37386), mm, where it has one.
    public var focalLengthMillimetres: Double? = nil

    /// `load(path:role:exposureOverride:linearizeICC:whiteLevel:overrideHint:)` (below) with the
    /// exposure given as settings (an app's own record of the capture) instead of `T,N,ISO` text;
    /// EXIF is then not read for it. Settings a camera cannot have are an `InputFrameError` naming
    /// the file.
    public static func load(path: String, role: FrameRole, exposure: ExposureSettings, linearizeICC: Bool,
                            whiteLevel: (level: Double, source: String)? = nil) throws -> InputFrame {
        try load(path: path, role: role, exposure: .settings(exposure), linearizeICC: linearizeICC, whiteLevel: whiteLevel,
                 overrideHint: nil)
    }

    /// Where a frame's exposure comes from.
    enum ExposureSource {
        /// EXIF, unless text `T,N,ISO` is given (nil: EXIF).
        case text(String?)
        /// Settings given by the caller.
        case settings(ExposureSettings)
    }

    /// Decodes `path` into a raw camera-RGB frame, its samples as stored.
    ///
    /// - Exposure: `exposureOverride` (`T,N,ISO`) when given, else the file's EXIF tags (33434,
    ///   33437, 34855 or the parameter 34864 designates); missing data is an error, never a guess.
    /// - A non-linear ICC profile is refused unless `linearizeICC`, in which case the profile's
    ///   curves are inverted to linear light (`LinearInput`).
    /// - With `whiteLevel` (its value, and where it comes from), a white level above the largest
    ///   code the file can hold is said: clipping could not be recognized in it.
    /// - `overrideHint`: where the user gives the exposure when the file has none (default: the
    ///   `--<role>-exposure T,N,ISO` option).
    /// - Throws: `TIFFError` (unreadable file), `InputFrameError` (not 3 channels, no or bad
    ///   exposure, a profile refused), `ColorManagementError` (a profile Little CMS cannot read).
    public static func load(path: String, role: FrameRole, exposureOverride: String?, linearizeICC: Bool,
                            whiteLevel: (level: Double, source: String)? = nil,
                            overrideHint: String? = nil) throws -> InputFrame {
        try load(path: path, role: role, exposure: .text(exposureOverride), linearizeICC: linearizeICC, whiteLevel: whiteLevel,
                 overrideHint: overrideHint)
    }

    /// Both `load`s.
    static func load(path: String, role: FrameRole, exposure source: ExposureSource, linearizeICC: Bool,
                     whiteLevel: (level: Double, source: String)?, overrideHint: String?) throws -> InputFrame {
        var decoded = try TIFFReader.read(path: path)
        var warnings: [String] = []
        guard decoded.image.channelCount == 3 else {
            // A stack of one-channel pages (ImageJ/Fiji saves colour channels so) is said as such.
            let stack = decoded.imageCount >= 3 ? " (it holds \(decoded.imageCount) images: a stack of channels? Save the frame as one RGB image)" : ""
            throw InputFrameError(file: path, problem: "has \(decoded.image.channelCount) channel(s); camera RGB (3 samples per pixel; extra samples, such as an opaque alpha, are ignored) is required\(stack)")
        }
        // An unassociated alpha below full coverage marks pixels with no measurement (an alignment
        // or stitching tool's border) or a blend: read as camera data they would be wrong silently.
        if let clear = decoded.transparentPixels {
            let share = Double(clear.count) / Double(max(1, decoded.image.pixelCount))
            throw InputFrameError(file: path, problem: "its alpha channel marks \(clear.count) pixels (\(String(format: "%.2g", 100 * share)) %, the first at x \(clear.firstX), y \(clear.firstY)) as not fully covered: pixels without data or blended ones (an alignment or stitching tool's border?) hold no measurement; crop both frames to the area every pixel of which was captured, or save them without alpha")
        }
        // libtiff read past an I/O error in the directory (a file cut short, or damaged): the tag
        // it names is lost; the pixels were checked in full as they were read.
        for damage in decoded.warnings where damage.contains("IO error") {
            warnings.append("warning: \(path) is damaged (libtiff: \(damage)); its pixels were read in full")
        }
        if decoded.imageCount > 1 {
            warnings.append("warning: \(path) holds \(decoded.imageCount) images; the first (\(decoded.image.width)x\(decoded.image.height)) is read, the others are ignored")
        }
        var unitsWarnings: [String] = []
        if let whiteLevel, let largest = decoded.maximumDataNumber, whiteLevel.level > Double(largest) {
            unitsWarnings.append("warning: \(whiteLevel.source)'s white level \(whiteLevel.level) is above the largest \(decoded.isFloatingPoint ? "value" : "code") of \(path)'s \(decoded.bitsPerSample)-bit \(decoded.isFloatingPoint ? "float" : "integer") samples (\(Int(largest))): clipped pixels cannot be recognized (is it for these files?)")
        }
        // Floating-point samples are data numbers in the profile's units: a frame whose largest
        // sample is under 1 % of the white level is either nearly black or scaled otherwise (0…1).
        // (The largest sample comes from the reader's scan of a float file, as for the ICC check below.)
        if let whiteLevel, let top = decoded.largestFloatSample, Double(top) * 100 < whiteLevel.level {
            unitsWarnings.append("warning: \(path)'s largest floating-point sample is \(top), under 1 % of \(whiteLevel.source)'s white level \(whiteLevel.level): floating-point samples are read in the profile's units (data numbers); data scaled to 0…1 need a profile whose levels are in those units")
        }
        warnings += unitsWarnings
        let linearized: Bool
        do {
            linearized = try LinearInput.make(&decoded, linearizeICC: linearizeICC)
        } catch let error as LinearInputError {
            throw InputFrameError(file: error.path, problem: error.problem)
        }
        if let note = renderingNote(path: path, role: role, linearized: linearized, decoded: decoded) { warnings.append(note) }
        let exposure: ExposureSettings, notes: [String]
        switch source {
        case .text(let text):
            (exposure, notes) = try self.exposure(of: decoded.exposure, path: path, role: role, override: text, overrideHint: overrideHint)
        case .settings(let given):
            do { (exposure, notes) = (try given.validated(), []) } catch {
                throw InputFrameError(file: path, problem: "the exposure given: \(error)")
            }
        }
        warnings += notes
        // (The outputs carry the flash frame's resolution: only its tags matter.)
        if role == .flash, let note = decoded.resolutionNote {
            warnings.append("warning: \(path): \(note): the outputs carry none (square pixels, no unit)")
        }
        return InputFrame(frame: RawFrame(image: decoded.image, exposure: exposure, name: path), orientation: decoded.tiffOrientation,
                          warnings: warnings, unitsWarnings: unitsWarnings, resolution: decoded.resolution,
                          focalLengthMillimetres: decoded.exposure.focalLengthMillimetres)
    }

    /// A frame's exposure: `override` (`T,N,ISO`) when given, else the file's tags, validated as
    /// ones a camera records (`ExposureSettings.validated`); with the tags' notes as warnings. Used
    /// by `load` and by checks that read a file's header alone (`validate`'s preflight), so that
    /// both refuse alike.
    /// - Throws: `InputFrameError` naming `path`: the override unreadable, the tags invalid, or
    ///   none (naming the missing tags and `overrideHint`, default the `--<role>-exposure` option).
    public static func exposure(of fields: ExposureFields, path: String, role: FrameRole, override: String?,
                                overrideHint: String? = nil) throws -> (settings: ExposureSettings, warnings: [String]) {
        if let text = override {
            do { return (try ExposureSettings(parsing: text), []) } catch {
                throw InputFrameError(file: path, problem: "--\(role.rawValue)-exposure: \(error)")
            }
        }
        guard let settings = fields.settings else {
            let notes = fields.notes.map { "; " + $0.replacingOccurrences(of: "\n", with: " ") }.joined()
            throw InputFrameError(file: path, problem: "no exposure data (\(fields.missingTagNames.joined(separator: ", ")) \(notes.isEmpty ? "missing" : "missing or unreadable") in EXIF\(notes)); give \(overrideHint ?? "--\(role.rawValue)-exposure T,N,ISO")")
        }
        do {
            return (try settings.validated(), fields.notes.map { "warning: \(path): \($0)" })
        } catch {
            // (An f-number of 0 is what many manual and adapted lenses leave: the override is the remedy.)
            throw InputFrameError(file: path, problem: "exposure tags (EXIF or IFD0): \(error); give \(overrideHint ?? "--\(role.rawValue)-exposure T,N,ISO") with the capture's values")
        }
    }

    /// What a user of encoded frames must hear (nil: nothing): 8-bit samples with no ICC profile,
    /// which converted JPEG or HEIF files are (gamma-encoded, read here as linear); and, for a
    /// frame whose curves were inverted (a camera's rendering: its white balance is in the
    /// samples), that the chart capture and the flash frame must share that rendering, which the
    /// pair cannot show (README, "Develop the frames as the chart").
    public static func renderingNote(path: String, role: FrameRole, linearized: Bool, decoded: DecodedTIFF) -> String? {
        if !decoded.isFloatingPoint, decoded.bitsPerSample == 8, decoded.iccProfile == nil {
            return "warning: \(path) has 8-bit samples and no ICC profile: they are read as linear camera RGB; 8-bit files converted from JPEG or HEIF are gamma-encoded (keep their ICC profile and pass --linearize-icc), and linear 8-bit data keeps few codes in the shadows"
        }
        guard linearized else { return nil }
        switch role {
        case .flash:
            return "warning: \(path) was rendered by its camera (its ICC curves inverted): its white balance and colour rendering must be those of the chart capture the profiles were calibrated on (locked, not automatic); a flash frame rendered otherwise gives wrong colours with full measurement confidence, which the pair cannot show"
        case .capture:
            return "warning: \(path) was rendered by its camera (its ICC curves inverted): the profiles hold its white balance and colour rendering, so the frames fused with them must be rendered alike (locked, not automatic)"
        case .ambient, .dark:
            return nil
        }
    }
}
