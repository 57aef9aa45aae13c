import ArgumentParser
import ConstantColor
import ConstantColorIO
import Foundation

/// `constant-color fuse`: the constant-color pipeline on one flash / ambient pair.
struct FuseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuse",
        abstract: "Render the flash-only (dark-room) image of a flash / no-flash pair as if lit by D65.",
        discussion: """
            Inputs are linear camera-RGB TIFFs (8/16-bit or float). Exposure comes from EXIF \
            (ExposureTime, FNumber, ISO) or from --flash-exposure / --ambient-exposure T,N,ISO \
            (T may be 1/60). Outputs are written atomically and never over an input. Exit status: \
            0 success (whatever the decision), 2 bad usage or input. Progress goes to stderr.
            """)

    @Argument(help: "Flash frame (linear camera RGB TIFF).") var flash: String
    @Argument(help: "Ambient (no-flash) frame of the same scene.") var ambient: String
    @Option(help: "Camera profile JSON.") var camera: String
    @Option(name: .customLong("flash"), help: "Flash profile JSON.") var flashProfile: String
    @Option(name: .shortAndLong, help: "Rendered output: 16-bit RGB TIFF, gamma 2.2, ICC embedded.") var output: String
    @Option(help: "Confidence map output: 32-bit float single-channel TIFF; how far each pixel's colour can be trusted (the measurement and, when the flash profile has one, the matrix's colorimetric uncertainty).")
    var confidence: String?
    @Option(help: "Measurement confidence map output (same format): how well the capture measured the flash's light; the basis of the decision.")
    var measurementConfidence: String?
    @Option(help: "Report output (JSON).") var report: String?
    @Option(help: "Fallback output: the ambient frame as a normal photo (gray-world white balance).") var fallback: String?
    @Option(help: "Linear, un-tone-mapped float output for measurement (not gap-filled).") var linear: String?
    @Option(help: "Space of --linear: rgb (output primaries, linear ICC embedded) or xyz (D65 white at Y = 1).")
    var linearSpace: String = "rgb"
    @Option(help: "Output primaries: p3 (Display P3) or srgb.") var primaries: String = "p3"
    @Option(parsing: .unconditional, help: "Decision threshold on the center-weighted mean confidence.") var threshold: Double = 0.85
    @Option(parsing: .unconditional, help: "Exposure of the flash frame, T,N,ISO (overrides EXIF).") var flashExposure: String?
    @Option(parsing: .unconditional, help: "Exposure of the ambient frame, T,N,ISO (overrides EXIF).") var ambientExposure: String?
    @Option(help: "Registration model: auto, translation, rigid, similarity or homography.") var model: String = "auto"
    @Option(parsing: .unconditional, help: "Fixed output exposure (linear output per normalized unit) instead of automatic.") var outputScale: Double?
    @Option(help: "Ambient-to-flash exposure ratio: estimate (from illumination edges and flicker banding in the images) or metadata (EXIF as it is).")
    var exposureRatio: String = "estimate"
    @Flag(inversion: .prefixedNo,
          help: "Count the flash profile's colorimetric uncertainty (the matrix's expected error by colour) in the confidence map, when it has one. The gap fill and the decision use the measurement confidence either way.")
    var colorimetricUncertainty = true
    @Flag(help: "Accept inputs with a non-linear ICC profile by inverting its curves.") var linearizeIcc = false
    @Flag(help: "With a flash profile that has a shading map (calibrate flat-field), flatten the flash's fall-off too (its colour shading is always corrected).")
    var flattenFlashFalloff = false

    func validate() throws {
        guard OutputPrimaries(rawValue: primaries) != nil else { throw ValidationError("--primaries must be p3 or srgb") }
        guard LinearOutputSpace(rawValue: linearSpace) != nil else { throw ValidationError("--linear-space must be rgb or xyz") }
        guard model == "auto" || MotionModel(rawValue: model) != nil else {
            throw ValidationError("--model must be auto, translation, rigid, similarity or homography")
        }
        guard threshold >= 0 && threshold <= 1 else { throw ValidationError("--threshold must be in [0, 1]") }
        guard ["estimate", "metadata"].contains(exposureRatio) else { throw ValidationError("--exposure-ratio must be estimate or metadata") }
        if let s = outputScale, !(s > 0 && s.isFinite) { throw ValidationError("--output-scale must be positive") }
        let outputs = [output, confidence, measurementConfidence, report, fallback, linear].compactMap { $0 }
        let resolved = outputs.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        guard Set(resolved).count == resolved.count else { throw ValidationError("two outputs name the same file") }
    }

    func run() throws {
        let progress = Progress()
        var timer = StageTimer()
        let inputs = [flash, ambient, camera, flashProfile]
        for out in [output, confidence, measurementConfidence, report, fallback, linear].compactMap({ $0 }) {
            if AtomicFile.isProtected(out, protectedPaths: inputs) {
                throw CLIError(file: out, problem: "is an input; outputs never overwrite inputs")
            }
            try AtomicFile.checkDestination(out)
        }
        // Read and check everything before writing anything.
        let cameraProfile = try CameraProfile(path: camera)
        let flashCalibration = try FlashProfile(path: flashProfile)
        for line in ProfileWarnings.lines(camera: cameraProfile, cameraPath: camera, flash: flashCalibration, flashPath: flashProfile,
                                          countColorimetricUncertainty: colorimetricUncertainty) {
            progress.say(line)
        }
        let (flashFrame, orientation) = try InputFrames.load(path: flash, role: "flash", exposureOverride: flashExposure,
                                                             linearizeICC: linearizeIcc, whiteLevel: (cameraProfile.whiteLevel, camera))
        let (ambientFrame, ambientOrientation) = try InputFrames.load(path: ambient, role: "ambient", exposureOverride: ambientExposure,
                                                                      linearizeICC: linearizeIcc, whiteLevel: (cameraProfile.whiteLevel, camera))
        // The pair is processed as stored (the sensor's rows: the flash's shading map and the
        // rolling shutter follow them) and the outputs keep the flash frame's tag. Tags that differ
        // are said, not refused: a camera's orientation sensor can decide differently for two frames
        // stored alike (held near 45°); frames stored turned apart differ in size (refused) or fail
        // registration (said, and their confidence falls).
        if ambientOrientation != orientation {
            progress.say("warning: \(ambient) is stored with orientation \(ambientOrientation.value) (\(ambientOrientation)), the flash frame with \(orientation.value) (\(orientation)): both are processed as stored and the outputs carry the flash frame's tag; if one frame was turned by its converter and the other not, they do not show one view")
        }
        timer.lap("decode")
        progress.say("decoded \(flashFrame.image.width)x\(flashFrame.image.height) pair"
                     + (orientation == .topLeft ? "" : " stored with orientation \(orientation.value) (\(orientation)): processed as stored, the outputs carry the tag"))

        var options = FusionOptions()
        options.primaries = OutputPrimaries(rawValue: primaries)!
        options.linearSpace = LinearOutputSpace(rawValue: linearSpace)!
        options.threshold = threshold
        options.outputScale = outputScale
        options.registration.model = model == "auto" ? nil : MotionModel(rawValue: model)
        options.renderFallback = fallback != nil
        options.produceLinear = linear != nil
        options.estimateAmbientRatio = exposureRatio == "estimate"
        options.countColorimetricUncertainty = colorimetricUncertainty
        options.flattenFlashFalloff = flattenFlashFalloff
        var result = try FusionPipeline.run(flash: flashFrame, ambient: ambientFrame, camera: cameraProfile,
                                            flashProfile: flashCalibration, options: options)
        timer.lap("pipeline")
        for line in FusionWarnings.lines(result, cameraPath: camera, blackLevel: cameraProfile.blackLevel) { progress.say(line) }
        progress.say("registered (\(result.report.registration.model.rawValue), residual \(String(format: "%.3f", result.report.registration.residual))); mean confidence \(String(format: "%.3f", result.report.centerWeightedMeanConfidence)) -> \(result.report.decision.rawValue); colour confidence \(String(format: "%.3f", result.report.colorConfidence.centerWeightedMean))")

        let icc = try ICCProfileFactory.rgbGamma(space: options.primaries.space, gamma: 2.2)
        let linearICC = options.linearSpace == .rgb ? try ICCProfileFactory.rgbGamma(space: options.primaries.space, gamma: 1.0) : nil
        // TIFF has no photometric interpretation for XYZ: the description says what the planes are.
        let linearDescription = options.linearSpace == .rgb
            ? "constant-color --linear: linear \(ICCProfileFactory.description(space: options.primaries.space, gamma: 1.0)), the dark-room image lit by the flash alone"
            : "constant-color --linear: CIE 1931 XYZ (D65 white), linear; samples 1, 2, 3 are X, Y, Z (not RGB), the dark-room image lit by the flash alone"
        // The output files are independent: written at the same time, one thread each, into
        // temporary files that are renamed into place together once all are written (a failure in
        // any leaves every output as it was).
        let finished = result
        let staged = AtomicFileSet()
        var writes: [() throws -> Void] = [{
            try TIFFWriter.writeRGB16(finished.rendered16, to: output, iccProfile: icc, orientation: orientation.value,
                                      protectedPaths: inputs, staging: staged)
        }]
        if let confidence {
            writes.append {
                try TIFFWriter.writeFloat(finished.confidence, to: confidence, orientation: orientation.value, protectedPaths: inputs, staging: staged)
            }
        }
        if let measurementConfidence {
            writes.append {
                try TIFFWriter.writeFloat(finished.measurementConfidence, to: measurementConfidence, orientation: orientation.value,
                                          protectedPaths: inputs, staging: staged)
            }
        }
        if let linear, let linearImage = finished.linear {
            writes.append {
                try TIFFWriter.write(linearImage, to: linear,
                                     options: TIFFWriteOptions(sampleType: .float32, iccProfile: linearICC, imageDescription: linearDescription,
                                                               orientation: orientation.value),
                                     protectedPaths: inputs, staging: staged)
            }
        }
        if let fallback, let image = finished.fallback16 {
            writes.append {
                try TIFFWriter.writeRGB16(image, to: fallback, iccProfile: icc, orientation: orientation.value, protectedPaths: inputs, staging: staged)
            }
        }
        do { try runConcurrently(writes) } catch { staged.discard(); throw error }
        timer.lap("encode")
        for (k, v) in timer.seconds where k != "pipeline" { result.report.timingsSeconds[k] = v }
        result.report.timingsSeconds["total"] = timer.seconds.values.reduce(0, +)
        result.report.inputs = ["flash": flash, "ambient": ambient, "camera": camera, "flashProfile": flashProfile,
                                "output": output]
        for (k, v) in [("confidence", confidence), ("measurementConfidence", measurementConfidence), ("fallback", fallback), ("linear", linear), ("report", report)] {
            if let v { result.report.inputs[k] = v }
        }
        if let report {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            // A quantity that could not be measured (e.g. the registration residual of featureless
            // frames, infinite) is written as the string "inf" / "-inf" / "nan": JSON has no such numbers.
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            do {
                try AtomicFile.write(try encoder.encode(result.report), to: report, protectedPaths: inputs, staging: staged)
            } catch { staged.discard(); throw error }
        }
        try staged.commit()
        progress.say(String(format: "done in %.2f s (decode %.2f, pipeline %.2f, encode %.2f)",
                            result.report.timingsSeconds["total"] ?? 0, timer.seconds["decode"] ?? 0,
                            timer.seconds["pipeline"] ?? 0, timer.seconds["encode"] ?? 0))
    }
}

/// Progress lines on standard error.
struct Progress {
    /// Prints one line to standard error.
    func say(_ line: String) {
        FileHandle.standardError.write(Data("constant-color: \(line)\n".utf8))
    }
}

/// Runs independent jobs at the same time and rethrows the error of the first job (in the order
/// given) that failed, so that the message does not depend on thread timing.
func runConcurrently(_ jobs: [() throws -> Void]) throws {
    var errors = [(any Error)?](repeating: nil, count: jobs.count)
    errors.withUnsafeMutableBufferPointer { buffer in
        let results = SharedMutableBuffer(buffer)
        let box = UncheckedSendableBox(jobs)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
            do { try box.value[k]() } catch { results[k] = error }
        }
    }
    if let first = errors.compactMap({ $0 }).first { throw first }
}
