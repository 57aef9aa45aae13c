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
            read noise referred to ISO 100). Levels come from --camera (an existing profile) or \
            --black-level and --white-level. Outputs are written atomically.
            """)

    @Argument(help: "The chart capture (linear camera-RGB TIFF).") var capture: String
    @Option(help: "Chart description (SPEC 4.3 JSON, or a truth.json with a chart).") var chart: String
    @Option(help: "Ambient-only frame of the same chart, subtracted first.") var ambient: String?
    @Option(name: [.customLong("exposure"), .customLong("capture-exposure")],
            help: "Capture exposure T,N,ISO (default: EXIF).") var exposure: String?
    @Option(help: "Ambient frame exposure T,N,ISO (default: EXIF).") var ambientExposure: String?
    @Option(help: "Existing camera profile to take the black and white levels from.") var camera: String?
    @Option(help: "Black level, DN (when no --camera).") var blackLevel: Double?
    @Option(help: "White (saturation) level, DN (when no --camera).") var whiteLevel: Double?
    @Option(help: "Camera profile output (JSON).") var cameraOut: String
    @Option(help: "Flash profile output (JSON).") var flashOut: String
    @Option(help: "Read noise at ISO 100, DN, to write instead of the photon-transfer intercept (e.g. from a dark frame or a data sheet).")
    var readNoise: Double?
    @Option(help: "Camera name written to the profiles.") var cameraName: String?
    @Option(help: "Flash name written to the flash profile.") var flashName: String?
    @Flag(help: "Invert a non-linear ICC profile's curves instead of refusing the file.") var linearizeIcc = false

    func validate() throws {
        if camera == nil {
            guard let b = blackLevel, let w = whiteLevel else {
                throw ValidationError("give --camera CAM.json, or --black-level and --white-level")
            }
            guard w > b, b >= 0 else { throw ValidationError("--white-level must exceed --black-level >= 0") }
        }
        guard URL(fileURLWithPath: cameraOut).standardizedFileURL != URL(fileURLWithPath: flashOut).standardizedFileURL else {
            throw ValidationError("--camera-out and --flash-out name the same file")
        }
        if let r = readNoise, !(r >= 0 && r.isFinite) { throw ValidationError("--read-noise must be a finite number >= 0") }
    }

    func run() throws {
        let progress = Progress()
        let existing = try camera.map { try CameraProfile(path: $0) }
        let black = blackLevel ?? existing!.blackLevel, white = whiteLevel ?? existing!.whiteLevel
        guard white > black, black >= 0 else { throw ValidationError("--white-level must exceed --black-level >= 0") }
        let description = try ChartDescription(path: chart)
        let frame = try InputFrames.load(path: capture, role: "capture", exposureOverride: exposure, linearizeICC: linearizeIcc)
        var ambientFrame: RawFrame?
        if let path = ambient {
            ambientFrame = try InputFrames.load(path: path, role: "ambient", exposureOverride: ambientExposure, linearizeICC: linearizeIcc)
        }
        let calibration = try ChartCalibration(
            capture: frame.image, ambient: ambientFrame?.image,
            ambientToCaptureScale: ambientFrame.map { frame.exposure.radiometricScale / $0.exposure.radiometricScale } ?? 1,
            blackLevel: black, whiteLevel: white, iso: frame.exposure.isoSpeed, chart: description, file: capture)
        let camName = cameraName ?? existing?.name ?? "camera calibrated from \(URL(fileURLWithPath: capture).lastPathComponent)"
        var cameraMetadata = calibration.cameraMetadata(captureFile: capture, iso: frame.exposure.isoSpeed)
        guard var noise = calibration.noise, let ptc = calibration.photonTransfer else {
            throw ChartCalibrationError.noiseFit(file: capture)
        }
        if let r = readNoise {
            noise.readNoiseDN = r
            cameraMetadata["readNoiseSource"] = .string("--read-noise")
        } else {
            cameraMetadata["readNoiseSource"] = .string("photon transfer intercept")
            if ptc.readVarianceDN2 < 2 * ptc.readVarianceStandardErrorDN2 {
                progress.say(String(format: "warning: the read noise is not measurable from this capture (intercept %.0f ± %.0f DN² at ISO %g: the darkest patch is too bright); give --read-noise R from a dark frame or the sensor's data",
                                    ptc.readVarianceDN2, ptc.readVarianceStandardErrorDN2, frame.exposure.isoSpeed))
            }
        }
        if let c = camera { cameraMetadata["levelsFrom"] = .string(c) }
        let cameraProfile = CameraProfile(name: camName, blackLevel: black, whiteLevel: white, noise: noise,
                                          spectralSensitivity: existing?.spectralSensitivity, metadata: cameraMetadata)
        let flashProfile = FlashProfile(name: flashName ?? "flash calibrated from \(URL(fileURLWithPath: capture).lastPathComponent)",
                                        cameraName: camName, whiteCameraRGB: calibration.flashWhiteCameraRGB,
                                        matrixToXYZD65: calibration.matrixToXYZD65,
                                        metadata: calibration.flashMetadata(captureFile: capture, chartFile: chart))
        let inputs = [capture, chart] + [ambient, camera].compactMap { $0 }
        try AtomicFile.write(cameraProfile.json.encodedData(), to: cameraOut, protectedPaths: inputs)
        try AtomicFile.write(flashProfile.json.encodedData(), to: flashOut, protectedPaths: inputs)
        progress.say(String(format: "%d patches: fit CIEDE2000 mean %.2f max %.2f (least-squares start %.2f); noise at ISO 100: gain %.4f e-/DN, read %.2f DN",
                            description.patches.count, calibration.meanDeltaE2000, calibration.maxDeltaE2000,
                            calibration.leastSquaresDeltaE2000.reduce(0, +) / Double(calibration.leastSquaresDeltaE2000.count),
                            noise.gainElectronsPerDN, noise.readNoiseDN))
    }
}
