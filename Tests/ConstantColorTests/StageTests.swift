import TestSupport
import Foundation
import Testing
@testable import ConstantColor

@Suite("Pipeline stages")
struct StageTests {
    let scene = SyntheticScene()
    let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)

    @Test("no ambient light: the dark-room estimate is the flash frame, exactly without noise")
    func noAmbient() throws {
        let raw = scene.render(flashGain: 3e6, ambient: .zero, exposure: exposure)
        let ambientRaw = scene.render(flashGain: 0, ambient: .zero, exposure: exposure)
        let f = ExposureNormalization.normalize(raw: raw, exposure: exposure, camera: SyntheticScene.camera)
        let a = ExposureNormalization.normalize(raw: ambientRaw, exposure: exposure, camera: SyntheticScene.camera)
        let identity = RegistrationResult(model: .translation, ambientFromFlash: .identity, residual: 0,
                                          residualByModel: [:])
        let d = DarkRoomEstimate(flash: f, ambient: a, registration: identity)
        var maxDifference: Float = 0
        for i in d.difference.samples.indices { maxDifference = max(maxDifference, abs(d.difference.samples[i] - f.image.samples[i])) }
        #expect(maxDifference == 0)
        // With ambient light in both frames (no noise, identity registration), D is F − A to the bit:
        // an addition, a scaled subtraction or a resampling off by a pixel would not give it.
        let lamp = SIMD3<Double>(2e5, 1.5e5, 1e5)
        let litFlash = ExposureNormalization.normalize(raw: scene.render(flashGain: 3e6, ambient: lamp, exposure: exposure),
                                                       exposure: exposure, camera: SyntheticScene.camera)
        let litAmbient = ExposureNormalization.normalize(raw: scene.render(flashGain: 0, ambient: lamp, exposure: exposure),
                                                         exposure: exposure, camera: SyntheticScene.camera)
        let lit = DarkRoomEstimate(flash: litFlash, ambient: litAmbient, registration: identity)
        var mismatches = 0, largestAmbient: Float = 0
        for i in lit.difference.samples.indices {
            if lit.difference.samples[i] != litFlash.image.samples[i] - litAmbient.image.samples[i] { mismatches += 1 }
            largestAmbient = max(largestAmbient, litAmbient.image.samples[i])
        }
        #expect(largestAmbient > 0 && mismatches == 0, "\(mismatches) samples are not F − A (largest ambient \(largestAmbient))")
    }

    @Test("exposure normalization divides by t·ISO/100/N² after the black level")
    func normalization() {
        var raw = PlanarImage(width: 2, height: 1, channelCount: 3, repeating: 1256)
        raw[1, 0, 2] = 65535
        // t·ISO/100/N² = 0.01 · 2 / 7.84 (ISO and f-number that do not cancel): (1256 − 256) / it = 392 000.
        let e = ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2.8, isoSpeed: 200)
        let f = ExposureNormalization.normalize(raw: raw, exposure: e, camera: SyntheticScene.camera)
        for c in 0..<3 { #expect(abs(f.image[0, 0, c] - 392_000) < 0.1, "\(f.image[0, 0, c])") }
        #expect(f.clipped == [0, 1])
    }

    @Test("exposure text parses fractions and rejects garbage")
    func exposureParsing() throws {
        let e = try ExposureSettings(parsing: "1/60, 2.8, 100")
        #expect(abs(e.exposureTimeSeconds - 1.0 / 60) < 1e-12 && e.fNumber == 2.8 && e.isoSpeed == 100)
        #expect(throws: ExposureError.self) { try ExposureSettings(parsing: "1/60,2.8") }
        #expect(throws: ExposureError.self) { try ExposureSettings(parsing: "0,2.8,100") }
        #expect(throws: ExposureError.self) { try ExposureSettings(parsing: "nan,2.8,100") }
        // Positive and finite but beyond any camera (they made the normalized samples infinite).
        for (text, name) in [("1e-300,2.8,100", "exposure time"), ("1/60,1e-308,100", "f-number"), ("1/60,2.8,1e308", "ISO"),
                             ("1e6,2.8,100", "exposure time")] {
            #expect {
                try ExposureSettings(parsing: text)
            } throws: { error in
                guard case .implausible(let n, _, _, _) = error as? ExposureError else { return false }
                return n == name
            }
        }
        // The ranges' ends are cameras' (a 1/8000 s shutter, f/0.95, ISO 4 560 000, an hour's exposure).
        for text in ["1/8000,0.95,4560000", "3600,22,50"] { #expect(throws: Never.self) { try ExposureSettings(parsing: text) } }
        // Plain decimals only: `Double(_:)` would read hexadecimal ("0x10" as 16) and "inf".
        for text in ["1/79,0x10,100", "0x1p-6,2.8,100", "1/60,2.8,0x64", "1/inf,2.8,100", "1/60,2.8,1_000", "1/60,2.8,1e"] {
            #expect(throws: ExposureError.malformed(text), "\(text)") { try ExposureSettings(parsing: text) }
        }
        let typed = try ExposureSettings(parsing: "+1e-2, .5e1, 1.0E2")
        #expect(typed.exposureTimeSeconds == 0.01 && typed.fNumber == 5 && typed.isoSpeed == 100)
    }

    @Test("a sample far below the black level (a float file's no-data value) is flagged and taken at the floor: one pixel cannot make the frame's moments infinite")
    func farBelowBlackIsFloored() throws {
        // 19 pixels: the no-data value at x = 1 (the eight-at-a-time loop) and x = 17 (the rest).
        var raw = PlanarImage(width: 19, height: 1, channelCount: 3)
        for x in 0..<19 { for c in 0..<3 { raw[x, 0, c] = 1000 } }
        raw[1, 0, 1] = -3.4028235e38
        raw[17, 0, 2] = -3.4028235e38
        let e = ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 100)
        let f = ExposureNormalization.normalize(raw: raw, exposure: e, camera: SyntheticScene.camera)
        #expect(f.clipped == (0..<19).map { $0 == 1 || $0 == 17 ? LinearFrame.belowFloor : 0 })
        let floor = f.image[1, 0, 1]
        #expect(floor.isFinite && floor < 0 && (floor * floor).isFinite, "\(floor)")
        #expect(f.image[17, 0, 2] == floor)
        #expect(f.image[1, 0, 0] == f.image[0, 0, 0] && f.image[17, 0, 1] == f.image[0, 0, 1])
    }

    func confidence(flashGain: Double, ambient: SIMD3<Double>, clipDisk: (Double, Double, Double)? = nil) throws -> FusionResult {
        let f = RawFrame(image: scene.render(flashGain: flashGain, ambient: ambient, exposure: exposure, seed: 5, clipDisk: clipDisk),
                         exposure: exposure, name: "flash")
        let a = RawFrame(image: scene.render(flashGain: 0, ambient: ambient, exposure: exposure, seed: 6),
                         exposure: exposure, name: "ambient")
        var options = FusionOptions()
        options.outputScale = 1.0 / 3e6  // fixed, so that runs compare
        return try FusionPipeline.run(flash: f, ambient: a, camera: SyntheticScene.camera,
                                      flashProfile: SyntheticScene.flashProfile, options: options)
    }

    @Test("confidence falls when the flash SNR halves")
    func snr() throws {
        let ambient = SIMD3<Double>(1.5e6, 1.5e6, 1.2e6)
        let strong = try confidence(flashGain: 1.2e6, ambient: ambient)
        let weak = try confidence(flashGain: 0.6e6, ambient: ambient)
        // σ²/σ₀² = 1/c − 1 per valid pixel: halving the flash doubles the relative noise of D (the
        // ambient's shot noise dominates), so the variance must grow well beyond the other terms'
        // share — at least 2× at the median (4× if noise were all of it).
        func medianRelativeVariance(_ r: FusionResult) -> Float {
            let q = r.confidence.samples.filter { $0 > 0 }.map { 1 / $0 - 1 }.sorted()
            return q[q.count / 2]
        }
        let qStrong = medianRelativeVariance(strong), qWeak = medianRelativeVariance(weak)
        #expect(qWeak > 2 * qStrong, "median σ²/σ₀²: strong \(qStrong) weak \(qWeak)")
        #expect(strong.report.centerWeightedMeanConfidence > weak.report.centerWeightedMeanConfidence)
    }

    @Test("clipped speculars get zero confidence; well-lit surroundings do not")
    func clipped() throws {
        let r = try confidence(flashGain: 3e6, ambient: SIMD3(1e5, 1e5, 1e5), clipDisk: (20, 100, 4))
        #expect(r.confidence[20, 100, 0] == 0)
        #expect(r.confidence[23, 100, 0] == 0)
        // Not clipped themselves (their centres 4.53, 4.53 and 4.95 px from the disk's), each beside a
        // clipped pixel: the one-pixel dilation.
        #expect(r.confidence[24, 100, 0] == 0 && r.confidence[20, 104, 0] == 0 && r.confidence[23, 103, 0] == 0)
        #expect(r.confidence[26, 100, 0] > 0, "two pixels beyond the dilation: \(r.confidence[26, 100, 0])")
        #expect(r.confidence[40, 35, 0] > 0.8)
    }

    @Test("the tone-curve table matches the exact curve")
    func toneCurve() {
        let curve = ToneCurve()
        var last: Float = -1
        for i in 0...4000 {
            let x = Float(i) / 1000
            let exact = curve.encodeExactly(x), table = curve.encode(x)
            // The table interpolates linearly in √(x/8): 1.4e-7 at most. (Under half a 16-bit code;
            // a lookup without interpolation was 2e-4 off, a 256-entry table 1.2e-4.)
            #expect(abs(exact - table) < 1e-6, "x \(x): \(exact) vs \(table)")
            #expect(table >= last)
            last = table
        }
        #expect(curve.encode(-1) == 0 && curve.encode(.nan) == 0)
        #expect(abs(curve.encodeExactly(0.5) - powf(0.5, 1 / 2.2)) < 1e-6)
    }

    @Test("center-weighted mean: a constant map gives the constant; the center outweighs the corner; equals the formula")
    func centerWeighted() {
        let flat = PlanarImage(width: 50, height: 30, channelCount: 1, repeating: 0.7)
        #expect(abs(ConfidenceSummary.centerWeightedMean(flat) - Double(Float(0.7))) < 1e-9)
        // Equal areas of zero confidence: 8×8 at the center versus 8×8 in a corner.
        var holeInCenter = PlanarImage(width: 50, height: 30, channelCount: 1, repeating: 1)
        var holeInCorner = holeInCenter
        for y in 0..<8 { for x in 0..<8 { holeInCenter[21 + x, 11 + y, 0] = 0; holeInCorner[x, y, 0] = 0 } }
        #expect(ConfidenceSummary.centerWeightedMean(holeInCenter) < ConfidenceSummary.centerWeightedMean(holeInCorner))
        // Against the SPEC 2.8 formula evaluated directly, pixel by pixel.
        var rng = SplitMix(seed: 9)
        var random = PlanarImage(width: 37, height: 23, channelCount: 1)
        for i in random.samples.indices { random.samples[i] = Float(rng.uniform()) }
        let sigma = 0.25 * 23.0
        var num = 0.0, den = 0.0
        for y in 0..<23 { for x in 0..<37 {
            let w = exp(-(pow(Double(x) + 0.5 - 18.5, 2) + pow(Double(y) + 0.5 - 11.5, 2)) / (2 * sigma * sigma))
            num += w * Double(random[x, y, 0]); den += w
        } }
        #expect(abs(ConfidenceSummary.centerWeightedMean(random) - num / den) < 1e-9)
        #expect(ConfidenceSummary.decision(meanConfidence: 0.85, threshold: 0.85) == .constantColor)
        #expect(ConfidenceSummary.decision(meanConfidence: 0.8499, threshold: 0.85) == .fallback)
    }
}
