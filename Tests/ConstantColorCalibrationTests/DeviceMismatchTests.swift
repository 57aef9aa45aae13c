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
        camera.name = DefaultProfileName.camera(capture: "/x/darkroom.tif")
        flash.name = DefaultProfileName.flash(capture: "/x/darkroom.tif")
        #expect(camera.name == "camera calibrated from darkroom.tif" && flash.name == "flash calibrated from darkroom.tif")
        truth.devices = [("a/truth.json", "Nikon 5100 (NPL)", "Phosphor LED YAG (phone-like white LED flash)")]
        #expect(truth.deviceMismatchWarnings(camera: camera, cameraPath: "cam.json", flash: flash, flashPath: "flash.json").isEmpty)
    }
}
