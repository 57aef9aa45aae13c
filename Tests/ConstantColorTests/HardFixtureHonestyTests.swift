import ConstantColorCalibration
import ConstantColorIO
import Foundation
import Testing
@testable import ConstantColor

/// Confidence honesty (issue 7) on the committed all-effects condition
/// (`fixtures/real-hard/200lux-4000K-on-all-effects`, made by `Scripts/render-hard-fixtures --committed`).
///
/// The condition's flash has colour shading (bluer in the middle), so a profile without a shading map
/// leaves a colour error the confidence cannot know of: with the committed profiles the figures are
/// printed, not asserted. With the shading map that `calibrate flat-field` makes from the committed
/// flat-field capture (`fixtures/real-hard/flat-field`, the same flash; its dark frame subtracted
/// pixel by pixel, as `calibrate flat-field --dark` does), the colour confidence must meet issue 7's floors: ≤ 1 % confident-and-wrong,
/// ≤ 10 % accurate-but-unsure. Asserted always: the measurement runs on the committed truth, and
/// the pipeline's ratio estimate (stage 4a) is within 2 % of the truth on this 324×216 frame (the
/// 1 % of issue 7 is measured on the 600×400 set by `Scripts/render-hard-fixtures DIR --validate`).
@Suite("Confidence honesty on the committed all-effects condition", .serialized)
struct HardFixtureHonestyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let folder = root.appendingPathComponent("fixtures/real-hard/200lux-4000K-on-all-effects").path

    /// `flash` with the shading map fitted to the committed flat-field capture and its dark frame.
    static func shaded(_ flash: FlashProfile, camera: CameraProfile) throws -> FlashProfile {
        let dir = root.appendingPathComponent("fixtures/real-hard/flat-field")
        let capture = try TIFFReader.read(path: dir.appendingPathComponent("darkroom.tif").path)
        let dark = try TIFFReader.read(path: dir.appendingPathComponent("dark.tif").path)
        let fit = try FlatFieldCalibration(capture: capture.image, dark: dark.image, blackLevel: camera.blackLevel,
                                           whiteLevel: camera.whiteLevel, noise: camera.noise,
                                           iso: try #require(capture.exposure.settings).isoSpeed, file: "darkroom.tif")
        return flash.adding(shading: fit.shading)
    }

    @Test("print the honesty and exposure-ratio figures; with the flash's shading map, issue 7's floors hold", arguments: [
        ("synthetic-nikon5100.camera.json", "synthetic-phosphor-led-yag.flash.json", false, false),
        ("synthetic-nikon5100.camera.json", "synthetic-phosphor-led-yag.flash.json", true, false),
        ("synthetic-nikon5100.camera.json", "synthetic-phosphor-led-yag.flash.json", true, true),
        ("chart-nikon5100.camera.json", "chart-phosphor-led-yag.flash.json", false, false),
        ("chart-nikon5100.camera.json", "chart-phosphor-led-yag.flash.json", true, false),
        ("chart-nikon5100.camera.json", "chart-phosphor-led-yag.flash.json", true, true),
    ])
    func honestyFigures(cameraFile: String, flashFile: String, colorimetric: Bool, shading: Bool) throws {
        let camera = try CameraProfile(path: Self.root.appendingPathComponent("calibration/" + cameraFile).path)
        var flash = try FlashProfile(path: Self.root.appendingPathComponent("calibration/" + flashFile).path)
        if shading { flash = try Self.shaded(flash, camera: camera) }
        let s = try ValidationRun.score(folder: Self.folder, camera: camera, flash: flash,
                                        countColorimetricUncertainty: colorimetric)
        let h = try #require(s.honesty, "the committed hard condition has a label map")
        let r = try #require(s.exposureRatio)
        #expect(h.labelledPixelCount > 324 * 216 / 2)
        #expect(r.trueRatio != nil && r.effective != nil && r.nominal != r.trueRatio)
        func pct(_ v: Double?) -> String { v.map { String(format: "%.2f %%", 100 * $0) } ?? "n/a" }
        // The ratio is estimated (stage 4a) and within 2 % of the truth on this small, shaken frame.
        #expect(abs(try #require(r.relativeError(r.estimated))) < 0.02)
        if shading {
            #expect(try #require(h.confidentWrongFraction) <= 0.01)
            #expect(try #require(h.accurateLowConfidenceFraction) <= 0.10)
        }
        print("hard condition \(s.name), profiles \(cameraFile) + \(flashFile)\(shading ? " + flat-field shading map" : "")\(colorimetric ? " + colorimetric uncertainty" : ""): " + String(
            format: "ΔE00 mean %.2f, patch confidence %.3f, %@; ", s.meanDeltaE2000, s.meanPatchConfidence, s.decision.rawValue)
            + "confident (≥ 0.8) and > 3 ΔE00 chroma off: \(pct(h.confidentWrongFraction)) of \(h.confidentPixelCount) px; "
            + "within 1.5 but confidence < 0.5: \(pct(h.accurateLowConfidenceFraction)) of \(h.accuratePixelCount) px; "
            + String(format: "ratio EXIF %.4f, true %.4f, effective %.4f, estimate %@",
                     r.nominal, r.trueRatio ?? .nan, r.effective ?? .nan, r.estimated.map { String(format: "%.4f", $0) } ?? "absent")
            + (r.estimatedErrorZ.map { String(format: " (stated ±%.2f %%, error %+.2f of it)", 100 * (r.estimatedRelativeUncertainty ?? .nan), $0) } ?? "")
            // The reliability table in one line: per claimed-σ bin, pixels, rms claimed σ / rms true error.
            + "; reliability " + h.reliability.filter { $0.pixelCount > 0 }.map { b in
                String(format: "σ %@: %d px %@/%@", b.rangeLabel, b.pixelCount, b.rmsSigma.map { String(format: "%.2f", $0) } ?? "n/a",
                       b.rmsError.map { String(format: "%.2f", $0) } ?? "n/a")
            }.joined(separator: ", "))
        #expect(h.reliability.map(\.pixelCount).reduce(0, +) + h.unclaimedPixelCount == h.labelledPixelCount)
    }

    /// On this condition the edges' channels read r₀ apart (red about 0.999, green 1.043, blue
    /// 1.018 × EXIF's, beyond their errors): r₀'s stated uncertainty counts it
    /// (`IlluminationEdgeRatio.channelHeterogeneity`), so that it covers the error, which the edges'
    /// noise alone (0.66 %) did not (the rows' mean −1.78 %, 2.7 of those σ).
    @Test func channelDisagreementCountsInTheUncertainty() throws {
        let camera = try CameraProfile(path: Self.root.appendingPathComponent("calibration/synthetic-nikon5100.camera.json").path)
        let flash = try FlashProfile(path: Self.root.appendingPathComponent("calibration/synthetic-phosphor-led-yag.flash.json").path)
        func frame(_ name: String) throws -> RawFrame {
            let decoded = try TIFFReader.read(path: Self.folder + "/" + name)
            return RawFrame(image: decoded.image, exposure: try #require(decoded.exposure.settings), name: name)
        }
        let ratio = try FusionPipeline.run(flash: try frame("flash.tif"), ambient: try frame("ambient.tif"), camera: camera,
                                           flashProfile: flash).ambientRatio
        let truth = try JSONObjectReader(JSONValue.read(path: Self.folder + "/truth.json"), file: "truth.json").object("exposure")
        // r₀ relative to EXIF: the nominal ratio over the effective one (the flicker's mean gains).
        let trueR0 = try truth.number("nominalAmbientToFlashRatio") / truth.number("effectiveAmbientToFlashRatio")
        // (The rows' mean, as `validate` compares it: the banding fitted here has a mean of its own.)
        let error = ratio.meanRatio / trueR0 - 1
        let excess = try #require(ratio.edgeChannelExcessVariance)
        let channels = ratio.edgeRatioByChannel.compactMap { $0 }
        #expect(channels.count == 3 && channels.max()! - channels.min()! > 0.02)
        let withoutExcess = (ratio.relativeUncertainty * ratio.relativeUncertainty - excess).squareRoot()
        print(String(format: "all-effects r₀ rows' mean %.4f (truth %.4f, error %+.2f %%), channels %@, stated %.2f %% (%.2f %% without the channels' excess)",
                     ratio.meanRatio, trueR0, 100 * error, channels.map { String(format: "%.3f", $0) }.joined(separator: " / "),
                     100 * ratio.relativeUncertainty, 100 * withoutExcess))
        #expect(abs(error) > 2 * withoutExcess)
        #expect(abs(error) < 2 * ratio.relativeUncertainty)
    }

    /// Validation samples a patch in the fused output only where both frames saw it: on this condition
    /// the moving object covers part of 'orange' in the ambient frame at its true position, so the
    /// ghost there is left out of orange's median (`PatchLabelMask.requiringAgreement`, through
    /// `ValidationRun.score`), while patches away from the object keep nearly all of their square.
    @Test func fusedPatchSamplesNeedBothFrames() throws {
        let camera = try CameraProfile(path: Self.root.appendingPathComponent("calibration/synthetic-nikon5100.camera.json").path)
        let flash = try FlashProfile(path: Self.root.appendingPathComponent("calibration/synthetic-phosphor-led-yag.flash.json").path)
        let s = try ValidationRun.score(folder: Self.folder, camera: camera, flash: flash)
        let truthPath = (Self.folder as NSString).appendingPathComponent("truth.json")
        let truth = try JSONValue.read(path: truthPath)
        let chart = try ChartDescription(json: truth, file: truthPath)
        let masks = try ValidationRun.patchLabelMasks(truth: truth, truthPath: truthPath, folder: Self.folder, chart: chart)
        let flashMask = try #require(masks.flash)
        let image = PlanarImage(width: flashMask.map.width, height: flashMask.map.height, channelCount: 3, repeating: 0.5)
        let flashOnly = try PatchSampling.sample(image, chart: chart, labels: flashMask, file: "flash.tif").map { $0.ownLabelFraction ?? 1 }
        let drop = zip(flashOnly, s.ownLabelFraction).map { $0 - $1 }
        let orange = try #require(chart.patches.firstIndex { $0.name == "orange" })
        print("own-label share of each patch's square, flash labels → both frames: " + chart.patches.indices.map {
            String(format: "%@ %.2f→%.2f", chart.patches[$0].name, flashOnly[$0], s.ownLabelFraction[$0]) }.joined(separator: ", "))
        #expect(drop.allSatisfy { $0 >= 0 }, "both rules keep no pixel the flash rule drops")
        #expect(drop[orange] > 0.2, "orange's ghost left out: \(drop[orange])")
        #expect(drop.indices.filter { $0 != orange }.allSatisfy { drop[$0] < drop[orange] / 2 })
    }
}
