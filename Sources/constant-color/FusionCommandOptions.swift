import ArgumentParser
import ConstantColor
import Foundation

/// The options `fuse` and `fuse-batch` share: the calibration and how the pipeline renders. (What
/// is a pair's own — its frames, their exposure overrides, its output files — is each command's.)
struct FusionCommandOptions: ParsableArguments {
    @Option(help: "Camera profile JSON.") var camera: String
    @Option(name: .customLong("flash"), help: "Flash profile JSON.") var flashProfile: String
    @Option(help: "Space of --linear: rgb (output primaries, linear ICC embedded; the default) or xyz (D65 white at Y = 1).")
    var linearSpace: String?
    @Option(help: "Output primaries: p3 (Display P3) or srgb.") var primaries: String = "p3"
    @Option(parsing: .unconditional, help: "Decision threshold on the center-weighted mean confidence.") var threshold: Double = 0.85
    @Option(help: "Registration model: auto, translation, rigid, similarity or homography.") var model: String = "auto"
    @Option(parsing: .unconditional, help: "Fixed output exposure (linear output per normalized unit) instead of automatic.") var outputScale: Double?
    @Option(help: "Ambient-to-flash exposure ratio: estimate (from illumination edges and flicker banding in the images) or metadata (EXIF's, subtracted as it is; the images still check it, and where they contradict it fuse warns and the confidence counts the difference).")
    var exposureRatio: String = "estimate"
    @Flag(inversion: .prefixedNo,
          help: "Count the flash profile's colorimetric uncertainty (the matrix's expected error by colour) in the confidence map, when it has one. The gap fill and the decision use the measurement confidence either way.")
    var colorimetricUncertainty = true
    @Flag(help: "Accept inputs with a non-linear ICC profile by inverting its curves.") var linearizeIcc = false
    @Flag(help: "With a flash profile that has a shading map (calibrate flat-field), flatten the flash's fall-off too (its colour shading is always corrected).")
    var flattenFlashFalloff = false

    func validate() throws {
        guard OutputPrimaries(rawValue: primaries) != nil else { throw ValidationError("--primaries must be p3 or srgb") }
        guard LinearOutputSpace(rawValue: linearSpace ?? "rgb") != nil else { throw ValidationError("--linear-space must be rgb or xyz") }
        guard model == "auto" || MotionModel(rawValue: model) != nil else {
            throw ValidationError("--model must be auto, translation, rigid, similarity or homography")
        }
        guard FusionOptions.thresholdRange.contains(threshold) else { throw ValidationError("--threshold must be in [0, 1]") }
        guard ["estimate", "metadata"].contains(exposureRatio) else { throw ValidationError("--exposure-ratio must be estimate or metadata") }
        if let s = outputScale, !FusionOptions.outputScaleRange.contains(s) {
            throw ValidationError("--output-scale must be a positive number from 1e-30 to 1e20")
        }
    }

    /// Refuses `--linear-space` without the linear output it describes (`producesLinear`): it was ignored.
    func checkLinearSpace(producesLinear: Bool) throws {
        if linearSpace != nil && !producesLinear {
            throw ValidationError("--linear-space describes the --linear output, which is not asked for")
        }
    }

    /// The pipeline's options these flags set (`validate` has run); which optional outputs a pair
    /// asks for is the pair's (`FusionOptions.renderFallback`, `produceLinear`).
    var fusionOptions: FusionOptions {
        var options = FusionOptions()
        options.primaries = OutputPrimaries(rawValue: primaries)!
        options.linearSpace = LinearOutputSpace(rawValue: linearSpace ?? "rgb")!
        options.threshold = threshold
        options.outputScale = outputScale
        options.registration.model = model == "auto" ? nil : MotionModel(rawValue: model)
        options.estimateAmbientRatio = exposureRatio == "estimate"
        options.countColorimetricUncertainty = colorimetricUncertainty
        options.flattenFlashFalloff = flattenFlashFalloff
        return options
    }
}
