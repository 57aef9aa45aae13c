import ConstantColor
import ConstantColorIO
import Foundation

/// What fusing a pair needs besides its frames, read and made once: the profiles, the pipeline's
/// options and the outputs' ICC profiles. `fuse` makes one for its pair, `fuse-batch` one for all.
struct FusionSetup {
    /// The command-line options it was made from (the profiles' paths included).
    var commandOptions: FusionCommandOptions
    /// The camera profile (`--camera`), read once.
    var cameraProfile: CameraProfile
    /// The flash profile (`--flash`), read once.
    var flashProfile: FlashProfile
    /// The pipeline's options from `commandOptions`; each pair sets which optional outputs it renders.
    var options: FusionOptions
    /// ICC profiles of the rendered outputs (γ 2.2) and of `--linear` in RGB (nil for XYZ).
    var icc: [UInt8], linearICC: [UInt8]?
    /// The `--linear` file's ImageDescription: what its planes are.
    var linearDescription: String
    /// The profiles' warnings and notes (`ProfileWarnings`), said once the inputs have been read
    /// and checked, so that a run refused for its inputs prints its one error line alone.
    var profileNotes: [String]
    /// Whether the reports give the profiles' paths absolute (`fuse-batch`, whose reports give the
    /// frames resolved against the list's folder) rather than as given.
    var reportsAbsolutePaths = false

    /// The profiles' paths as the reports give them (`inputs.camera`, `inputs.flashProfile`).
    var reportedProfilePaths: (camera: String, flash: String) {
        let paths = (commandOptions.camera, commandOptions.flashProfile)
        return reportsAbsolutePaths ? (PairFiles.standardized(paths.0), PairFiles.standardized(paths.1)) : paths
    }

    /// Reads the profiles and makes the ICC profiles.
    init(_ commandOptions: FusionCommandOptions) throws {
        self.commandOptions = commandOptions
        cameraProfile = try CameraProfile(path: commandOptions.camera)
        flashProfile = try FlashProfile(path: commandOptions.flashProfile)
        // (The flag was ignored without a word with a profile that has no map.)
        if commandOptions.flattenFlashFalloff && flashProfile.shading == nil {
            throw CLIError(file: commandOptions.flashProfile, problem: "has no shading map, so --flatten-flash-falloff has no fall-off to flatten (calibrate flat-field measures one)")
        }
        profileNotes = ProfileWarnings.lines(camera: cameraProfile, cameraPath: commandOptions.camera, flash: flashProfile,
                                             flashPath: commandOptions.flashProfile,
                                             countColorimetricUncertainty: commandOptions.colorimetricUncertainty)
        options = commandOptions.fusionOptions
        icc = try ICCProfileFactory.rgbGamma(space: options.primaries.space, gamma: 2.2)
        // TIFF has no photometric interpretation for XYZ: the planes are stored as RGB with a profile
        // whose channels are X, Y, Z (an ICC-aware reader gets the colours right), and the
        // description says what they are (for a reader that takes the numbers).
        linearICC = options.linearSpace == .rgb
            ? try ICCProfileFactory.rgbGamma(space: options.primaries.space, gamma: 1.0) : try ICCProfileFactory.xyzAsRGB()
        linearDescription = options.linearSpace == .rgb
            ? "constant-color --linear: linear \(ICCProfileFactory.description(space: options.primaries.space, gamma: 1.0)), the dark-room image lit by the flash alone"
            : "constant-color --linear: CIE 1931 XYZ (D65 white), linear; samples 1, 2, 3 are X, Y, Z (not RGB; the embedded ICC profile says so to colour-managed readers), the dark-room image lit by the flash alone"
    }
}

/// One pair's files: its two frames (with optional exposure overrides, T,N,ISO) and its outputs
/// (the rendered image always; the others where a path is given).
struct PairFiles {
    var flash: String, ambient: String
    var flashExposure: String? = nil, ambientExposure: String? = nil
    /// Where the user gives an exposure the frames' EXIF lacks (`InputFrame.load`'s hint; nil: the
    /// `--flash-exposure` / `--ambient-exposure` options).
    var exposureHint: ((_ role: String) -> String)? = nil
    var output: String
    var confidence: String? = nil, measurementConfidence: String? = nil, report: String? = nil
    var fallback: String? = nil, linear: String? = nil

    /// Every output path, the rendered image first.
    var outputs: [String] { [output, confidence, measurementConfidence, report, fallback, linear].compactMap { $0 } }

    /// The second output, as given, that names the same file as an earlier one (nil: none does).
    var repeatedOutput: String? {
        var seen = Set<String>()
        return outputs.first { !seen.insert(Self.standardized($0)).inserted }
    }

    /// `path` absolute, with `.` and `..` resolved (not symbolic links: `checkDestinations` compares
    /// real paths with the inputs), for telling two output names of one file apart.
    static func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// Refuses a pair whose two frames are one file (by path, symbolic or hard link): a
    /// flash / no-flash pair is two captures, and one given twice measures no flash light.
    func checkFramesAreTwoFiles() throws {
        // (A name that is no file is said by the decoder, as missing.)
        if FileManager.default.fileExists(atPath: flash), AtomicFile.isProtected(ambient, protectedPaths: [flash]) {
            throw CLIError(file: ambient, problem: "is the flash frame's file as well; a pair is two captures, one with the flash and one without")
        }
    }

    /// Refuses an output that is one of `inputs` or that cannot be written (before any work).
    func checkDestinations(protecting inputs: [String]) throws {
        for out in outputs {
            if AtomicFile.isProtected(out, protectedPaths: inputs) {
                throw CLIError(file: out, problem: "is an input; outputs never overwrite inputs")
            }
            try AtomicFile.checkDestination(out)
        }
    }
}

/// The constant-color pipeline on one pair, from its files to its outputs.
enum PairFusion {
    /// Decodes the pair, runs `FusionPipeline`, and writes the outputs atomically as a set (a
    /// failure leaves every output as it was); returns the report. `inputs`: paths no output may
    /// overwrite (the pair's frames and the profiles, at least). Progress and warnings go to `progress`.
    /// `timer`: the report's stage timer, started by the caller (`fuse` starts it before reading the
    /// profiles, which its `decode` has always counted).
    static func fuse(_ pair: PairFiles, setup: FusionSetup, protecting inputs: [String], progress: Progress,
                     timer: StageTimer = StageTimer(), sayProfileNotes: Bool = false) throws -> FusionReport {
        var timer = timer
        let flags = setup.commandOptions
        let whiteLevel = (setup.cameraProfile.whiteLevel, flags.camera)
        let flashLoaded = try InputFrame.load(path: pair.flash, role: .flash, exposureOverride: pair.flashExposure,
                                               linearizeICC: flags.linearizeIcc, whiteLevel: whiteLevel,
                                               overrideHint: pair.exposureHint?("flash"))
        let ambientLoaded = try InputFrame.load(path: pair.ambient, role: .ambient, exposureOverride: pair.ambientExposure,
                                                 linearizeICC: flags.linearizeIcc, whiteLevel: whiteLevel,
                                                 overrideHint: pair.exposureHint?("ambient"))
        // (Nothing of the loaded frames is read after the pipeline starts: a reference to a frame's
        // samples kept alive past it would make the pipeline's in-place work copy them, 146 MB at
        // 12 MP — the outputs' resolution is taken here for that reason.)
        let (flashFrame, orientation) = (flashLoaded.frame, flashLoaded.orientation)
        // The outputs are the flash frame's pixels: its print size, or none (square pixels, no unit).
        let resolution = flashLoaded.resolution ?? .unspecified
        let (ambientFrame, ambientOrientation) = (ambientLoaded.frame, ambientLoaded.orientation)
        var options = setup.options
        options.renderFallback = pair.fallback != nil
        options.produceLinear = pair.linear != nil
        // Nothing is said before the pair is known to be one the pipeline can process.
        do {
            try FusionPipeline.checkInputs(flash: flashFrame, ambient: ambientFrame, camera: setup.cameraProfile,
                                           flashProfile: setup.flashProfile, options: options)
        } catch let error as FusionError {
            // The shading map's aspect is the flash profile's problem: named with its file.
            guard case .shadingAspect = error else { throw error }
            throw CLIError(file: flags.flashProfile, problem: "\(error) (\(pair.flash))")
        }
        // Every warning and note said about the pair also goes into its report (`warnings`): a queue
        // reads the report, not the log. The profiles' notes are every pair's, said once by a batch.
        var warnings = setup.profileNotes
        if sayProfileNotes { for line in setup.profileNotes { progress.say(line) } }
        func warn(_ line: String) { progress.say(line); warnings.append(line) }
        for line in flashLoaded.warnings + ambientLoaded.warnings { warn(line) }
        // The shading map is laid on the frame: a pair at another field of view than the flat field's.
        if let (pairFocal, mapFocal) = setup.flashProfile.shading?.focalLengthMismatch(pairFocalLengthMillimetres: flashLoaded.focalLengthMillimetres) {
            warn("warning: \(pair.flash) was taken at a focal length of " + String(format: "%g", pairFocal) + " mm, \(flags.flashProfile)'s shading map at "
                         + String(format: "%g", mapFocal) + " mm: the map is laid on the frame, so at another field of view the flash's shading falls elsewhere and the colours near the edges are corrected wrongly (shoot the flat field at the pairs' focal length)")
        }
        // The pair is processed as stored (the sensor's rows: the flash's shading map and the
        // rolling shutter follow them) and the outputs keep the flash frame's tag. Tags that differ
        // are said, not refused: a camera's orientation sensor can decide differently for two frames
        // stored alike (held near 45°); frames stored turned apart differ in size (refused) or fail
        // registration (said, and their confidence falls).
        if ambientOrientation != orientation {
            warn("warning: \(pair.ambient) is stored with orientation \(ambientOrientation.value) (\(ambientOrientation)), the flash frame with \(orientation.value) (\(orientation)): both are processed as stored and the outputs carry the flash frame's tag; if one frame was turned by its converter and the other not, they do not show one view")
        }
        timer.lap("decode")
        progress.say("decoded \(flashFrame.image.width)x\(flashFrame.image.height) pair"
                     + (orientation == .topLeft ? "" : " stored with orientation \(orientation.value) (\(orientation)): processed as stored, the outputs carry the tag"))

        var result = try FusionPipeline.run(flash: flashFrame, ambient: ambientFrame, camera: setup.cameraProfile,
                                            flashProfile: setup.flashProfile, options: options)
        timer.lap("pipeline")
        for line in FusionWarnings.lines(result, cameraPath: flags.camera, blackLevel: setup.cameraProfile.blackLevel,
                                              whiteLevel: setup.cameraProfile.whiteLevel) { warn(line) }
        result.report.warnings = warnings
        let registration = result.report.registration
        let registered: String
        switch registration.notRegistered {
        case nil: registered = "registered (\(registration.model.rawValue), residual \(String(format: "%.3f", registration.residual)))"
        case .noAmbientLight?: registered = "not registered (the ambient frame holds no light: nothing to align)"
        case .noSharedStructure?: registered = "not registered (no structure shared by the frames: taken as captured)"
        }
        progress.say("\(registered); mean confidence \(String(format: "%.3f", result.report.centerWeightedMeanConfidence)) -> \(result.report.decision.rawValue); colour confidence \(String(format: "%.3f", result.report.colorConfidence.centerWeightedMean))")

        // The output files are independent: written at the same time, one thread each, into
        // temporary files that are renamed into place together once all are written (a failure in
        // any leaves every output as it was).
        let finished = result
        let staged = AtomicFileSet()
        let tag = orientation.value
        var writes: [() throws -> Void] = [{
            try TIFFWriter.writeRGB16(finished.rendered16, to: pair.output, iccProfile: setup.icc, orientation: tag,
                                      resolution: resolution, protectedPaths: inputs, staging: staged)
        }]
        if let path = pair.confidence {
            writes.append {
                try TIFFWriter.writeFloat(finished.confidence, to: path, orientation: tag, resolution: resolution,
                                          protectedPaths: inputs, staging: staged)
            }
        }
        if let path = pair.measurementConfidence {
            writes.append {
                try TIFFWriter.writeFloat(finished.measurementConfidence, to: path, orientation: tag, resolution: resolution,
                                          protectedPaths: inputs, staging: staged)
            }
        }
        if let path = pair.linear, let linearImage = finished.linear {
            writes.append {
                try TIFFWriter.write(linearImage, to: path,
                                     options: TIFFWriteOptions(sampleType: .float32, iccProfile: setup.linearICC,
                                                               imageDescription: setup.linearDescription, orientation: tag,
                                                               resolution: resolution),
                                     protectedPaths: inputs, staging: staged)
            }
        }
        if let path = pair.fallback, let image = finished.fallback16 {
            writes.append {
                try TIFFWriter.writeRGB16(image, to: path, iccProfile: setup.icc, orientation: tag, resolution: resolution,
                                          protectedPaths: inputs, staging: staged)
            }
        }
        do { try runConcurrently(writes) } catch {
            staged.discard()
            // An output holding NaN or infinity is the pipeline's fault, not the file's: said as such.
            if case let TIFFError.nonFinite(path, x, y, channel) = error {
                throw CLIError(file: path, problem: "not written: the pipeline computed a value that is not finite at x=\(x), y=\(y), channel \(channel) from \(pair.flash) and \(pair.ambient) (a defect of this tool: please report it with the frames and profiles)")
            }
            throw error
        }
        timer.lap("encode")
        for (k, v) in timer.seconds where k != "pipeline" { result.report.timingsSeconds[k] = v }
        result.report.timingsSeconds["total"] = timer.seconds.values.reduce(0, +)
        result.report.inputs = ["flash": pair.flash, "ambient": pair.ambient, "camera": setup.reportedProfilePaths.camera,
                                "flashProfile": setup.reportedProfilePaths.flash, "output": pair.output]
        for (k, v) in [("confidence", pair.confidence), ("measurementConfidence", pair.measurementConfidence),
                       ("fallback", pair.fallback), ("linear", pair.linear), ("report", pair.report)] {
            if let v { result.report.inputs[k] = v }
        }
        if let path = pair.report {
            // (A quantity that could not be measured, e.g. the registration residual of featureless
            // frames, is written as the string "inf": JSON has no such number.)
            let encoder = FusionReport.jsonEncoder()
            do {
                try AtomicFile.write(try encoder.encode(result.report), to: path, protectedPaths: inputs, staging: staged)
            } catch { staged.discard(); throw error }
        }
        try staged.commit()
        progress.say(String(format: "done in %.2f s (decode %.2f, pipeline %.2f, encode %.2f)",
                            result.report.timingsSeconds["total"] ?? 0, timer.seconds["decode"] ?? 0,
                            timer.seconds["pipeline"] ?? 0, timer.seconds["encode"] ?? 0))
        return result.report
    }
}
