import TestSupport
import ConstantColor
@testable import ConstantColorCalibration
import ConstantColorIO
import Foundation
import Testing

@Suite("Chart calibration")
struct ChartCalibrationTests {
    static let white = ColorScience.whiteD65XYZ
    /// A white-preserving matrix (sRGB's, whose rows sum to the D65 white).
    static let knownMatrix = RGBColorSpace.sRGB.rgbToXYZ

    @Test("white-preserving least squares recovers a known matrix exactly from noise-free data")
    func leastSquaresExact() throws {
        var rng = SplitMix(state: 3)
        let b = (0..<24).map { _ in SIMD3(rng.uniform(), rng.uniform(), rng.uniform()) * 0.9 + 0.05 }
        let t = b.map { Self.knownMatrix * $0 }
        let m = try #require(WhitePreservingLeastSquares.fit(balanced: b, targets: t, white: Self.white))
        for i in 0..<9 { #expect(abs(m.m[i] - Self.knownMatrix.m[i]) < 1e-10) }
        let w = m * SIMD3(1, 1, 1)
        #expect(abs(w.x - Self.white.x) < 1e-12 && abs(w.y - Self.white.y) < 1e-12 && abs(w.z - Self.white.z) < 1e-12)
        // The refinement keeps white exact and, from a perturbed start, returns close to the known matrix.
        let lab = t.map { ColorScience.lab(fromXYZ: $0, white: Self.white) }
        var start = Self.knownMatrix
        start[0, 0] += 0.03; start[0, 2] -= 0.03; start[2, 1] += 0.02; start[2, 2] -= 0.02
        let r = DeltaE2000MatrixRefinement.refine(start: start, startScale: 1.05, balanced: b, referenceLab: lab, white: Self.white)
        #expect(r.deltaE2000.reduce(0, +) / 24 < 0.02, "mean ΔE00 \(r.deltaE2000.reduce(0, +) / 24)")
        for i in 0..<9 { #expect(abs(r.matrix.m[i] - Self.knownMatrix.m[i]) < 2e-3, "entry \(i): \(r.matrix.m[i])") }
        let rw = r.matrix * SIMD3(1, 1, 1)
        #expect(abs(rw.x - Self.white.x) < 1e-12 && abs(rw.z - Self.white.z) < 1e-12)
    }

    /// A noise-free chart image: patches of the references through the inverse of `knownMatrix`,
    /// times a flash white, an exposure and a fall-off field, on a black-level background.
    static func syntheticChart(field: FlashFalloffField, flashWhite: SIMD3<Double>, scaleDN: Double)
        -> (image: PlanarImage, chart: ChartDescription) {
        let width = 240, height = 160, black = 512.0
        var rng = SplitMix(state: 11)
        var patches: [ChartPatch] = []
        for j in 0..<4 {
            for i in 0..<6 {
                let lab: SIMD3<Double>
                if j == 3 { lab = SIMD3(95 - 15 * Double(i), 0, 0) } else {
                    // Colors inside the sRGB gamut so the inverse matrix gives positive camera RGB.
                    let rgb = SIMD3(rng.uniform(), rng.uniform(), rng.uniform()) * 0.8 + 0.1
                    lab = ColorScience.lab(fromXYZ: knownMatrix * rgb, white: white)
                }
                patches.append(ChartPatch(name: "p\(j * 6 + i)", center: SIMD2(30 + 36 * Double(i), 26 + 36 * Double(j)),
                                          halfSize: 10, labD65: lab))
            }
        }
        let chart = ChartDescription(patches: patches)
        var image = PlanarImage(width: width, height: height, channelCount: 3, repeating: Float(black))
        let inverse = knownMatrix.inverse!
        for p in patches {
            let b = inverse * p.xyzD65
            let e = field.relativeIrradiance(basis: FlashFalloffField.basis(at: p.center, width: width, height: height))
            let square = PatchSquare(center: p.center, halfSize: 13)
            for y in square.rows { for x in square.columns { for c in 0..<3 {
                image[x, y, c] = Float(black + scaleDN * e * flashWhite[c] * b[c])
            } } }
        }
        return (image, chart)
    }

    @Test("chart calibration on a noise-free synthetic chart with fall-off recovers white, matrix and field")
    func syntheticChartExact() throws {
        let field = FlashFalloffField(coefficients: [0.03, -0.02, -0.4, 0.05])
        let w = SIMD3(0.55, 1, 0.9)
        let (image, chart) = Self.syntheticChart(field: field, flashWhite: w, scaleDN: 20000)
        // Noise-free patches have no variance: photon transfer gives no line, the color fit is unaffected.
        let cal = try ChartCalibration(capture: image, blackLevel: 512, whiteLevel: 65535, iso: 100, chart: chart, file: "synthetic")
        let white = cal.flashWhiteCameraRGB / cal.flashWhiteCameraRGB.y
        #expect(abs(white.x - 0.55) < 1e-4 && abs(white.z - 0.9) < 1e-4, "\(white)")
        for i in 0..<9 { #expect(abs(cal.matrixToXYZD65.m[i] - Self.knownMatrix.m[i]) < 2e-3, "entry \(i): \(cal.matrixToXYZD65.m[i])") }
        #expect(cal.meanDeltaE2000 < 0.05, "mean ΔE00 \(cal.meanDeltaE2000)")
        for (a, b) in zip(cal.flashFalloff.coefficients, field.coefficients) { #expect(abs(a - b) < 0.01, "\(cal.flashFalloff.coefficients)") }
        #expect(cal.photonTransfer == nil && cal.noise == nil)
    }

    @Test("photon transfer on synthetic patches recovers gain and read noise (ISO 200, referred to ISO 100)")
    func photonTransferSynthetic() throws {
        let truth = NoiseModel(readNoiseDN: 8, gainElectronsPerDN: 0.25, referenceISO: 100)
        let iso = 200.0, black = 1024.0
        let k = iso / truth.referenceISO
        var rng = SplitMix(state: 5)
        let side = 24, width = 6 * side, height = 4 * side
        var image = PlanarImage(width: width, height: height, channelCount: 3)
        var squares: [PatchSquare] = []
        for j in 0..<4 {
            for i in 0..<6 {
                let square = PatchSquare(center: SIMD2(Double(i * side) + 12, Double(j * side) + 12), halfSize: 10)
                squares.append(square)
                for c in 0..<3 {
                    let level = 10 * pow(1.5, Double(j * 6 + i)) * [1.0, 1.3, 0.8][c]
                    for y in (j * side)..<((j + 1) * side) {
                        for x in (i * side)..<((i + 1) * side) {
                            // A gentle gradient (fall-off) across the patch: insensitive by construction.
                            let mean = level * (1 + 0.002 * Double(x - i * side))
                            let electrons = rng.poisson(mean * truth.gainElectronsPerDN / k)
                            image[x, y, c] = Float((black + electrons * k / truth.gainElectronsPerDN + k * truth.readNoiseDN * rng.normal()).rounded())
                        }
                    }
                }
            }
        }
        let points = squares.flatMap { s in (0..<3).compactMap { PhotonTransfer.point(raw: image, channel: $0, square: s, blackLevel: black) } }
        let fit = try #require(PhotonTransfer.fit(points))
        let model = fit.noiseModel(iso: iso)
        #expect(abs(model.gainElectronsPerDN / 0.25 - 1) < 0.05, "gain \(model.gainElectronsPerDN)")
        #expect(abs(model.readNoiseDN / 8 - 1) < 0.05, "read noise \(model.readNoiseDN)")
    }

    /// The committed dark-room capture's calibration, with its dark frame when `withDark`.
    static func darkroomCalibration(withDark: Bool) throws -> (cal: ChartCalibration, chart: ChartDescription, camera: JSONObjectReader) {
        let decoded = try TIFFReader.read(path: Fixture.darkroom)
        let truth = try JSONValue.read(path: Fixture.darkroomTruth)
        let chart = try ChartDescription(json: truth, file: Fixture.darkroomTruth)
        let camera = try JSONObjectReader(truth, file: "truth").object("camera")
        let iso = try #require(decoded.exposure.settings?.isoSpeed)
        var dark: DarkFrame?
        if withDark {
            let d = try TIFFReader.read(path: Fixture.dark)
            dark = try DarkFrame(frame: d.image, iso: try #require(d.exposure.settings?.isoSpeed), blackLevel: try camera.number("blackLevel"),
                                 expectedWidth: decoded.image.width, expectedHeight: decoded.image.height, file: Fixture.dark)
        }
        let cal = try ChartCalibration(capture: decoded.image, blackLevel: try camera.number("blackLevel"),
                                       whiteLevel: try camera.number("whiteLevel"), iso: iso, chart: chart, darkFrame: dark,
                                       file: Fixture.darkroom)
        return (cal, chart, camera)
    }

    @Test("a capture whose noise variance falls with its signal is flagged: the committed dark-room capture gamma-encoded (1/2.2 above its black level), not as it is; the slope's known answer")
    func varianceFallingWithSignal() throws {
        #expect(ChartCalibration.leastSquaresSlope([(0, 1), (1, 3), (2, 5), (3, 7)]) == 2)
        #expect(ChartCalibration.leastSquaresSlope([(1, 1), (1, 3)]) == nil)
        let linear = try Self.darkroomCalibration(withDark: false).cal
        #expect(!linear.varianceFallsWithSignal)
        var decoded = try TIFFReader.read(path: Fixture.darkroom)
        // As a JPEG pipeline encodes: black subtracted, then the curve.
        for i in decoded.image.samples.indices {
            decoded.image.samples[i] = (65535 * pow(max(0, decoded.image.samples[i] - 1024) / (65535 - 1024), 1 / 2.2)).rounded()
        }
        let truth = try JSONValue.read(path: Fixture.darkroomTruth)
        let encoded = try ChartCalibration(capture: decoded.image, blackLevel: 0, whiteLevel: 65535, iso: 100,
                                           chart: try ChartDescription(json: truth, file: Fixture.darkroomTruth), file: "gamma.tif")
        #expect(encoded.varianceFallsWithSignal && encoded.noise == nil)
        #expect(ChartCalibrationError.noiseFit(file: "g.tif", varianceFalls: true).description.contains("gamma-encoded"))
        #expect(!ChartCalibrationError.noiseFit(file: "g.tif").description.contains("gamma"))
    }

    @Test("the committed dark-room capture and its dark frame: fit ≤ 2.0 ΔE00, greys stay grey, gain and read noise within 15 %")
    func darkroom() throws {
        let (cal, chart, camera) = try Self.darkroomCalibration(withDark: true)
        let noise = try camera.object("noise")
        let trueRead = try noise.number("readNoiseDN"), trueGain = try noise.number("gainElectronsPerDN")
        let ptc = try #require(cal.photonTransfer), model = try #require(cal.noise), dark = try #require(cal.darkFrame)
        print(String(format: "dark room + dark frame: fit ΔE00 mean %.2f max %.2f; gain %.4f e-/DN (truth %.2f, %+.2f %%), read %.3f DN (truth %.1f, %+.2f %%); dark black %.2f DN",
                     cal.meanDeltaE2000, cal.maxDeltaE2000, model.gainElectronsPerDN, trueGain, 100 * (model.gainElectronsPerDN / trueGain - 1),
                     model.readNoiseDN, trueRead, 100 * (model.readNoiseDN / trueRead - 1), dark.blackLevelDN))
        #expect(chart.patches.count == 24)
        #expect(cal.meanDeltaE2000 <= 2.0)
        // The greys (reference C*ab < 1): fitted a*, b* within 0.5 of the reference. The white
        // patch (C*ab 2.85, not spectrally flat) is off by about 0.85 in a* and b*: a 3×3 map from
        // flash-lit to D65-lit colors cannot make it and the greys exact at once.
        for i in chart.neutralIndices where chart.patches[i].chroma < 1 {
            #expect(abs(cal.fittedLab[i].y - chart.patches[i].labD65.y) <= 0.5, "\(chart.patches[i].name) a*")
            #expect(abs(cal.fittedLab[i].z - chart.patches[i].labD65.z) <= 0.5, "\(chart.patches[i].name) b*")
        }
        #expect(ptc.interceptKnown)
        #expect(abs(model.gainElectronsPerDN / trueGain - 1) <= 0.15)
        #expect(abs(model.readNoiseDN / trueRead - 1) <= 0.15)
        // The measured black level is reported, not substituted.
        #expect(abs(dark.blackLevelDN - (try camera.number("blackLevel"))) <= dark.readNoiseDN)
    }

    @Test("without a dark frame the intercept's uncertainty covers the truth, but cannot pin the read noise")
    func darkroomWithoutDarkFrame() throws {
        let (cal, _, camera) = try Self.darkroomCalibration(withDark: false)
        let noise = try camera.object("noise")
        let trueRead = try noise.number("readNoiseDN"), trueGain = try noise.number("gainElectronsPerDN")
        let ptc = try #require(cal.photonTransfer), model = try #require(cal.noise)
        print(String(format: "dark room alone: gain %.4f e-/DN (truth %.2f), read %.2f DN (truth %.1f), intercept %.0f ± %.0f DN²",
                     model.gainElectronsPerDN, trueGain, model.readNoiseDN, trueRead, ptc.readVarianceDN2, ptc.readVarianceStandardErrorDN2))
        #expect(!ptc.interceptKnown && cal.darkFrame == nil)
        #expect(abs(model.gainElectronsPerDN / trueGain - 1) <= 0.15)
        // At ISO 100 the read variance is 64 DN²: inside the intercept's uncertainty, which is
        // wider than the read variance itself (the darkest patch is at ~470 DN, shot variance ~1900 DN²).
        #expect(abs(ptc.readVarianceDN2 - trueRead * trueRead) <= 3 * ptc.readVarianceStandardErrorDN2)
        #expect(ptc.readVarianceStandardErrorDN2 > trueRead * trueRead)
    }

    /// The committed chart profiles are what `Scripts/calibrate-fixtures` computes now: the same
    /// calibration in-process on the committed capture and dark frame.
    @Test("calibration/chart-*.json are current: re-running the chart calibration gives the committed matrix, white and noise")
    func committedChartProfilesAreCurrent() throws {
        let (cal, _, _) = try Self.darkroomCalibration(withDark: true)
        let camera = try CameraProfile(path: Fixture.root + "/calibration/chart-nikon5100.camera.json")
        let flash = try FlashProfile(path: Fixture.root + "/calibration/chart-phosphor-led-yag.flash.json")
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12) }
        let noise = try #require(cal.noise)
        #expect(close(camera.noise.gainElectronsPerDN, noise.gainElectronsPerDN), "gain \(camera.noise.gainElectronsPerDN) vs \(noise.gainElectronsPerDN)")
        #expect(close(camera.noise.readNoiseDN, noise.readNoiseDN), "read \(camera.noise.readNoiseDN) vs \(noise.readNoiseDN)")
        #expect(camera.noise.referenceISO == noise.referenceISO && camera.blackLevel == 1024 && camera.whiteLevel == 60000)
        #expect(camera.metadata["readNoiseSource"]?.string == "dark frame")
        let white = cal.flashWhiteCameraRGB / cal.flashWhiteCameraRGB.y   // profiles store green = 1
        for c in 0..<3 { #expect(close(flash.whiteCameraRGB[c], white[c]), "white \(c)") }
        for i in 0..<9 { #expect(close(flash.matrixToXYZD65.m[i], cal.matrixToXYZD65.m[i]), "matrix entry \(i)") }
        #expect(close(try #require(flash.metadata["fitMeanDeltaE2000"]?.double), cal.meanDeltaE2000))
    }

    @Test("chart descriptions: bare or under \"chart\"; D50 values adapted with Bradford; bad ones name the key")
    func chartParsing() throws {
        let patch: JSONValue = .object(["name": .string("grey"), "center": .array([.number(10), .number(10)]),
                                        "halfSize": .number(4), "lab": .array([.number(50), .number(0), .number(0)])])
        let bare = try ChartDescription(json: .object(["illuminant": .string("D50"), "patches": .array([patch])]), file: "c.json")
        // A neutral under D50 stays neutral under D65 after Bradford.
        #expect(abs(bare.patches[0].labD65.y) < 0.01 && abs(bare.patches[0].labD65.z) < 0.01 && abs(bare.patches[0].labD65.x - 50) < 0.01)
        let wrapped = try ChartDescription(json: .object(["chart": .object(["illuminant": .string("D65"), "patches": .array([patch])])]),
                                           file: "t.json")
        #expect(wrapped.patches == [ChartPatch(name: "grey", center: SIMD2(10, 10), halfSize: 4, labD65: SIMD3(50, 0, 0))])
        // The illuminant is not guessed: missing, or not a string, it is refused naming the key.
        #expect(throws: JSONFileError.self) { try ChartDescription(json: .object(["chart": .object(["patches": .array([patch])])]), file: "t.json") }
        do {
            _ = try ChartDescription(json: .object(["patches": .array([patch])]), file: "c.json")
            Issue.record("a chart without its illuminant was read")
        } catch {
            #expect("\(error)".contains("c.json") && "\(error)".contains("illuminant"), "\(error)")
        }
        #expect(throws: JSONFileError.self) {
            try ChartDescription(json: .object(["illuminant": .number(65), "patches": .array([patch])]), file: "c.json")
        }
        // A name given twice; a square that holds no pixel centre; a centre no image has.
        func refused(_ patches: [JSONValue], mentioning key: String) {
            do {
                _ = try ChartDescription(json: .object(["illuminant": .string("D65"), "patches": .array(patches)]), file: "c.json")
                Issue.record("read: \(patches)")
            } catch {
                #expect("\(error)".contains("c.json") && "\(error)".contains(key), "\(error)")
            }
        }
        func changed(_ key: String, _ value: JSONValue, _ more: [String: JSONValue] = [:]) -> JSONValue {
            var o = patch.object!; o[key] = value
            for (k, v) in more { o[k] = v }
            return .object(o)
        }
        refused([patch, patch], mentioning: "patches[1].name")
        refused([changed("halfSize", .number(0.1))], mentioning: "patches[0].halfSize")
        refused([changed("center", .array([.number(1e20), .number(10)]))], mentioning: "patches[0].center")
        // a* or b* beyond any object's colour (a* = 500 was fitted, with a warning only).
        refused([changed("lab", .array([.number(50), .number(500), .number(0)]))], mentioning: "patches[0].lab")
        refused([changed("lab", .array([.number(50), .number(0), .number(-201)]))], mentioning: "patches[0].lab")
        // A second patch whose square shares pixels with the first (one surface sampled twice) is
        // refused; one that only touches it (squares of side 8, centres 8 apart) is read.
        refused([patch, changed("name", .string("grey twin"))], mentioning: "patches[1].center")
        // (patch: centre (10, 10), half size 4: pixel columns and rows 6…13.) Columns 13…20, rows 9…16:
        // one column shared.
        refused([patch, changed("name", .string("grey shifted"), ["center": .array([.number(17), .number(13)])])],
                mentioning: "overlaps patches[0], 'grey'")
        #expect(try ChartDescription(json: .object(["illuminant": .string("D65"), "patches": .array([
            patch, changed("name", .string("grey beside"), ["center": .array([.number(18), .number(10)])])])]), file: "c.json").patches.count == 2)
        // A grid of six across 100 pixels: centres 16.67 apart, squares of that side; in floating
        // point the centres' distance falls just under the half sizes' sum, but the pixels sampled
        // (columns 0…16 and 17…33) do not meet.
        let sixth = 100.0 / 6
        #expect(try ChartDescription(json: .object(["illuminant": .string("D65"), "patches": .array([
            changed("center", .array([.number(sixth / 2), .number(10)]), ["halfSize": .number(sixth / 2)]),
            changed("name", .string("grey 2"), ["center": .array([.number(1.5 * sixth), .number(10)]), "halfSize": .number(sixth / 2)])])]),
                                     file: "c.json").patches.count == 2)
        // A square of side 0.2 that does hold a pixel centre (10.5) is read.
        #expect(try ChartDescription(json: .object(["illuminant": .string("D65"),
                                                    "patches": .array([changed("center", .array([.number(10.5), .number(10.5)]),
                                                                               ["halfSize": .number(0.1)])])]),
                                     file: "c.json").patches.count == 1)
        #expect(throws: JSONFileError.missingKey(file: "t.json", key: "patches' (a chart description) or 'chart")) { try ChartDescription(json: .object(["illuminant": .string("D65")]), file: "t.json") }
        #expect(throws: JSONFileError.invalidValue(file: "c.json", key: "illuminant", expected: "\"D65\" or \"D50\"")) {
            try ChartDescription(json: .object(["illuminant": .string("A"), "patches": .array([patch])]), file: "c.json")
        }
    }

    @Test("patch squares follow SPEC 4.3: pixel (i, j) covers [i, i+1) x [j, j+1)")
    func patchSquare() {
        // Centre 10, half 2: the square [8, 12) holds the pixels 8, 9, 10, 11.
        #expect(PatchSquare(center: SIMD2(10, 10), halfSize: 2).columns == 8..<12)
        // Centre 10.5, half 2: [8.5, 12.5) holds the centres 8.5 ... 11.5: pixels 8 ... 11.
        #expect(PatchSquare(center: SIMD2(10.5, 10.5), halfSize: 2).rows == 8..<12)
        // Centre 10.2, half 1.5: [8.7, 11.7) holds the centres 9.5, 10.5, 11.5: pixels 9, 10, 11.
        #expect(PatchSquare(center: SIMD2(10.2, 10.2), halfSize: 1.5).columns == 9..<12)
        // Centre 10.3, half 1.5: [8.8, 11.8) holds the same; centre 9.9: [8.4, 11.4): pixels 8, 9, 10.
        #expect(PatchSquare(center: SIMD2(9.9, 9.9), halfSize: 1.5).columns == 8..<11)
        #expect(!PatchSquare.fits(center: SIMD2(3, 10), halfSize: 4, width: 100, height: 100))
        #expect(PatchSquare.fits(center: SIMD2(4, 10), halfSize: 4, width: 100, height: 100))
    }
}
