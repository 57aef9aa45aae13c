import ArgumentParser
import ConstantColor
import ConstantColorIO
import ConstantColorSynth
import Foundation

/// `constant-color calibrate spectral` (SPEC 3): camera + flash profiles from spectral data.
struct CalibrateSpectral: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spectral",
        abstract: "Camera and flash profiles from the camera's spectral sensitivities and the flash's SPD.",
        discussion: """
            The flash white is the camera's response to a perfect white under the flash; the 3x3 matrix \
            from flash-white-balanced camera RGB to XYZ (D65, CIE 1931 2 deg) is the white-preserving \
            least-squares fit (Finlayson & Drew 1997) over the training reflectances (default: the 190 \
            rawtoaces v1 reflectances of the spectral folder). Fit errors (CIEDE2000, training set and \
            ColorChecker) go into the flash profile's metadata; the per-training-sample errors, smoothed over \
            camera chromaticity, become its colorimetricUncertainty map (used by the confidence). Outputs are written atomically.
            """)

    @Option(help: "Camera spectral sensitivities (SPEC 4.2 JSON).") var cameraSensitivity: String
    @Option(help: "Flash spectral power distribution (SPEC 4.2 JSON).") var flashSpd: String
    @Option(help: "Camera profile output (JSON).") var cameraOut: String
    @Option(help: "Flash profile output (JSON).") var flashOut: String
    @Option(parsing: .unconditional, help: "Black level, DN.") var blackLevel: Double = 1024
    @Option(parsing: .unconditional, help: "White (saturation) level, DN.") var whiteLevel: Double = 60000
    @Option(parsing: .unconditional, help: "Read noise at the reference ISO, DN.") var readNoise: Double = 8
    @Option(parsing: .unconditional, help: "Conversion gain at the reference ISO, electrons per DN.") var gain: Double = 0.25
    @Option(parsing: .unconditional, help: "ISO at which --read-noise and --gain hold.") var referenceIso: Double = 100
    @Option(help: "Training reflectances (set JSON: wavelengthsNm, names, values).") var training: String?
    @Option(help: "Camera name (default: the sensitivity file's name).") var cameraName: String?
    @Option(help: "Flash name (default: the SPD file's name).") var flashName: String?
    @Option(help: "Spectral data folder (CMFs, D65, ColorChecker).") var spectra: String?
    @Option(parsing: .unconditional, help: "Largest mean CIEDE2000 over the ColorChecker accepted (as calibrate chart's): a camera's 3×3 matrix fits it to about 1–4; far beyond, the sensitivities (their wavelength range, a channel's data) or the SPD are wrong. Above it nothing is written and the exit status is 1.")
    var maxFitError: Double = 8

    /// How far below 0 a training reflectance may be (measurement noise).
    static let reflectanceNoise = 0.02
    /// The largest training reflectance factor accepted (fluorescent samples exceed 1: up to 1.44 in the rawtoaces set).
    static let largestReflectance = 2.0

    func validate() throws {
        guard whiteLevel > blackLevel, blackLevel >= 0, whiteLevel.isFinite else {
            throw ValidationError("--white-level must exceed --black-level >= 0 (finite)")
        }
        guard readNoise >= 0, gain > 0, referenceIso > 0, readNoise.isFinite, gain.isFinite, referenceIso.isFinite else {
            throw ValidationError("--read-noise must be >= 0, --gain and --reference-iso positive (finite)")
        }
        guard maxFitError > 0 && maxFitError.isFinite else { throw ValidationError("--max-fit-error must be a positive number") }
        guard URL(fileURLWithPath: cameraOut).standardizedFileURL != URL(fileURLWithPath: flashOut).standardizedFileURL else {
            throw ValidationError("--camera-out and --flash-out name the same file, \(cameraOut)")
        }
    }

    func run() throws {
        let library = try spectra.map { try SpectralLibrary(directory: $0) } ?? SpectralLibrary()
        let trainingPath = training ?? library.path(SpectralLibrary.File.trainingRawtoaces)
        // Both outputs checked before anything is written.
        for out in [cameraOut, flashOut] {
            try AtomicFile.checkDestination(out, protectedPaths: [cameraSensitivity, flashSpd, trainingPath])
        }
        let sensitivityJSON = try JSONValue.read(path: cameraSensitivity)
        let sensitivity = try CameraSensitivity(json: sensitivityJSON, file: cameraSensitivity)
        let flashJSON = try JSONValue.read(path: flashSpd)
        let flash = try SpectralDistribution(json: flashJSON, file: flashSpd)
        // Spectral tables sampled coarsely, or with a gap, are interpolated across it (SPEC 4.2): said.
        for (json, file) in [(sensitivityJSON, cameraSensitivity), (flashJSON, flashSpd)] {
            if let note = SpectralDistribution.samplingNote(json: json, file: file) { Progress().say("warning: " + note) }
        }
        // A power distribution: no negative power, and some light.
        let power = try JSONObjectReader(flashJSON, file: flashSpd).numbers("values")
        if let negative = power.first(where: { $0 < 0 }) {
            throw CLIError(file: flashSpd, problem: "key 'values': a spectral power distribution cannot be negative (holds \(negative))")
        }
        guard power.contains(where: { $0 > 0 }) else {
            throw CLIError(file: flashSpd, problem: "key 'values': the flash has no power at any wavelength")
        }
        // A table that stops where the camera still sees: its end values stand in for the light there.
        let measuredNm = try JSONObjectReader(flashJSON, file: flashSpd).numbers("wavelengthsNm")
        if let lo = measuredNm.min(), let hi = measuredNm.max() {
            let share = SpectralCalibration.responseShareOutside(lo...hi, flash: flash, camera: sensitivity)
            if let c = (0..<3).max(by: { share[$0] < share[$1] }), share[c] > SpectralCalibration.largestExtrapolatedShare {
                throw CLIError(file: flashSpd, problem: String(format: "covers %g–%g nm, but %.1f %% of the camera's %@ response to it lies outside, where the table's end values would stand in for the light (CIE 015:2004 §7.2.2.1); measure the flash over the camera's whole sensitivity (at most %g %% may lie outside)", lo, hi, 100 * share[c], ["red", "green", "blue"][c], 100 * SpectralCalibration.largestExtrapolatedShare))
            }
        }
        let set = try SpectralSet(path: trainingPath)
        // Reflectance factors: fractions of a perfect white, a little above 1 at most (fluorescence),
        // not negative beyond noise. Percentages (×100) fitted the same matrix but printed other fit
        // errors and doubled the colorimetric uncertainty map, silently.
        let rows = (try JSONValue.read(path: trainingPath).object?["values"]?.array ?? []).map { $0.doubles ?? [] }
        for (i, row) in rows.enumerated() {
            if let v = row.first(where: { $0 < -Self.reflectanceNoise }) {
                throw CLIError(file: trainingPath, problem: "key 'values[\(i)]': a reflectance factor cannot be negative (holds \(v))")
            }
            if let v = row.first(where: { $0 > Self.largestReflectance }) {
                throw CLIError(file: trainingPath, problem: "key 'values[\(i)]': reflectance factors are fractions of a perfect white (0…1); \(v) is not (percentages? divide by 100)")
            }
        }
        let cal: SpectralCalibration
        do { cal = try SpectralCalibration(camera: sensitivity, flash: flash, training: set, library: library) } catch {
            // Said of the file whose data cannot be calibrated.
            switch error {
            case .noFlashResponse:
                throw CLIError(file: cameraSensitivity, problem: "has a channel with no response to the flash of \(flashSpd) (its sensitivity is 0 wherever the flash has power)")
            case .tooFewReflectances(let n):
                throw CLIError(file: trainingPath, problem: "holds \(n) training reflectances; at least 3 are needed")
            case .singular:
                throw CLIError(file: cameraSensitivity, problem: "the camera's responses to the training reflectances of \(trainingPath) under the flash of \(flashSpd) do not span three dimensions (channels with the same or no sensitivity?); cannot fit a matrix")
            }
        }

        // A matrix that renders the ColorChecker this far off is not a working calibration (sensitivities
        // covering 500–600 nm only fitted it to 8.6 mean, 21 max, and were written without a word).
        guard cal.colorCheckerMeanDeltaE2000 <= maxFitError else {
            throw CheckFailed(message: String(format: "%@: the matrix fitted with %@ renders the ColorChecker to a mean CIEDE2000 of %.1f (max %.1f; training %.1f), beyond --max-fit-error %g: check the sensitivities' wavelength range and channels; no profile written",
                                              cameraSensitivity, flashSpd, cal.colorCheckerMeanDeltaE2000, cal.colorCheckerMaxDeltaE2000,
                                              cal.trainingMeanDeltaE2000, maxFitError))
        }
        let camName = cameraName ?? sensitivity.name
        let cameraProfile = CameraProfile(
            name: camName, blackLevel: blackLevel, whiteLevel: whiteLevel,
            noise: NoiseModel(readNoiseDN: readNoise, gainElectronsPerDN: gain, referenceISO: referenceIso),
            spectralSensitivity: sensitivityJSON,
            metadata: ["source": .string("constant-color calibrate spectral"), "sensitivityFile": .string(cameraSensitivity)])
        var flashProfile = FlashProfile(
            name: flashName ?? flash.name, cameraName: camName, whiteCameraRGB: cal.flashWhiteCameraRGB,
            matrixToXYZD65: cal.matrixToXYZD65, spectralPowerDistribution: flashJSON,
            metadata: cal.metadata(trainingName: set.name, source: set.source)
                .merging(["flashSPDFile": .string(flashSpd)]) { a, _ in a })
        flashProfile.colorimetricUncertainty = cal.colorimetricUncertainty
        let inputs = [cameraSensitivity, flashSpd, trainingPath]
        try WrittenProfileCheck.check(flash: flashProfile, at: flashOut, camera: (cameraProfile, cameraOut))
        try AtomicFile.writeJSON([(cameraProfile.json, cameraOut), (flashProfile.json, flashOut)], protectedPaths: inputs)
        Progress().say(String(format: "matrix fitted over %d reflectances: mean/max CIEDE2000 %.2f/%.2f (training), %.2f/%.2f (ColorChecker)",
                              cal.trainingCount, cal.trainingMeanDeltaE2000, cal.trainingMaxDeltaE2000,
                              cal.colorCheckerMeanDeltaE2000, cal.colorCheckerMaxDeltaE2000))
    }
}
