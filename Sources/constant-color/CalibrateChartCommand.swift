import ArgumentParser
import ConstantColor
import ConstantColorCalibration
import ConstantColorIO
import Foundation

/// `constant-color calibrate chart` (SPEC 3): camera + flash profiles from a capture of a chart.
struct CalibrateChart: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chart",
        abstract: "Camera and flash profiles from a dark-room flash capture of a color chart.",
        discussion: """
            CAPTURE.tif is a linear camera-RGB TIFF of the chart lit by the flash alone (or, with \
            --ambient, a flash frame whose ambient-only twin, taken without moving, is subtracted \
            after exposure normalization). CHART.json is a SPEC 4.3 chart description (illuminant \
            D65 or D50; D50 is adapted with Bradford), bare or under a "chart" key (a fixture's \
            truth.json). Each patch is the median of its square, clipped pixels excluded; a patch \
            outside the image or mostly clipped is an error. The flash white comes from the neutral \
            patches (C*ab < 3), the 3x3 matrix from white-preserving least squares refined to \
            minimize CIEDE2000, and the noise model from photon transfer over the patches (gain and \
            read noise referred to ISO 100; variances from differences of pixels 5 apart, since a \
            demosaiced frame's neighbours share their noise) with the noise's spatial correlation \
            (noise.correlation: the variance of 2x2 and 4x4 tile means; patches of 16 px or more). \
            A flash-lit chart is too bright to measure the read \
            noise: give --dark DARK.tif, a frame from the same camera with the lens capped (same \
            size, ideally the same ISO); its read noise (variance of differences of pixels 5 apart \
            in a row / 2) is the photon transfer intercept and only the gain is fitted; its blocks \
            also measure the correlation. Levels \
            come from --camera (an existing profile) or --black-level and --white-level; the dark \
            frame's measured black level is reported, never substituted. Outputs are written \
            atomically.
            """)

    @Argument(help: "The chart capture (linear camera-RGB TIFF).") var capture: String
    @Option(help: "Chart description (SPEC 4.3 JSON, or a truth.json with a chart).") var chart: String
    @Option(help: "Ambient-only frame of the same chart, subtracted first.") var ambient: String?
    @Option(name: [.customLong("exposure"), .customLong("capture-exposure")], parsing: .unconditional,
            help: "Capture exposure T,N,ISO (default: EXIF).") var exposure: String?
    @Option(parsing: .unconditional, help: "Ambient frame exposure T,N,ISO (default: EXIF).") var ambientExposure: String?
    @Option(help: "Existing camera profile to take the black and white levels from.") var camera: String?
    @Option(parsing: .unconditional, help: "Black level, DN (when no --camera).") var blackLevel: Double?
    @Option(parsing: .unconditional, help: "White (saturation) level, DN (when no --camera).") var whiteLevel: Double?
    @Option(help: "Camera profile output (JSON).") var cameraOut: String
    @Option(help: "Flash profile output (JSON).") var flashOut: String
    @Option(help: "Dark frame: the same camera, lens capped (black level + read noise); gives the read noise.")
    var dark: String?
    @Option(parsing: .unconditional, help: "Dark frame exposure T,N,ISO (default: EXIF).") var darkExposure: String?
    @Option(parsing: .unconditional, help: "Read noise at ISO 100, DN, to write instead of the photon-transfer intercept (e.g. from a data sheet; without --dark).")
    var readNoise: Double?
    @Option(help: "Camera name written to the profiles.") var cameraName: String?
    @Option(help: "Flash name written to the flash profile.") var flashName: String?
    @Flag(help: "Invert a non-linear ICC profile's curves instead of refusing the file.") var linearizeIcc = false
    @Option(parsing: .unconditional, help: "Largest mean CIEDE2000 of the fit accepted: a 3×3 matrix of a working camera fits a ColorChecker to about 1–2.5 (above 2.5 a warning); far beyond, the capture or the chart description (positions, orientation, another chart) is wrong. Above it nothing is written and the exit status is 1.")
    var maxFitError: Double = 8
    /// A figure in a message: whole numbers from 10 up, three significant digits below (on an
    /// 8-bit scale variances are fractions of a DN², which "%.0f" printed as 0).
    static func figure(_ v: Double) -> String { abs(v) >= 10 ? String(format: "%.0f", v) : String(format: "%.3g", v) }

    /// A fit mean above this (ΔE00) is warned about (README, "Calibrate your own camera", step 5).
    static let suspectFitError = 2.5

    func validate() throws {
        guard maxFitError > 0 && maxFitError.isFinite else { throw ValidationError("--max-fit-error must be a positive number") }
        if camera != nil && (blackLevel != nil || whiteLevel != nil) {
            throw ValidationError("give --camera CAM.json or --black-level and --white-level, not both (the profile has its levels)")
        }
        if camera == nil {
            guard let b = blackLevel, let w = whiteLevel else {
                throw ValidationError("give --camera CAM.json, or --black-level and --white-level")
            }
            guard w > b, b >= 0, w.isFinite else { throw ValidationError("--white-level must exceed --black-level >= 0 (finite)") }
        }
        guard URL(fileURLWithPath: cameraOut).standardizedFileURL != URL(fileURLWithPath: flashOut).standardizedFileURL else {
            throw ValidationError("--camera-out and --flash-out name the same file, \(cameraOut)")
        }
        if let r = readNoise, !(r >= 0 && r.isFinite) { throw ValidationError("--read-noise must be a finite number >= 0") }
        if readNoise != nil && dark != nil { throw ValidationError("give --dark or --read-noise, not both") }
        if darkExposure != nil && dark == nil { throw ValidationError("--dark-exposure needs --dark") }
        if ambientExposure != nil && ambient == nil { throw ValidationError("--ambient-exposure needs --ambient") }
    }

    func run() throws {
        // Both outputs checked before anything is written.
        for out in [cameraOut, flashOut] {
            try AtomicFile.checkDestination(out, protectedPaths: [capture, chart] + [ambient, camera, dark].compactMap { $0 })
        }
        let progress = Progress()
        let existing = try camera.map { try CameraProfile(path: $0) }
        let black = blackLevel ?? existing!.blackLevel, white = whiteLevel ?? existing!.whiteLevel
        guard white > black, black >= 0 else { throw ValidationError("--white-level must exceed --black-level >= 0") }
        let description = try ChartDescription(path: chart)
        // Too few neutral patches for the flash white is the chart description's fault: said with its name.
        if description.neutralIndices.count < FlashWhiteEstimate.minimumNeutralPatches {
            throw CLIError(file: chart, problem: "\(FlashWhiteEstimate.Failure.tooFewNeutralPatches(found: description.neutralIndices.count))")
        }
        if let problem = description.chromaticCoverageProblem { throw CLIError(file: chart, problem: problem) }
        let whiteSource = (white, camera ?? "--white-level")
        let captureLoaded = try InputFrame.load(path: capture, role: .capture, exposureOverride: exposure,
                                                 linearizeICC: linearizeIcc, whiteLevel: whiteSource)
        let frame = captureLoaded.frame
        try Self.requireShownAsStored(captureLoaded.orientation, path: capture)
        // The frames' warnings and the dark frame's lines are said once the chart has been measured:
        // a refused run prints its one error line alone.
        var frameWarnings = captureLoaded.warnings
        var ambientFrame: RawFrame?
        if let path = ambient {
            // The capture given as its own ambient twin subtracts everything: said as such (it was
            // blamed on a patch with no signal).
            try refuseCaptureAsAmbient(path, capture: capture, named: "chart capture",
                                       twin: "the ambient-only twin of the capture, taken without the flash and without moving")
            let loaded = try InputFrame.load(path: path, role: .ambient, exposureOverride: ambientExposure, linearizeICC: linearizeIcc,
                                              whiteLevel: whiteSource)
            try Self.requireShownAsStored(loaded.orientation, path: path)
            ambientFrame = loaded.frame
            frameWarnings += loaded.warnings
        }
        var darkFrame: DarkFrame?
        var darkLines: [String] = []
        if let path = dark {
            let loaded = try InputFrame.load(path: path, role: .dark, exposureOverride: darkExposure, linearizeICC: linearizeIcc,
                                              whiteLevel: whiteSource)
            let d = loaded.frame
            frameWarnings += loaded.warnings
            let measured = try DarkFrame(frame: d.image, iso: d.exposure.isoSpeed, blackLevel: black,
                                         expectedWidth: frame.image.width, expectedHeight: frame.image.height, file: path)
            darkFrame = measured
            darkLines.append(String(format: "dark frame: black level %.2f DN (R %.2f, G %.2f, B %.2f), read noise %.3f DN at ISO %g",
                                    measured.blackLevelDN, measured.blackLevelPerChannelDN.x, measured.blackLevelPerChannelDN.y,
                                    measured.blackLevelPerChannelDN.z, measured.readNoiseDN, measured.iso)
                             + (measured.iso == 100 ? "" : String(format: " (%.3f DN at ISO 100)", measured.readNoiseDN(referenceISO: 100))))
            if abs(measured.blackLevelDN - black) > measured.readNoiseDN {
                darkLines.append(String(format: "warning: the dark frame's black level %.2f DN differs from the configured %g DN by more than its read noise (%.2f DN); the configured level is kept (fix --black-level or the --camera profile if the dark frame is right)",
                                        measured.blackLevelDN, black, measured.readNoiseDN))
            }
            // A dark frame much longer or shorter than the capture measures another black level and read noise.
            darkLines += DarkFrameExposureWarnings.lines(
                darkTimeSeconds: d.exposure.exposureTimeSeconds, darkISO: measured.iso,
                captureTimeSeconds: frame.exposure.exposureTimeSeconds, captureISO: frame.exposure.isoSpeed,
                isoConsequence: "its read noise is scaled by the ISO ratio (NoiseModel), which assumes the read noise is constant in electrons")
        }
        let calibration = try ChartCalibration(
            capture: frame.image, ambient: ambientFrame?.image,
            ambientToCaptureScale: ambientFrame.map { frame.exposure.radiometricScale / $0.exposure.radiometricScale } ?? 1,
            blackLevel: black, whiteLevel: white, iso: frame.exposure.isoSpeed, chart: description,
            darkFrame: darkFrame, file: capture, ambientFile: ambient)
        guard var noise = calibration.noise, let ptc = calibration.photonTransfer else {
            throw ChartCalibrationError.noiseFit(file: capture, varianceFalls: calibration.varianceFallsWithSignal)
        }
        let digest = DefaultProfileName.digest(of: frame.image)
        let camName = cameraName ?? existing?.name ?? DefaultProfileName.camera(capture: capture, digest: digest)
        var cameraMetadata = calibration.cameraMetadata(captureFile: capture, iso: frame.exposure.isoSpeed, darkFile: dark)
        if let r = readNoise {
            noise.readNoiseDN = r
            cameraMetadata["readNoiseSource"] = .string("--read-noise")
        }
        // The intercept rests on the darkest points; where their noise is under half a code (8-bit
        // files) the quantization sets their variance, not the sensor.
        let quantized = ptc.isQuantizationLimited
        if readNoise == nil && darkFrame == nil {
            // A variance cannot be negative: an intercept far below 0 means the signal axis is offset,
            // σ² = a + b·(s − Δ) fitted as a − b·Δ + b·s — the black level is off by about Δ (too low
            // where the intercept is negative). The fit and the matrix are then wrong too.
            if ptc.readVarianceDN2 < -5 * ptc.readVarianceStandardErrorDN2, ptc.shotSlope > 0 {
                let offset = -ptc.readVarianceDN2 / ptc.shotSlope
                let intercept = "the photon transfer intercept is \(Self.figure(ptc.readVarianceDN2)) ± \(Self.figure(ptc.readVarianceStandardErrorDN2)) DN², impossible for a noise variance"
                if quantized {
                    throw CLIError(file: capture, problem: intercept + ": the darker patches' noise is under half a code (variance below \(PhotonTransfer.quantizedVarianceDN2) DN²), so the quantization, not the sensor, sets it, and the photon transfer cannot be read from these samples; calibrate from 16-bit (raw-developed) captures")
                }
                throw CLIError(file: capture, problem: intercept + ": the black level \(Self.figure(black)) is about \(Self.figure(offset)) DN too low (\(Self.figure(black + offset)) would fit), or the data are not linear (gamma-encoded: a variance that does not grow in proportion to the signal); check --black-level, or give --dark DARK.tif")
            }
        }
        for line in frameWarnings + darkLines { progress.say(line) }
        // Without a dark frame or a given value the read noise is the intercept's estimate, which a
        // flash-lit chart fixes poorly (its darkest patch is bright): said every time, as README step 5 says.
        if readNoise == nil && darkFrame == nil {
            let measurable = ptc.readVarianceDN2 >= 2 * ptc.readVarianceStandardErrorDN2
            progress.say("warning: the read noise is \(measurable ? "the photon transfer intercept's estimate" : "not measurable from this capture") (intercept \(Self.figure(ptc.readVarianceDN2)) ± \(Self.figure(ptc.readVarianceStandardErrorDN2)) DN² at ISO \(Self.figure(frame.exposure.isoSpeed)): the darkest patch is too bright to fix it), writing " + String(format: "%.2f", noise.readNoiseDN) + " DN\(measurable ? "" : " (the intercept clamped at 0)"); give --dark DARK.tif (lens capped) or --read-noise R from the sensor's data")
        }
        if let c = camera { cameraMetadata["levelsFrom"] = .string(c) }
        var cameraProfile = CameraProfile(name: camName, blackLevel: black, whiteLevel: white, noise: noise,
                                          spectralSensitivity: existing?.spectralSensitivity, metadata: cameraMetadata)
        // The given profile's keys this tool does not know are the camera's: kept (SPEC 4.1).
        cameraProfile.extra = existing?.extra ?? [:]
        cameraProfile.noiseExtra = existing?.noiseExtra ?? [:]
        var flashProfile = FlashProfile(name: flashName ?? DefaultProfileName.flash(capture: capture, digest: digest),
                                        cameraName: camName, whiteCameraRGB: calibration.flashWhiteCameraRGB,
                                        matrixToXYZD65: calibration.matrixToXYZD65,
                                        metadata: calibration.flashMetadata(captureFile: capture, chartFile: chart))
        flashProfile.colorimetricUncertainty = calibration.colorimetricUncertainty
        // The white is the flash's at the neutral patches, not at the frame centre: flat-field's map is made relative to it.
        flashProfile.whiteReference = FlashWhiteReference(pixelPositions: description.neutralIndices.map { description.patches[$0].center },
                                                          width: frame.image.width, height: frame.image.height)
        let inputs = [capture, chart] + [ambient, camera, dark].compactMap { $0 }
        // The worst-fitting patches, named: a swapped or misplaced patch stands out.
        let worst = calibration.deltaE2000.indices.sorted { calibration.deltaE2000[$0] > calibration.deltaE2000[$1] }.prefix(3)
            .map { String(format: "'%@' %.1f", description.patches[$0].name, calibration.deltaE2000[$0]) }.joined(separator: ", ")
        guard calibration.meanDeltaE2000 <= maxFitError else {
            throw CheckFailed(message: String(format: "%@: the matrix fits the chart to a mean CIEDE2000 of %.1f (max %.1f; worst %@), beyond --max-fit-error %g: check the patch positions and orientation in %@; no profile written",
                                              capture, calibration.meanDeltaE2000, calibration.maxDeltaE2000, worst, maxFitError, chart))
        }
        try WrittenProfileCheck.check(flash: flashProfile, at: flashOut, camera: (cameraProfile, cameraOut))
        try AtomicFile.writeJSON([(cameraProfile.json, cameraOut), (flashProfile.json, flashOut)], protectedPaths: inputs)
        progress.say(String(format: "%d patches: fit CIEDE2000 mean %.2f max %.2f (worst %@; least-squares start %.2f); noise at ISO 100: gain %.4f e-/DN, read %.2f DN",
                            description.patches.count, calibration.meanDeltaE2000, calibration.maxDeltaE2000, worst,
                            calibration.leastSquaresDeltaE2000.reduce(0, +) / Double(calibration.leastSquaresDeltaE2000.count),
                            noise.gainElectronsPerDN, noise.readNoiseDN))
        if quantized && (darkFrame != nil || readNoise != nil) {
            progress.say("warning: the darker patches' noise is under half a code (variance below \(PhotonTransfer.quantizedVarianceDN2) DN²): the quantization, not the sensor, sets it there, and the gain fitted from them is not the sensor's; calibrate from 16-bit (raw-developed) captures")
        }
        if calibration.varianceFallsWithSignal {
            progress.say("warning: the patches' noise variance falls as their signal rises, which no sensor's shot noise does: the data are not linear (gamma-encoded?), and the noise model and matrix written describe the encoding, not the camera; give linear captures (a raw development with gamma 1, or the file's ICC profile with --linearize-icc)")
        }
        // README step 5: above ~2 a wrong chart description, non-linear data or bad lighting is
        // likely; warned above 2.5 (a working camera's 3×3 matrix fits a ColorChecker to about 1–2.5).
        // One or two patches far worse than the rest, while the mean passes: a patch swapped or
        // misplaced in the description (or a shadow or highlight on it) is the likelier cause, and its
        // error inflates the colour-error map around its colour.
        let outliers = calibration.deltaE2000.indices.filter {
            calibration.deltaE2000[$0] > Self.outlierPatchError && calibration.deltaE2000[$0] > Self.outlierPatchFactor * calibration.meanDeltaE2000
        }
        if !outliers.isEmpty && outliers.count <= 2 {
            let names = outliers.map { String(format: "'%@' %.1f", description.patches[$0].name, calibration.deltaE2000[$0]) }.joined(separator: ", ")
            progress.say(String(format: "warning: %@ ΔE00 against a fit mean of %.2f: a patch that far from the rest is seldom the camera's; check its name, position and reference value in %@ (two patches swapped?) and whether a shadow or highlight lies on it",
                                names, calibration.meanDeltaE2000, chart))
        }
        if calibration.meanDeltaE2000 > Self.suspectFitError {
            progress.say(String(format: "warning: a fit mean of %.2f ΔE00 is above %g, which a linear capture of a well-described, evenly lit chart seldom exceeds (a camera whose 3×3 matrix fits its sensor poorly can); check the chart description (positions, reference values, illuminant), the lighting, and that the data are linear (gamma-encoded files need their ICC profile and --linearize-icc)",
                                calibration.meanDeltaE2000, Self.suspectFitError))
        }
        // Partly clipped patches (more than half is refused): their medians are biased low.
        let partlyClipped = calibration.clippedFractions.indices.filter { calibration.clippedFractions[$0] > Self.partlyClippedFraction }
        if !partlyClipped.isEmpty {
            let names = partlyClipped.map { String(format: "'%@' %.0f %%", description.patches[$0].name, 100 * calibration.clippedFractions[$0]) }
            progress.say("warning: \(partlyClipped.count) patch(es) of \(capture) are partly clipped (\(names.joined(separator: ", ")) of their pixels at the white level): the median of the rest is too dark, and the fit and white with it; shoot with less exposure")
        }
        if !calibration.structuredPatches.isEmpty {
            let names = calibration.structuredPatches.map { "'\(description.patches[$0].name)'" }
            progress.say("note: the noise model leaves out \(names.count) of \(description.patches.count) patch squares whose noise stands out from the others' (structure, not noise: an ambient shadow's edge, a highlight, an edge of the patch): " + names.joined(separator: ", "))
        }
        if let c = calibration.noiseCorrelation {
            progress.say(String(format: "noise correlation (R, G, B): 2x2 block factor %.2f %.2f %.2f, area factor %.2f %.2f %.2f (1 = independent pixels; demosaiced frames are higher)",
                                c.blockFactor.x, c.blockFactor.y, c.blockFactor.z, c.areaFactor.x, c.areaFactor.y, c.areaFactor.z))
        } else {
            progress.say("warning: the patches' sampled squares are too small (under 16 pixels) to measure the noise's spatial correlation; pixels' noise is taken as independent, which overstates the confidence of demosaiced frames")
        }
    }

    /// A patch is said to stand out when its fit error exceeds this (ΔE00) and `outlierPatchFactor` times
    /// the mean: a probe's swapped pairs sat at 10–13 ΔE00 against a mean of 1.8–2.3, every other patch
    /// at most 2.3; the committed chart's worst patch is 5.1 against a mean of 1.5 (cyan).
    static let outlierPatchError = 8.0, outlierPatchFactor = 3.0

    /// A patch with more than this fraction of its pixels clipped is said (`ChartCalibration.clippedFractions`).
    static let partlyClippedFraction = 0.01

    /// Refuses a capture shown turned: the chart description's patch centres are positions in the
    /// image as stored, and a user reads them off the image as a viewer shows it.
    static func requireShownAsStored(_ orientation: TIFFOrientation, path: String) throws {
        guard orientation == .topLeft else {
            throw CLIError(file: path, problem: "is stored with orientation \(orientation.value) (\(orientation)): a viewer shows it turned, while the chart description's patch centres are read in the stored pixels; save the capture with orientation 1 (as shown) and give the centres in that image")
        }
    }
}
