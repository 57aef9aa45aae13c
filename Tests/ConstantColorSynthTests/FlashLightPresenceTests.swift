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
    static func fuse(flashLux: Double, flashTimeFactor: Double, flicker: Bool = false, seed: UInt64 = 3) throws -> FusionResult {
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
        #expect(light.structure < 1.3)
        #expect(light.ambientScale.allSatisfy { abs($0 / factor - 1) < 0.005 })
        #expect(result.report.rendering.exposureSource == .flashFrame)
        #expect(result.report.decision == .fallback)
        #expect(result.measurementConfidence.samples.allSatisfy { $0 == 0 })
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
    }
}
