import Foundation
import Testing
import ConstantColor
import ConstantColorIO
@testable import ConstantColorSynth

/// Issue 7, item 3: hand shake blurs the longer ambient exposure, so `F − A` leaves coloured fringes
/// along edges. Confidence must drop along them and the colours inside uniform regions must stay
/// right. Measured against the renderer's label map: "near an edge" is a labelled pixel within 2 px
/// of a mixed (label 0) one, "interior" more than 6 px from any; a pixel's error is its a*b*
/// distance from the median colour of its material's interior (so the matrix's own error cancels).
@Suite("Hand shake: confidence drops along the fringes, interiors stay right", .serialized)
struct HandShakeConfidenceTests {
    static let camera = try! CameraProfile(path: Fixture.root + "/calibration/synthetic-nikon5100.camera.json")
    static let flash = try! FlashProfile(path: Fixture.root + "/calibration/synthetic-phosphor-led-yag.flash.json")

    struct Figures { var nearConfidence, interiorConfidence, nearConfidentWrong, interiorMedianError, nearP95Error: Double }

    static func figures(shake: HandShake?) throws -> Figures {
        var c = SynthCondition.envelope(lux: 200, cctKelvin: 4000, duv: 0)
        c.effects.handShake = shake
        let cap = try nikonRenderer(Fixture.library).render(c, width: 600, height: 400, seed: 4,
                                                            options: RenderOptions(truthMaps: true))
        var options = FusionOptions()
        options.linearSpace = .xyz
        let r = try FusionPipeline.run(flash: RawFrame(image: cap.flash.image, exposure: cap.flash.exposure, name: "flash"),
                                       ambient: RawFrame(image: cap.ambient!.image, exposure: cap.ambient!.exposure, name: "ambient"),
                                       camera: camera, flashProfile: flash, options: options)
        let labels = try #require(cap.labels), xyz = r.linear!, conf = r.confidence
        let w = labels.width, h = labels.height
        func label(_ x: Int, _ y: Int) -> Int { Int(labels[x, y, 0]) }
        // Distance (Chebyshev, capped at 7) to the nearest mixed pixel.
        var distance = [Int](repeating: 7, count: w * h)
        for y in 0..<h { for x in 0..<w where label(x, y) == 0 {
            for dy in -6...6 { for dx in -6...6 {
                let xx = x + dx, yy = y + dy
                guard xx >= 0, yy >= 0, xx < w, yy < h else { continue }
                distance[yy * w + xx] = min(distance[yy * w + xx], max(abs(dx), abs(dy)))
            } }
        } }
        func ab(_ x: Int, _ y: Int) -> SIMD2<Double> {
            let l = ColorScience.lab(fromXYZ: SIMD3(Double(xyz[x, y, 0]), Double(xyz[x, y, 1]), Double(xyz[x, y, 2])),
                                     white: ColorScience.whiteD65XYZ)
            return SIMD2(l.y, l.z)
        }
        // Median a*, b* of each material's interior.
        var interiorAB: [Int: [SIMD2<Double>]] = [:]
        for y in 0..<h { for x in 0..<w where label(x, y) > 0 && distance[y * w + x] > 6 { interiorAB[label(x, y), default: []].append(ab(x, y)) } }
        var reference: [Int: SIMD2<Double>] = [:]
        for (k, v) in interiorAB where v.count >= 50 {
            let a = v.map(\.x).sorted(), b = v.map(\.y).sorted()
            reference[k] = SIMD2(a[a.count / 2], b[b.count / 2])
        }
        var nearConf = 0.0, nearN = 0, innerConf = 0.0, innerN = 0, confident = 0, confidentWrong = 0
        var nearErrors: [Double] = [], innerErrors: [Double] = []
        for y in 0..<h { for x in 0..<w {
            let l = label(x, y), d = distance[y * w + x]
            guard l > 0, let ref = reference[l] else { continue }
            let e = ab(x, y) - ref, err = (e * e).sum().squareRoot(), cv = Double(conf[x, y, 0])
            if d <= 2 {
                nearConf += cv; nearN += 1; nearErrors.append(err)
                if cv >= 0.8 { confident += 1; if err > 3 { confidentWrong += 1 } }
            } else if d > 6 {
                innerConf += cv; innerN += 1; innerErrors.append(err)
            }
        } }
        nearErrors.sort(); innerErrors.sort()
        return Figures(nearConfidence: nearConf / Double(nearN), interiorConfidence: innerConf / Double(innerN),
                       nearConfidentWrong: Double(confidentWrong) / Double(max(1, confident)),
                       interiorMedianError: innerErrors[innerErrors.count / 2],
                       nearP95Error: nearErrors[nearErrors.count * 95 / 100])
    }

    @Test func confidenceFollowsTheFringes() throws {
        let still = try Self.figures(shake: nil)
        let shaken = try Self.figures(shake: HandShake(lengthPx: 4, angleDegrees: 30, bowPx: 1))
        for (name, f) in [("still", still), ("shaken", shaken)] {
            print(String(format: "%@: near-edge confidence %.3f, interior %.3f; near-edge p95 Δa*b* %.2f, confident near-edge > 3: %.2f %%; interior median Δa*b* %.2f",
                         name, f.nearConfidence, f.interiorConfidence, f.nearP95Error, 100 * f.nearConfidentWrong, f.interiorMedianError))
        }
        // The shake makes real fringes ...
        #expect(shaken.nearP95Error > 2 * still.nearP95Error)
        // ... confidence drops along them and stays honest there ...
        #expect(shaken.nearConfidence < still.nearConfidence - 0.03)
        #expect(shaken.nearConfidentWrong < 0.02)
        // ... and the interiors are untouched.
        #expect(abs(shaken.interiorConfidence - still.interiorConfidence) < 0.01)
        #expect(abs(shaken.interiorMedianError - still.interiorMedianError) < 0.1)
    }
}
