import Foundation
import Testing
@testable import ConstantColor

@Suite("Registration")
struct RegistrationTests {
    let scene = SyntheticScene()
    let flashExposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)
    let ambientExposure = ExposureSettings(exposureTimeSeconds: 1.0 / 15, fNumber: 2, isoSpeed: 200)

    func frames(_ truth: Matrix3) -> (LinearFrame, LinearFrame) { frames(truth, scene: scene) }

    func frames(_ truth: Matrix3, scene: SyntheticScene) -> (LinearFrame, LinearFrame) {
        let cam = SyntheticScene.camera
        let f = scene.render(flashGain: 3e6, ambient: SIMD3(4e5, 3.5e5, 2e5), exposure: flashExposure, seed: 1)
        let a = scene.render(flashGain: 0, ambient: SIMD3(4e5, 3.5e5, 2e5), ambientFromFlash: truth, exposure: ambientExposure, seed: 2)
        return (ExposureNormalization.normalize(raw: f, exposure: flashExposure, camera: cam),
                ExposureNormalization.normalize(raw: a, exposure: ambientExposure, camera: cam))
    }

    /// RMS over the frame of the difference between two point maps.
    func rmsError(_ a: Matrix3, _ b: Matrix3) -> Double { rmsError(a, b, width: scene.width, height: scene.height) }

    /// RMS over a `width` × `height` frame (a 4-pixel grid) of the difference between two point maps.
    func rmsError(_ a: Matrix3, _ b: Matrix3, width: Int, height: Int) -> Double {
        var sum = 0.0, n = 0.0
        for y in stride(from: 0.5, to: Double(height), by: 4) {
            for x in stride(from: 0.5, to: Double(width), by: 4) {
                let p = a * SIMD3(x, y, 1), q = b * SIMD3(x, y, 1)
                sum += pow(p.x / p.z - q.x / q.z, 2) + pow(p.y / p.z - q.y / q.z, 2); n += 1
            }
        }
        return (sum / n).squareRoot()
    }

    @Test("an ambient frame without light (a dark room: read noise only, or exactly black) is not registered: identity, residual unmeasured; a dim one still is")
    func darkAmbient() {
        let cam = SyntheticScene.camera
        let f = ExposureNormalization.normalize(raw: scene.render(flashGain: 3e6, ambient: .zero, exposure: flashExposure, seed: 1),
                                                exposure: flashExposure, camera: cam)
        let noise = ExposureNormalization.normalize(raw: scene.render(flashGain: 0, ambient: .zero, exposure: ambientExposure, seed: 2),
                                                    exposure: ambientExposure, camera: cam)
        var black = noise
        for i in black.image.samples.indices { black.image.samples[i] = 0 }
        for a in [noise, black] {
            let r = Registration.register(flash: f, ambient: a)
            #expect(r.ambientFromFlash == .identity && r.residual == .infinity && r.model == .translation
                    && r.notRegistered == .noAmbientLight, "\(r.ambientFromFlash.rows) \(r.residual)")
        }
        // A forced model is the one reported (the identity is in every model).
        let forced = Registration.register(flash: f, ambient: noise, options: RegistrationOptions(model: .homography))
        #expect(forced.model == .homography && forced.ambientFromFlash == .identity)
        // A dim ambient (a few hundred electrons) with a real shift is still found.
        let truth = Matrix3([1, 0, 1.37, 0, 1, -0.62, 0, 0, 1])
        let dim = ExposureNormalization.normalize(
            raw: scene.render(flashGain: 0, ambient: SIMD3(4e4, 3.5e4, 2e4), ambientFromFlash: truth, exposure: ambientExposure, seed: 2),
            exposure: ambientExposure, camera: cam)
        let r = Registration.register(flash: f, ambient: dim)
        #expect(rmsError(r.ambientFromFlash, truth) < 0.1 && r.residual.isFinite, "\(rmsError(r.ambientFromFlash, truth))")
        #expect(r.notRegistered == nil)
    }

    @Test("frames that share no structure (a uniform grey card, noisy or noise-free) are taken as captured: identity, noSharedStructure, features uncorrelated; a scene's shifted pair is registered, its features correlated (a fit on noise had moved a grey card's ambient frame by 56 px)")
    func noSharedStructure() {
        let cam = SyntheticScene.camera
        func uniform(_ level: SIMD3<Double>, exposure: ExposureSettings, seed: UInt64?) -> LinearFrame {
            var img = PlanarImage(width: scene.width, height: scene.height, channelCount: 3)
            var rng = SplitMix(seed: seed ?? 0)
            for y in 0..<scene.height {
                for x in 0..<scene.width {
                    for c in 0..<3 {
                        var v = level[c]
                        if seed != nil { v += cam.noise.variance(signalDN: v, iso: exposure.isoSpeed).squareRoot() * rng.gaussian() }
                        img[x, y, c] = Float((v + cam.blackLevel).rounded())
                    }
                }
            }
            return ExposureNormalization.normalize(raw: img, exposure: exposure, camera: cam)
        }
        for seed in [nil, 1, 2, 3] as [UInt64?] {
            let f = uniform(SIMD3(20000, 18000, 15000), exposure: flashExposure, seed: seed)
            let a = uniform(SIMD3(6000, 5000, 4000), exposure: ambientExposure, seed: seed.map { $0 + 10 })
            for model in [nil, MotionModel.homography] {
                let r = Registration.register(flash: f, ambient: a, options: RegistrationOptions(model: model))
                #expect(r.ambientFromFlash == .identity && r.notRegistered == .noSharedStructure && r.model == model ?? .translation,
                        "seed \(String(describing: seed)): \(r.ambientFromFlash.rows) \(String(describing: r.notRegistered)) ρ \(String(describing: r.featureCorrelation))")
                #expect(abs(r.featureCorrelation ?? 0) < 0.2, "\(String(describing: r.featureCorrelation))")
            }
        }
        let truth = Matrix3([1, 0, 1.37, 0, 1, -0.62, 0, 0, 1])
        let (f, a) = frames(truth)
        let r = Registration.register(flash: f, ambient: a)
        #expect(r.notRegistered == nil && (r.featureCorrelation ?? 0) > 0.5 && rmsError(r.ambientFromFlash, truth) < Tolerance.registrationPixels,
                "\(String(describing: r.featureCorrelation))")
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

    /// A hand-held camera turning about its centre: `K R K⁻¹` (Hartley & Zisserman 2004, 8.4.2)
    /// for a 320 × 240 frame with a 250 px focal length (about 65° across), tilted 0.5° about the
    /// vertical axis and 0.4° about the horizontal one, rolled 0.3°, then shifted (1.1, −0.7) px.
    /// The bottom-row terms are about 3e-5 per pixel; the perspective part of the motion (what
    /// no similarity holds) reaches about 0.5 px in the corners.
    func perspectiveTruth(width: Int, height: Int) -> Matrix3 {
        let f = 250.0, cx = Double(width) / 2, cy = Double(height) / 2
        let k = Matrix3([f, 0, cx, 0, f, cy, 0, 0, 1])
        func rx(_ a: Double) -> Matrix3 { Matrix3([1, 0, 0, 0, cos(a), -sin(a), 0, sin(a), cos(a)]) }
        func ry(_ a: Double) -> Matrix3 { Matrix3([cos(a), 0, sin(a), 0, 1, 0, -sin(a), 0, cos(a)]) }
        func rz(_ a: Double) -> Matrix3 { Matrix3([cos(a), -sin(a), 0, sin(a), cos(a), 0, 0, 0, 1]) }
        let degree = Double.pi / 180
        let rotation = rz(0.3 * degree) * ry(0.5 * degree) * rx(0.4 * degree)
        let shift = Matrix3([1, 0, 1.1, 0, 1, -0.7, 0, 0, 1])
        let h = shift * k * rotation * k.inverse!
        return Matrix3(h.m.map { $0 / h[2, 2] })
    }

    @Test("recovers a true perspective motion with the homography model, and auto explains it")
    func perspective() {
        var big = SyntheticScene()
        big.width = 320; big.height = 240
        let truth = perspectiveTruth(width: big.width, height: big.height)
        // The motion is really projective: the best similarity leaves a measurable error.
        #expect(abs(truth[2, 0]) > 1e-5 && abs(truth[2, 1]) > 1e-5, "\(truth.rows)")
        let (f, a) = frames(truth, scene: big)
        let fixed = Registration.register(flash: f, ambient: a, options: RegistrationOptions(model: .homography))
        let fixedError = rmsError(fixed.ambientFromFlash, truth, width: big.width, height: big.height)
        print("perspective: homography RMS error \(fixedError) px, residuals \(fixed.residualByModel)")
        #expect(fixed.model == .homography)
        #expect(fixedError < Tolerance.registrationPixels, "homography RMS error \(fixedError) px")
        // The scene does exercise perspective: the best similarity cannot meet the tolerance.
        let similarity = Registration.register(flash: f, ambient: a, options: RegistrationOptions(model: .similarity))
        let similarityError = rmsError(similarity.ambientFromFlash, truth, width: big.width, height: big.height)
        print("perspective: similarity RMS error \(similarityError) px")
        #expect(similarityError > 3 * Tolerance.registrationPixels, "similarity RMS error \(similarityError) px")
        // Automatic selection must find that the perspective terms pay for themselves here.
        let auto = Registration.register(flash: f, ambient: a)
        let autoError = rmsError(auto.ambientFromFlash, truth, width: big.width, height: big.height)
        print("perspective: auto chose \(auto.model), RMS error \(autoError) px, residuals \(auto.residualByModel)")
        #expect(auto.model == .homography, "\(auto.residualByModel)")
        #expect(autoError < 0.15, "auto (\(auto.model)) RMS error \(autoError) px")
    }
}
