import ConstantColorCalibration
import ConstantColorIO
import Foundation
import Testing
@testable import ConstantColor

/// Confidence honesty (issue 7) on the committed all-effects condition
/// (`fixtures/real-hard/200lux-4000K-on-all-effects`, made by `Scripts/render-hard-fixtures --committed`).
///
/// The honesty figures are printed, not asserted: issue 7's floors (≤ 1 % confident-and-wrong, ≤ 10 %
/// accurate-but-unsure) are not met yet. Asserted: the measurement runs on the committed truth, and
/// the pipeline's ratio estimate (stage 4a) is within 2 % of the truth on this 324×216 frame (the
/// 1 % of issue 7 is measured on the 600×400 set by `Scripts/render-hard-fixtures DIR --validate`).
@Suite("Confidence honesty on the committed all-effects condition", .serialized)
struct HardFixtureHonestyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let folder = root.appendingPathComponent("fixtures/real-hard/200lux-4000K-on-all-effects").path

    @Test("print the honesty and exposure-ratio figures", arguments: [
        ("synthetic-nikon5100.camera.json", "synthetic-phosphor-led-yag.flash.json", false),
        ("synthetic-nikon5100.camera.json", "synthetic-phosphor-led-yag.flash.json", true),
        ("chart-nikon5100.camera.json", "chart-phosphor-led-yag.flash.json", false),
        ("chart-nikon5100.camera.json", "chart-phosphor-led-yag.flash.json", true),
    ])
    func honestyFigures(cameraFile: String, flashFile: String, colorimetric: Bool) throws {
        let camera = try CameraProfile(path: Self.root.appendingPathComponent("calibration/" + cameraFile).path)
        let flash = try FlashProfile(path: Self.root.appendingPathComponent("calibration/" + flashFile).path)
        let s = try ValidationRun.score(folder: Self.folder, camera: camera, flash: flash,
                                        countColorimetricUncertainty: colorimetric)
        let h = try #require(s.honesty, "the committed hard condition has a label map")
        let r = try #require(s.exposureRatio)
        #expect(h.labelledPixelCount > 324 * 216 / 2)
        #expect(r.trueRatio != nil && r.effective != nil && r.nominal != r.trueRatio)
        func pct(_ v: Double?) -> String { v.map { String(format: "%.2f %%", 100 * $0) } ?? "n/a" }
        // The ratio is estimated (stage 4a) and within 2 % of the truth on this small, shaken frame.
        #expect(abs(try #require(r.relativeError(r.estimated))) < 0.02)
        print("hard condition \(s.name), profiles \(cameraFile) + \(flashFile)\(colorimetric ? " + colorimetric uncertainty" : ""): " + String(
            format: "ΔE00 mean %.2f, patch confidence %.3f, %@; ", s.meanDeltaE2000, s.meanPatchConfidence, s.decision.rawValue)
            + "confident (≥ 0.8) and > 3 ΔE00 chroma off: \(pct(h.confidentWrongFraction)) of \(h.confidentPixelCount) px; "
            + "within 1.5 but confidence < 0.5: \(pct(h.accurateLowConfidenceFraction)) of \(h.accuratePixelCount) px; "
            + String(format: "ratio EXIF %.4f, true %.4f, effective %.4f, estimate %@",
                     r.nominal, r.trueRatio ?? .nan, r.effective ?? .nan, r.estimated.map { String(format: "%.4f", $0) } ?? "absent"))
    }
}
