import ConstantColor
@testable import ConstantColorCalibration
import Foundation
import Testing

/// `ValidationRun.SetTruth.deviceMismatchWarnings`: the devices truth.json names against the profiles'.
@Suite("validate: the devices a set was captured with against the profiles' names")
struct DeviceMismatchTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("another camera and flash are said once each with their count; agreeing names, none recorded and calibrate's made-up names are not")
    func deviceNames() throws {
        var camera = try CameraProfile(path: Self.root + "/calibration/synthetic-nikon5100.camera.json")
        var flash = try FlashProfile(path: Self.root + "/calibration/synthetic-phosphor-led-yag.flash.json")
        var truth = ValidationRun.SetTruth(ambientLux: [nil, nil, nil], labelledCount: 0, trueRatioCount: 0)
        truth.devices = [("a/truth.json", "Sigma SDMerill (NPL)", flash.name), ("b/truth.json", camera.name, flash.name),
                         ("c/truth.json", "Sigma SDMerill (NPL)", nil)]
        let lines = truth.deviceMismatchWarnings(camera: camera, cameraPath: "cam.json", flash: flash, flashPath: "flash.json")
        #expect(lines.count == 1 && lines[0].contains("2 of 3 condition(s) were captured with camera 'Sigma SDMerill (NPL)'")
                && lines[0].contains("e.g. a/truth.json") && lines[0].contains("cam.json is 'Nikon 5100 (NPL)'"), "\(lines)")
        // Profiles calibrate chart named after their capture name no device: nothing to compare.
        camera.name = DefaultProfileName.camera(capture: "/x/darkroom.tif", digest: "0123456789abcdef")
        flash.name = DefaultProfileName.flash(capture: "/x/darkroom.tif", digest: "0123456789abcdef")
        #expect(camera.name == "camera calibrated from darkroom.tif (0123456789abcdef)" && flash.name == "flash calibrated from darkroom.tif (0123456789abcdef)")
        truth.devices = [("a/truth.json", "Nikon 5100 (NPL)", "Phosphor LED YAG (phone-like white LED flash)")]
        #expect(truth.deviceMismatchWarnings(camera: camera, cameraPath: "cam.json", flash: flash, flashPath: "flash.json").isEmpty)
    }

    @Test("calibrate's made-up names carry a digest of the capture's pixels: two captures of the same file name get different names, the same pixels the same one")
    func defaultNamesDifferByCapture() {
        var a = PlanarImage(width: 4, height: 3, channelCount: 3, repeating: 1000)
        let same = a
        a.samples[7] = 1001
        let da = DefaultProfileName.digest(of: a), ds = DefaultProfileName.digest(of: same)
        #expect(da.count == 16 && ds.count == 16 && da != ds && ds == DefaultProfileName.digest(of: same))
        // The size counts too: the same samples laid out 3 × 4.
        var turned = same
        turned = PlanarImage(width: 3, height: 4, channelCount: 3, repeating: 1000)
        #expect(DefaultProfileName.digest(of: turned) != ds)
        #expect(DefaultProfileName.camera(capture: "/a/darkroom.tif", digest: da) != DefaultProfileName.camera(capture: "/b/darkroom.tif", digest: ds))
    }
}
