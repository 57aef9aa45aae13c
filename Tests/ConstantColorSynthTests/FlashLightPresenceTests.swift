import Foundation
import Testing
import ConstantColor
@testable import ConstantColorSynth

/// A flash that did not fire: the flash frame is an ambient exposure, and with exposure tags that
/// understate its exposure `D = F − r·A` is the ambient-lit scene, which nothing but
/// `FlashLightPresence` tells from flash light. Rendered pairs whose truth is known: the flash at
/// 0.001 lux (nothing), at 10 lux (weak, but there) and at 400 lux.
@Suite("No flash light in the flash frame: a scaled ambient exposure is not taken for flash light", .serialized)
struct FlashLightPresenceTests {
    static let lib = Fixture.library
    static let camera = AmbientRatioTests.camera, flash = AmbientRatioTests.flash

    /// Renders `envelope(200 lux, 4000 K)` with the flash at `flashLux` and the flash frame's true
    /// exposure time `flashTimeFactor` × its tag, and fuses it at 600 × 400.
    static func fuse(flashLux: Double, flashTimeFactor: Double, flicker: Bool = false, seed: UInt64 = 3,
                     camera: CameraProfile = camera) throws -> FusionResult {
        let cam = SynthCamera(name: "Nikon 5100 (NPL)", sensitivity: try lib.camera(file: SpectralLibrary.File.nikon5100))
        let r = SceneRenderer(library: lib, camera: cam, flash: try lib.distribution(file: SpectralLibrary.File.phosphorLEDYAG),
                              flashLuxAtCenter: flashLux)
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0)
        c.effects.exposureError = .given(ExposureFactors(flashTime: flashTimeFactor, flashGain: 1, ambientTime: 1, ambientGain: 1))
        if flicker { c.effects.flicker = Flicker(frequencyHz: 100, depth: 0.3) }
        let cap = try r.render(c, width: 600, height: 400, seed: seed, options: RenderOptions())
        var options = FusionOptions()
        options.produceLinear = false
        return try FusionPipeline.run(flash: RawFrame(image: cap.flash.image, exposure: cap.flash.exposure, name: "flash"),
                                      ambient: RawFrame(image: cap.ambient!.image, exposure: cap.ambient!.exposure, name: "ambient"),
                                      camera: camera, flashProfile: flash, options: options)
    }

    /// Before the check, these pairs were `constantColor` at 0.91–0.95 (1.5× and more) and 0.52–0.77
    /// (1.1–1.2×) with the ambient light's colours.
    @Test("a flash that did not fire, its frame's exposure 1.1–3× its tag (or under flicker): confidence 0, the flash frame's rendering, said in the report",
          arguments: [(1.1, false), (1.5, false), (3.0, false), (1.5, true)])
    func unfiredFlashIsNotFlashLight(factor: Double, flicker: Bool) throws {
        let result = try Self.fuse(flashLux: 0.001, flashTimeFactor: factor, flicker: flicker)
        let light = try #require(result.report.flashLight)
        print(String(format: "no flash, flash frame %.2f× its tag%@: structure %.3f, scales %@", factor, flicker ? " (flicker)" : "",
                     light.structure, light.ambientScale.map { String(format: "%.4f", $0) }.joined(separator: " ")))
        #expect(light.noFlashLight)
        #expect(light.structure < 1.3 && light.neighbourStructure < 1.2)
        #expect(light.ambientScale.allSatisfy { abs($0 / factor - 1) < 0.005 })
        #expect(result.report.rendering.exposureSource == .flashFrame)
        #expect(result.report.decision == .fallback)
        #expect(result.measurementConfidence.samples.allSatisfy { $0 == 0 })
    }

    /// The camera profile understates the frames' noise 3× (its gain 9×, its read noise ⅓): the
    /// residuals about the scaled ambient frame are then 9× their stated variance and noise passes
    /// for shadow edges, so `structure` (about 9.6) and the edges would keep a flash that did not
    /// fire; the residuals' comparison with their neighbours' differences does not depend on the
    /// noise model's scale. A flash that fired stays flash light under the same profile.
    @Test("the camera profile's noise understated 3×: a flash that did not fire is still found (residuals white beside their neighbours), one that fired is still flash light",
          arguments: [(0.001, true), (400.0, false)])
    func understatedNoiseModel(flashLux: Double, unfired: Bool) throws {
        var understated = Self.camera
        understated.noise.gainElectronsPerDN *= 9
        understated.noise.readNoiseDN /= 3
        let result = try Self.fuse(flashLux: flashLux, flashTimeFactor: 1.5, camera: understated)
        let light = try #require(result.report.flashLight)
        print(String(format: "flash %g lux, noise understated 3×: structure %.3f, against neighbours %.3f, confidence %.3f", flashLux,
                     light.structure, light.neighbourStructure, result.report.centerWeightedMeanConfidence))
        #expect(light.noFlashLight == unfired)
        if unfired {
            #expect(light.structure > FlashLightPresence.absentStructure)
            #expect(light.neighbourStructure < 1.2)
            #expect(result.measurementConfidence.samples.allSatisfy { $0 == 0 })
        } else {
            #expect(light.neighbourStructure > 5)
        }
    }

    /// The flash light is there: a full flash, and a weak one (10 lux against 200 lux of ambient
    /// light, structure 2–3, its edges measured) with the same exposure error: nothing changes.
    @Test("a flash that fired, strong or weak, is not taken for a missing one", arguments: [400.0, 10.0])
    func firedFlashIsFlashLight(flashLux: Double) throws {
        let result = try Self.fuse(flashLux: flashLux, flashTimeFactor: 1.1)
        let light = try #require(result.report.flashLight)
        print(String(format: "flash %.0f lux, flash frame 1.1× its tag: structure %.3f, scales %@, confidence %.3f", flashLux,
                     light.structure, light.ambientScale.map { String(format: "%.4f", $0) }.joined(separator: " "),
                     result.report.centerWeightedMeanConfidence))
        #expect(!light.noFlashLight)
        #expect(result.report.rendering.exposureSource == .darkRoom)
        #expect(light.structure > (flashLux > 100 ? 10 : 1.5))
        #expect(light.neighbourStructure > (flashLux > 100 ? 10 : 1.5))
    }
}
