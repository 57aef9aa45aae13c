import Foundation
import Testing
import TestSupport
@testable import ConstantColor

@Suite("Colorimetric uncertainty of the flash matrix")
struct ColorimetricUncertaintyTests {
    /// Balanced camera RGB with chromaticity (u, v) = (r, b)/(r+g+b), at any scale.
    static func rgb(u: Double, v: Double, scale: Double = 1) -> SIMD3<Double> { scale * SIMD3(u, 1 - u - v, v) }

    @Test("kernel regression: known answers at nodes, the largest error far from every sample, scale ignored")
    func knownAnswer() throws {
        // Two samples on nodes of an 11-node grid (spacing 0.1): A at (0.3, 0.3) with error 1, B at
        // (0.6, 0.2) with error 4. h = 0.1, w0 = 0.1.
        let map = ColorimetricUncertainty(balanced: [Self.rgb(u: 0.3, v: 0.3, scale: 2), Self.rgb(u: 0.6, v: 0.2, scale: 0.5)],
                                          chromaDeltaE2000: [1, 4], gridSize: 11, bandwidth: 0.1, priorWeight: 0.1)
        #expect(map.sampleCount == 2 && map.maxChromaDeltaE2000 == 4 && map.rmsChromaDeltaE2000.count == 121)
        // At A: wA = 1, wB = exp(−(0.3² + 0.1²)/(2·0.1²)) = e⁻⁵.
        let wB = exp(-5.0)
        let atA = ((1 * 1 + wB * 16 + 0.1 * 16) / (1 + wB + 0.1)).squareRoot()
        #expect(abs(map.rmsChromaDeltaE2000[3 * 11 + 3] - atA) <= 1e-4)
        #expect(abs(map.rms(at: SIMD2(0.3, 0.3)) - atA) <= 1e-4)
        // At B: wB = 1, wA = e⁻⁵.
        let atB = ((wB * 1 + 1 * 16 + 0.1 * 16) / (1 + wB + 0.1)).squareRoot()
        #expect(abs(map.rmsChromaDeltaE2000[2 * 11 + 6] - atB) <= 1e-4)
        // Far from both (u = 0, v = 1): the largest error, not zero.
        #expect(abs(map.rmsChromaDeltaE2000[10 * 11 + 0] - 4) <= 1e-4)
        #expect(abs(map.rms(at: SIMD2(-3, 7)) - 4) <= 1e-4)  // clamped to the corner
        // Between two nodes: bilinear in rms².
        let left = map.rmsChromaDeltaE2000[3 * 11 + 3], right = map.rmsChromaDeltaE2000[3 * 11 + 4]
        #expect(abs(map.rms(at: SIMD2(0.35, 0.3)) - ((left * left + right * right) / 2).squareRoot()) <= 1e-9)
        // Equal errors everywhere: every node holds that error.
        let flat = ColorimetricUncertainty(balanced: [Self.rgb(u: 0.2, v: 0.5), Self.rgb(u: 0.5, v: 0.1)],
                                           chromaDeltaE2000: [2, 2], gridSize: 5)
        #expect(flat.rmsChromaDeltaE2000.allSatisfy { abs($0 - 2) <= 1e-4 })
        // A colourless sample (sum ≤ 0) is skipped.
        let skipped = ColorimetricUncertainty(balanced: [SIMD3(0, 0, 0), Self.rgb(u: 0.3, v: 0.3)],
                                              chromaDeltaE2000: [9, 1], gridSize: 5)
        #expect(skipped.sampleCount == 1 && skipped.maxChromaDeltaE2000 == 1)
    }

    static let sample = ColorimetricUncertainty(balanced: [rgb(u: 0.3, v: 0.3), rgb(u: 0.6, v: 0.2)],
                                                chromaDeltaE2000: [0.5, 3], gridSize: 4)

    @Test("a flash profile with the map round-trips; one without has none and writes no key")
    func roundTrip() throws {
        var p = FlashProfile(name: "f", cameraName: "c", whiteCameraRGB: SIMD3(0.8, 1, 0.7), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        #expect(p.json.object?[ColorimetricUncertainty.jsonKey] == nil)
        #expect(try FlashProfile(json: p.json, file: "f.json").colorimetricUncertainty == nil)
        p.colorimetricUncertainty = Self.sample
        let text = try p.json.encodedData(file: "test")
        let back = try FlashProfile(json: try JSONValue.parse(text, file: "f.json"), file: "f.json")
        #expect(back == p)
        #expect(back.extra[ColorimetricUncertainty.jsonKey] == nil)
    }

    @Test("a malformed map is a one-line error naming the file and the key", arguments: [
        ("rmsChromaDeltaE2000", JSONValue.array([.number(1), .number(2)]), "colorimetricUncertainty.rmsChromaDeltaE2000"),
        ("rmsChromaDeltaE2000", JSONValue.array(Array(repeating: .number(-1), count: 16)), "colorimetricUncertainty.rmsChromaDeltaE2000"),
        ("gridSize", JSONValue.number(2.5), "colorimetricUncertainty.gridSize"),
        ("domain", JSONValue.string("cielab"), "colorimetricUncertainty.domain"),
        ("bandwidth", JSONValue.number(0), "colorimetricUncertainty.bandwidth"),
        ("maxChromaDeltaE2000", JSONValue.string("x"), "colorimetricUncertainty.maxChromaDeltaE2000"),
        // Finite but beyond any colour difference: its square left the Float range, and `fuse` printed
        // "colour confidence -nan" and blamed itself for a non-finite output.
        ("maxChromaDeltaE2000", JSONValue.number(1e20), "colorimetricUncertainty.maxChromaDeltaE2000"),
        ("rmsChromaDeltaE2000", JSONValue.array(Array(repeating: .number(1e20), count: 16)), "colorimetricUncertainty.rmsChromaDeltaE2000"),
    ])
    func malformed(key: String, value: JSONValue, path: String) throws {
        var p = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(1, 1, 1), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        p.colorimetricUncertainty = Self.sample
        guard case .object(var o) = p.json, case .object(var u) = o[ColorimetricUncertainty.jsonKey] else {
            Issue.record("the profile's JSON has no map"); return
        }
        u[key] = value
        o[ColorimetricUncertainty.jsonKey] = .object(u)
        do {
            _ = try FlashProfile(json: .object(o), file: "bad-flash.json")
            Issue.record("accepted a malformed \(key)")
        } catch let e as JSONFileError {
            let message = e.description
            #expect(message.contains("bad-flash.json") && message.contains(path) && !message.contains("\n"), "\(message)")
        }
        // Not an object at all.
        o[ColorimetricUncertainty.jsonKey] = .number(3)
        #expect(throws: JSONFileError.self) { try FlashProfile(json: .object(o), file: "bad-flash.json") }
    }

    @Test("pipeline: a saturated patch with a large calibration error loses confidence, a neutral one keeps it")
    func pipeline() throws {
        let scene = SyntheticScene()
        let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)
        let ambient = SIMD3<Double>(0.3e6, 0.3e6, 0.25e6)
        let f = RawFrame(image: scene.render(flashGain: 3e6, ambient: ambient, exposure: exposure, seed: 5),
                         exposure: exposure, name: "flash")
        let a = RawFrame(image: scene.render(flashGain: 0, ambient: ambient, exposure: exposure, seed: 6),
                         exposure: exposure, name: "ambient")
        var options = FusionOptions()
        options.outputScale = 1.0 / 3e6
        options.countColorimetricUncertainty = true
        var results: [FusionResult] = []
        func run(_ map: ColorimetricUncertainty?) throws -> PlanarImage {
            var profile = SyntheticScene.flashProfile
            profile.colorimetricUncertainty = map
            let r = try FusionPipeline.run(flash: f, ambient: a, camera: SyntheticScene.camera, flashProfile: profile,
                                           options: options)
            results.append(r)
            return r.confidence
        }
        // The scene's reflectances are flash-white-balanced camera RGB: the red square (0.7, 0.2, 0.15)
        // and the light neutral square (0.85, 0.85, 0.8). Calibration samples: the neutrals are right
        // to 0.3 ΔE00, the red is 6 off.
        let red = SIMD3<Double>(0.7, 0.2, 0.15), neutral = SIMD3<Double>(0.85, 0.85, 0.8)
        let map = ColorimetricUncertainty(balanced: [neutral, SIMD3(1, 1, 1), SIMD3(0.3, 0.31, 0.29), red],
                                          chromaDeltaE2000: [0.3, 0, 0.3, 6], priorWeight: 0.001)
        let zero = ColorimetricUncertainty(gridSize: 3, bandwidth: 0.1, priorWeight: 0.1, sampleCount: 0,
                                           maxChromaDeltaE2000: 0, rmsChromaDeltaE2000: Array(repeating: 0, count: 9))
        let without = try run(nil), with = try run(map), zeroMap = try run(zero)
        // A map of zeros changes nothing.
        #expect(zeroMap.samples == without.samples)
        // The measurement confidence, the gap-filled rendering and the decision do not depend on the
        // map (the gap fill and the fallback photo go through the same matrix); the report says
        // which confidence the map is.
        #expect(results[1].measurementConfidence.samples == without.samples)
        #expect(results[1].rendered16.samples == results[0].rendered16.samples)
        #expect(results[1].report.centerWeightedMeanConfidence == results[0].report.centerWeightedMeanConfidence)
        #expect(results[1].report.decision == results[0].report.decision)
        #expect(!results[0].report.colorConfidence.countsColorimetricUncertainty)
        #expect(results[1].report.colorConfidence.countsColorimetricUncertainty)
        #expect(results[1].report.colorConfidence.centerWeightedMean
                == ConfidenceSummary.centerWeightedMean(results[1].confidence))
        #expect(results[1].report.colorConfidence.centerWeightedMean < results[0].report.centerWeightedMeanConfidence)
        // Per pixel, c = c_m / (1 + c_m σ_cal²/σ₀²) with σ_cal² the map's rms² at the pixel's colour:
        // checked against the map's own Double lookup at the noise-reduced colour (linear output in
        // camera space is not available, so at pixels of the flat red and neutral squares, whose
        // balanced colours are known, the colour confidence is bounded by the σ_cal alone).
        for (x, y, colour) in [(40, 35, red), (125, 90, neutral)] {
            let rms = map.rms(at: ColorimetricUncertainty.chromaticity(balanced: colour)!)
            let cm = Double(without[x, y, 0]), c = Double(with[x, y, 0])
            let expected = cm / (1 + cm * rms * rms / 9)
            #expect(abs(c - expected) < 0.03, "(\(x), \(y)): \(c) vs \(expected)")
        }
        // Without the option, the map is the measurement confidence even when the profile has a map.
        options.countColorimetricUncertainty = false
        #expect(try run(map).samples == without.samples)
        options.countColorimetricUncertainty = true
        func mean(_ c: PlanarImage, x: Int, y: Int) -> Float {
            var s: Float = 0
            for dy in -4...4 { for dx in -4...4 { s += c[x + dx, y + dy, 0] } }
            return s / 81
        }
        let redBefore = mean(without, x: 40, y: 35), redAfter = mean(with, x: 40, y: 35)
        let neutralBefore = mean(without, x: 125, y: 90), neutralAfter = mean(with, x: 125, y: 90)
        print(String(format: "colorimetric uncertainty: red patch confidence %.3f -> %.3f, neutral %.3f -> %.3f",
                     redBefore, redAfter, neutralBefore, neutralAfter))
        #expect(redBefore > 0.8 && neutralBefore > 0.8)
        // The red's lone sample makes σ_cal ≈ 6 there (5.9 at least after interpolation between nodes),
        // which alone caps the confidence at 1/(1 + (5.9/3)²) = 0.205.
        #expect(redAfter < 0.205)
        // σ_cal ≈ 0.3 costs the neutral at most 1/(1 + 0.01) of its confidence, about 1 %.
        #expect(neutralAfter > 0.8 && neutralAfter > neutralBefore * 0.98)
    }

    /// The SIMD lookup (`ColorimetricConfidence.Grid`, Float, bilinear in the node variances)
    /// and the map's own `rms(at:)` (Double) are two implementations of one function: they must agree
    /// on random colours, including ones outside the grid's domain (clamped) and grey (the white).
    @Test("the confidence kernel's SIMD lookup equals rms(at:)² on random colours")
    func simdLookupMatchesTheMap() throws {
        var rng = SplitMix64(seed: 0xC011_0001)
        func u() -> Double { Double(rng.next() >> 11) * 0x1.0p-53 }
        let size = 13
        let map = ColorimetricUncertainty(gridSize: size, bandwidth: 0.02, priorWeight: 0.1, sampleCount: 1,
                                          maxChromaDeltaE2000: 8, rmsChromaDeltaE2000: (0..<(size * size)).map { _ in 8 * u() })
        let white = SIMD3<Double>(0.55, 1, 0.9)
        let lookup = map.lookup(flashWhiteCameraRGB: white)
        lookup.variance.withUnsafeBufferPointer { nodes in
            let grid = ColorimetricConfidence.Grid(nodes: nodes.baseAddress!, size: size, inverseWhite: lookup.inverseWhite)
            for _ in 0..<200 {
                var r = SIMD8<Float>(), g = r, b = r
                var expected = [Double](repeating: 0, count: 8)
                for k in 0..<8 {
                    // Camera RGB of a balanced colour; a few deliberately non-physical (negative) ones.
                    let balanced = SIMD3(u() * 1.2 - 0.1, u(), u() * 1.2 - 0.1) * (0.1 + 3 * u())
                    let camera = balanced * white
                    r[k] = Float(camera.x); g[k] = Float(camera.y); b[k] = Float(camera.z)
                    // The kernel takes the colour as Float: compare against the same rounded input.
                    let rounded = SIMD3(Double(r[k]), Double(g[k]), Double(b[k])) / white
                    let c = ColorimetricUncertainty.chromaticity(balanced: rounded) ?? SIMD2(1.0 / 3, 1.0 / 3)
                    let rms = map.rms(at: c)
                    expected[k] = rms * rms
                }
                let got = grid.variance(r, g, b)
                for k in 0..<8 {
                    #expect(abs(Double(got[k]) - expected[k]) <= 1e-4 * max(1, expected[k]),
                            "lane \(k): SIMD \(got[k]) vs map \(expected[k])")
                }
            }
        }
    }
}
