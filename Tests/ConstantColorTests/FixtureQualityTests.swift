import ConstantColorIO
import Foundation
import Testing
@testable import ConstantColor

/// Fuses every committed ColorChecker fixture and scores it against its truth (SPEC 5).
@Suite("Quality on the committed ColorChecker fixtures", .serialized)
struct FixtureQualityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("fixtures/colorchecker")

    struct Scored {
        var name: String
        var lux: Double
        var patchesLab: [SIMD3<Double>]
        var ambientPhotoLab: [SIMD3<Double>]
        var accuracy: [Double]
        var meanPatchConfidence: Double
        var registrationErrorRMS: Double
        var decision: FusionDecision
        var centerWeighted: Double
    }

    static func conditionFolders() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        return names.sorted().map { fixtures.appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("ambient.tif").path) }
    }

    /// Median of each plane over the central square of a patch.
    static func median(_ img: PlanarImage, center: [Double], halfSize: Double) -> SIMD3<Double> {
        let x0 = Int((center[0] - halfSize).rounded()), x1 = Int((center[0] + halfSize).rounded())
        let y0 = Int((center[1] - halfSize).rounded()), y1 = Int((center[1] + halfSize).rounded())
        var out = SIMD3<Double>(0, 0, 0)
        for c in 0..<3 {
            var v: [Float] = []
            for y in y0..<y1 { for x in x0..<x1 { v.append(img[x, y, c]) } }
            v.sort()
            out[c] = Double(v[v.count / 2])
        }
        return out
    }

    static func score(_ folder: URL, camera: CameraProfile, flash: FlashProfile) throws -> Scored {
        let truth = try JSONObjectReader(JSONValue.read(path: folder.appendingPathComponent("truth.json").path), file: "truth.json")
        let f = try TIFFReader.read(path: folder.appendingPathComponent("flash.tif").path)
        let a = try TIFFReader.read(path: folder.appendingPathComponent("ambient.tif").path)
        var options = FusionOptions()
        options.linearSpace = .xyz
        let result = try FusionPipeline.run(flash: RawFrame(image: f.image, exposure: f.exposure.settings!, name: "flash"),
                                            ambient: RawFrame(image: a.image, exposure: a.exposure.settings!, name: "ambient"),
                                            camera: camera, flashProfile: flash, options: options)
        // The ambient photo (gray world), in XYZ, for the variance reduction.
        let ambientFrame = ExposureNormalization.normalize(raw: a.image, exposure: a.exposure.settings!, camera: camera)
        let ambientRendering = AmbientPhotoRendering.render(ambientFrame, flash: flash, primaries: .sRGB).rendering
        let ambientXYZ = ambientRendering.linearOutput(ambientFrame.image, space: .xyz)
        let patches = try truth.object("chart").members["patches"]!.array!.map { try JSONObjectReader($0, file: "truth.json") }
        let white = WhitePoint.d65XYZ
        var measuredXYZ: [SIMD3<Double>] = [], referenceLab: [SIMD3<Double>] = [], ambientLab: [SIMD3<Double>] = []
        var confidences: [Double] = []
        for p in patches {
            let center = try p.numbers("center", count: 2), h = try p.number("halfSize")
            measuredXYZ.append(median(result.linear, center: center, halfSize: h))
            let lab = try p.numbers("lab", count: 3)
            referenceLab.append(SIMD3(lab[0], lab[1], lab[2]))
            ambientLab.append(ColorScience.lab(fromXYZ: median(ambientXYZ, center: center, halfSize: h), white: white))
            let c = median(PlanarImage(width: result.confidence.width, height: result.confidence.height, channelCount: 3,
                                       samples: result.confidence.samples + result.confidence.samples + result.confidence.samples),
                           center: center, halfSize: h)
            confidences.append(c.x)
        }
        // One scalar exposure on the neutral patches (the last six): median of Y_ref / Y_measured.
        let ratios = (18..<24).map { ColorScience.xyz(fromLab: referenceLab[$0], white: white).y / measuredXYZ[$0].y }.sorted()
        let k = (ratios[2] + ratios[3]) / 2
        let lab = measuredXYZ.map { ColorScience.lab(fromXYZ: $0 * k, white: white) }
        let accuracy = zip(lab, referenceLab).map { ColorScience.ciede2000($0, $1) }
        // Registration error against the true transform, RMS over a grid of the frame.
        let t = try truth.object("ambientFromFlash").members["matrix"]!.array!.map { $0.doubles! }
        let truthMatrix = Matrix3(rows: t)
        var sum = 0.0, n = 0.0
        for y in stride(from: 0.5, to: Double(f.image.height), by: 8) {
            for x in stride(from: 0.5, to: Double(f.image.width), by: 8) {
                let p = result.registration.ambientFromFlash * SIMD3(x, y, 1), q = truthMatrix * SIMD3(x, y, 1)
                sum += pow(p.x / p.z - q.x / q.z, 2) + pow(p.y / p.z - q.y / q.z, 2); n += 1
            }
        }
        let condition = try truth.object("condition")
        return Scored(name: folder.lastPathComponent, lux: (try? condition.number("ambientLux")) ?? 0,
                      patchesLab: lab, ambientPhotoLab: ambientLab, accuracy: accuracy,
                      meanPatchConfidence: confidences.reduce(0, +) / Double(confidences.count),
                      registrationErrorRMS: (sum / n).squareRoot(), decision: result.report.decision,
                      centerWeighted: result.report.centerWeightedMeanConfidence)
    }

    @Test("fuse across the validation envelope: metrics of SPEC 5 and the pipeline issue's floors")
    func envelope() throws {
        let camera = try CameraProfile(path: Self.root.appendingPathComponent("calibration/synthetic-nikon5100.camera.json").path)
        let flash = try FlashProfile(path: Self.root.appendingPathComponent("calibration/synthetic-phosphor-led-yag.flash.json").path)
        let folders = Self.conditionFolders()
        try #require(folders.count >= 12, "fixtures missing under \(Self.fixtures.path)")
        let scored = try folders.map { try Self.score($0, camera: camera, flash: flash) }
        for s in scored {
            print(String(format: "%-28@ lux %6.0f  ΔE00 mean %5.2f max %5.2f  patch conf %.3f  cw conf %.3f  %@  reg err %.3f px",
                         s.name as NSString, s.lux, s.accuracy.reduce(0, +) / 24, s.accuracy.max()!, s.meanPatchConfidence,
                         s.centerWeighted, s.decision.rawValue as NSString, s.registrationErrorRMS))
        }
        // The envelope: the Planckian conditions (name starts with the lux value).
        let envelope = scored.filter { $0.name.first!.isNumber }
        var repeatability: [Double] = [], varianceCC = 0.0, varianceAmbient = 0.0
        for p in 0..<24 {
            let mean = envelope.map { $0.patchesLab[p] }.reduce(.zero, +) / Double(envelope.count)
            repeatability.append(envelope.map { ColorScience.ciede2000($0.patchesLab[p], mean) }.reduce(0, +) / Double(envelope.count))
            let meanAmbient = envelope.map { $0.ambientPhotoLab[p] }.reduce(.zero, +) / Double(envelope.count)
            varianceCC += envelope.map { (($0.patchesLab[p] - mean) * ($0.patchesLab[p] - mean)).sum() }.reduce(0, +) / Double(envelope.count)
            varianceAmbient += envelope.map { (($0.ambientPhotoLab[p] - meanAmbient) * ($0.ambientPhotoLab[p] - meanAmbient)).sum() }.reduce(0, +) / Double(envelope.count)
        }
        let meanRepeatability = repeatability.reduce(0, +) / 24
        let p90 = repeatability.sorted()[Int(0.9 * 23)]
        let reduction = 1 - varianceCC / varianceAmbient
        let lowLight = envelope.filter { $0.lux <= 200 }
        let lowLightAccuracy = lowLight.map { $0.accuracy.reduce(0, +) / 24 }.reduce(0, +) / Double(lowLight.count)
        let lowLightConfidence = lowLight.map(\.meanPatchConfidence).reduce(0, +) / Double(lowLight.count)
        let registrationRMS = (scored.map { $0.registrationErrorRMS * $0.registrationErrorRMS }.reduce(0, +) / Double(scored.count)).squareRoot()
        print(String(format: "repeatability mean %.3f p90 %.3f ΔE00; variance reduction %.1f %%; accuracy ≤200 lux %.2f ΔE00; patch confidence ≤200 lux %.3f; registration RMS %.3f px",
                     meanRepeatability, p90, 100 * reduction, lowLightAccuracy, lowLightConfidence, registrationRMS))
        // Floors of the pipeline issue.
        #expect(meanRepeatability <= 1.5)
        #expect(lowLightAccuracy <= 3.0)
        #expect(reduction >= 0.90)
        #expect(registrationRMS < 0.15)
        #expect(scored.first { $0.name.hasPrefix("bright-daylight") }?.decision == .fallback)
        #expect(lowLightConfidence >= 0.9)
    }
}
