import Foundation
import Testing
@testable import ConstantColor

@Suite("Registration")
struct RegistrationTests {
    let scene = SyntheticScene()
    let flashExposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)
    let ambientExposure = ExposureSettings(exposureTimeSeconds: 1.0 / 15, fNumber: 2, isoSpeed: 200)

    func frames(_ truth: Matrix3) -> (LinearFrame, LinearFrame) {
        let cam = SyntheticScene.camera
        let f = scene.render(flashGain: 3e6, ambient: SIMD3(4e5, 3.5e5, 2e5), exposure: flashExposure, seed: 1)
        let a = scene.render(flashGain: 0, ambient: SIMD3(4e5, 3.5e5, 2e5), ambientFromFlash: truth, exposure: ambientExposure, seed: 2)
        return (ExposureNormalization.normalize(raw: f, exposure: flashExposure, camera: cam),
                ExposureNormalization.normalize(raw: a, exposure: ambientExposure, camera: cam))
    }

    /// RMS over the frame of the difference between two point maps.
    func rmsError(_ a: Matrix3, _ b: Matrix3) -> Double {
        var sum = 0.0, n = 0.0
        for y in stride(from: 0.5, to: Double(scene.height), by: 4) {
            for x in stride(from: 0.5, to: Double(scene.width), by: 4) {
                let p = a * SIMD3(x, y, 1), q = b * SIMD3(x, y, 1)
                sum += pow(p.x / p.z - q.x / q.z, 2) + pow(p.y / p.z - q.y / q.z, 2); n += 1
            }
        }
        return (sum / n).squareRoot()
    }

    @Test("recovers a known sub-pixel shift and picks translation")
    func shift() {
        let truth = Matrix3([1, 0, 1.37, 0, 1, -0.62, 0, 0, 1])
        let (f, a) = frames(truth)
        let r = Registration.register(flash: f, ambient: a)
        let error = rmsError(r.ambientFromFlash, truth)
        #expect(error < Tolerance.registrationPixels, "RMS error \(error) px")
        #expect(r.model == .translation)
    }

    @Test("recovers a known rotation and shift and picks a rotating model")
    func rotation() {
        let angle = 0.6 * Double.pi / 180
        let cx = 80.0, cy = 60.0
        // Rotate about the center, then shift.
        let c = cos(angle), s = sin(angle)
        let truth = Matrix3([c, -s, cx - c * cx + s * cy + 0.8, s, c, cy - s * cx - c * cy - 1.3, 0, 0, 1])
        let (f, a) = frames(truth)
        let r = Registration.register(flash: f, ambient: a)
        let error = rmsError(r.ambientFromFlash, truth)
        #expect(error < Tolerance.registrationPixels, "RMS error \(error) px")
        #expect(r.model != .translation)
    }

    @Test("a fixed model is honoured")
    func fixedModel() {
        let truth = Matrix3([1, 0, -2.25, 0, 1, 0.5, 0, 0, 1])
        let (f, a) = frames(truth)
        let r = Registration.register(flash: f, ambient: a, options: RegistrationOptions(model: .similarity))
        #expect(r.model == .similarity)
        #expect(rmsError(r.ambientFromFlash, truth) < Tolerance.registrationPixels, "\(r.ambientFromFlash.rows) \(r.residualByModel)")
    }
}
