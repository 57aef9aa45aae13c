import TestSupport
import ConstantColor
import ConstantColorCalibration
import ConstantColorIO
import Foundation
import Testing

@Suite("Dark frame and photon transfer with a known read noise")
struct DarkFrameTests {
    static let truth = NoiseModel(readNoiseDN: 8, gainElectronsPerDN: 0.25, referenceISO: 100)
    static let black = 1024.0

    /// A dark frame at `iso`: black + a random offset per row (σ 3 DN) + a smooth shading (up to
    /// 4 DN) + read noise k·8 DN, rounded, and a few hot pixels. Neither the offsets, the shading nor
    /// the hot pixels are read noise.
    static func darkFrame(width: Int, height: Int, iso: Double, seed: UInt64) -> PlanarImage {
        let k = iso / truth.referenceISO
        var rng = SplitMix(state: seed)
        var image = PlanarImage(width: width, height: height, channelCount: 3)
        for c in 0..<3 {
            for y in 0..<height {
                let rowOffset = 3 * rng.normal()
                for x in 0..<width {
                    let shading = 4 * Double(x * y) / Double(width * height)
                    image[x, y, c] = Float((black + rowOffset + shading + k * truth.readNoiseDN * rng.normal()).rounded())
                }
            }
            for _ in 0..<20 { image[Int(rng.uniform() * Double(width)), Int(rng.uniform() * Double(height)), c] = 4000 }
        }
        return image
    }

    /// 24 patches × 3 channels at `iso`, all bright (the darkest at 400 DN), Poisson–Gaussian per `truth`.
    static func brightPatches(iso: Double, seed: UInt64) -> (image: PlanarImage, squares: [PatchSquare]) {
        let k = iso / truth.referenceISO
        var rng = SplitMix(state: seed)
        let side = 24, width = 6 * side, height = 4 * side
        var image = PlanarImage(width: width, height: height, channelCount: 3)
        var squares: [PatchSquare] = []
        for j in 0..<4 {
            for i in 0..<6 {
                squares.append(PatchSquare(center: SIMD2(Double(i * side) + 12, Double(j * side) + 12), halfSize: 10))
                for c in 0..<3 {
                    let level = 400 * pow(1.2, Double(j * 6 + i)) * [1.0, 1.3, 0.8][c]
                    for y in (j * side)..<((j + 1) * side) {
                        for x in (i * side)..<((i + 1) * side) {
                            let electrons = rng.poisson(level * truth.gainElectronsPerDN / k)
                            image[x, y, c] = Float((black + electrons * k / truth.gainElectronsPerDN + k * truth.readNoiseDN * rng.normal()).rounded())
                        }
                    }
                }
            }
        }
        return (image, squares)
    }

    @Test("a dark frame gives the read noise (row offsets, shading, hot pixels ignored) and the black level")
    func darkFrameReadNoise() throws {
        let image = Self.darkFrame(width: 240, height: 160, iso: 100, seed: 21)
        let dark = try DarkFrame(frame: image, iso: 100, blackLevel: Self.black, expectedWidth: 240, expectedHeight: 160, file: "dark.tif")
        print(String(format: "dark frame: read %.3f DN (truth 8), black %.2f DN, SE of variance %.2f DN²",
                     dark.readNoiseDN, dark.blackLevelDN, dark.readVarianceStandardErrorDN2))
        // σ of the σ estimate ≈ ½ √(3 / n) ≈ 0.3 % for n ≈ 114 000 differences.
        #expect(abs(dark.readNoiseDN(referenceISO: 100) / 8 - 1) < 0.02, "\(dark.readNoiseDN)")
        for c in 0..<3 { #expect(abs(dark.readNoisePerChannelDN[c] / 8 - 1) < 0.03) }
        // Mean of black + shading (1 DN on average) + row offsets (σ 3 / √160 per channel) + 20 hot pixels.
        #expect(abs(dark.blackLevelDN - (Self.black + 1)) < 1.5, "\(dark.blackLevelDN)")
        #expect(abs(dark.readVarianceStandardErrorDN2 / (64 * (3.0 / Double(dark.differenceCount)).squareRoot()) - 1) < 0.05)
    }

    @Test("photon transfer with a dark frame's read noise on bright synthetic patches recovers gain and read noise (capture ISO 200, dark ISO 400)")
    func photonTransferWithDarkFrame() throws {
        let captureISO = 200.0, darkISO = 400.0
        let (image, squares) = Self.brightPatches(iso: captureISO, seed: 9)
        let points = squares.flatMap { s in (0..<3).compactMap { PhotonTransfer.point(raw: image, channel: $0, square: s, blackLevel: Self.black) } }
        let darkImage = Self.darkFrame(width: 240, height: 160, iso: darkISO, seed: 22)
        let dark = try DarkFrame(frame: darkImage, iso: darkISO, blackLevel: Self.black, expectedWidth: 240, expectedHeight: 160, file: "dark.tif")
        // Referred as NoiseModel does: σ_read(ISO i) = (i / 100) · 8 DN.
        #expect(abs(dark.readNoiseDN / 32 - 1) < 0.02 && abs(dark.readNoiseDN(referenceISO: 100) / 8 - 1) < 0.02)
        let intercept = dark.readVarianceDN2(atISO: captureISO)
        #expect(abs(intercept - pow(dark.readNoiseDN / 2, 2)) < 1e-9 * intercept)
        let fit = try #require(PhotonTransfer.fit(points, knownReadVarianceDN2: intercept))
        let model = fit.noiseModel(iso: captureISO)
        let free = try #require(PhotonTransfer.fit(points))
        print(String(format: "known intercept %.1f DN²: gain %.4f (truth 0.25), read %.3f (truth 8); free fit: intercept %.0f ± %.0f DN², gain %.4f",
                     intercept, model.gainElectronsPerDN, model.readNoiseDN, free.readVarianceDN2, free.readVarianceStandardErrorDN2,
                     free.noiseModel(iso: captureISO).gainElectronsPerDN))
        #expect(fit.interceptKnown && fit.readVarianceDN2 == intercept)
        #expect(abs(model.gainElectronsPerDN / 0.25 - 1) < 0.05, "gain \(model.gainElectronsPerDN)")
        #expect(abs(model.readNoiseDN / 8 - 1) < 0.02, "read noise \(model.readNoiseDN)")
        #expect(fit.shotSlopeStandardError.isFinite && fit.shotSlopeStandardError < 0.05 * fit.shotSlope)
        // The slope alone from exact points: σ² = a + b s exactly gives b back.
        let exact = [100.0, 900, 4000].map { PhotonTransfer.Point(meanDN: $0, varianceDN2: 64 + 4 * $0, differenceCount: 500) }
        let exactFit = try #require(PhotonTransfer.fit(exact, knownReadVarianceDN2: 64))
        #expect(abs(exactFit.shotSlope - 4) < 1e-12 && exactFit.shotSlopeStandardError < 1e-9)
        #expect(PhotonTransfer.fit([], knownReadVarianceDN2: 64) == nil)
        #expect(PhotonTransfer.fit(exact, knownReadVarianceDN2: -1) == nil)
    }

    @Test("the committed dark frame: recorded in the dark room's truth.json, same size and EXIF exposure as darkroom.tif, black + read noise only")
    func committedDarkFrame() throws {
        let truth = try JSONValue.read(path: Fixture.darkroomTruth).object!
        #expect(truth["files"]?.object?["dark"]?.string == "dark.tif")
        let capture = try TIFFReader.read(path: Fixture.darkroom), dark = try TIFFReader.read(path: Fixture.dark)
        let e = try #require(dark.exposure.settings)
        #expect(e == capture.exposure.settings)
        let recorded = try #require(truth["exposure"]?.object?["dark"]?.object)
        #expect(recorded["isoSpeed"]?.double == e.isoSpeed)
        #expect(abs((recorded["exposureTimeSeconds"]?.double ?? 0) / e.exposureTimeSeconds - 1) < 1e-6)   // EXIF stores a rational
        #expect(dark.image.width == capture.image.width && dark.image.height == capture.image.height)
        let d = try DarkFrame(frame: dark.image, iso: e.isoSpeed, blackLevel: Self.black, expectedWidth: capture.image.width,
                              expectedHeight: capture.image.height, file: Fixture.dark)
        // σ of the read-noise estimate ≈ ½ √(3 / 209 000) ≈ 0.2 %; of the black level 8 / √70 000 ≈ 0.03 DN per channel.
        #expect(abs(d.readNoiseDN(referenceISO: 100) / Self.truth.readNoiseDN - 1) < 0.01, "\(d.readNoiseDN)")
        for c in 0..<3 { #expect(abs(d.blackLevelPerChannelDN[c] - Self.black) < 0.2, "\(d.blackLevelPerChannelDN)") }
    }

    @Test("bad dark frames: another size, or a lit frame, are refused naming the file")
    func badDarkFrames() throws {
        let image = Self.darkFrame(width: 240, height: 160, iso: 100, seed: 23)
        #expect(throws: DarkFrameError.size(file: "d.tif", width: 240, height: 160, expectedWidth: 324, expectedHeight: 216)) {
            try DarkFrame(frame: image, iso: 100, blackLevel: Self.black, expectedWidth: 324, expectedHeight: 216, file: "d.tif")
        }
        let (lit, _) = Self.brightPatches(iso: 100, seed: 4)
        do {
            _ = try DarkFrame(frame: lit, iso: 100, blackLevel: Self.black, expectedWidth: lit.width, expectedHeight: lit.height, file: "lit.tif")
            Issue.record("a lit frame was accepted as a dark frame")
        } catch {
            guard case .notDark(let file, let fraction, _, _) = error else { Issue.record("\(error)"); return }
            #expect(file == "lit.tif" && fraction > 0.5, "lit fraction \(fraction)")
            #expect(error.description.hasPrefix("lit.tif: not a dark frame") && !error.description.contains("\n"))
        }
        // Black level subtracted and clipped at 0 by the developer: half the samples at 0.
        var cut = image
        for i in cut.samples.indices { cut.samples[i] = max(0, cut.samples[i] - Float(Self.black)) }
        #expect(throws: DarkFrameError.self) {
            try DarkFrame(frame: cut, iso: 100, blackLevel: 0, expectedWidth: 240, expectedHeight: 160, file: "cut.tif")
        }
        do { _ = try DarkFrame(frame: cut, iso: 100, blackLevel: 0, expectedWidth: 240, expectedHeight: 160, file: "cut.tif") } catch {
            guard case .clipped = error else { Issue.record("\(error)"); return }
            #expect(error.description.hasPrefix("cut.tif: ") && error.description.contains("cut off"))
        }
        // A dark frame 20 DN above a wrong black level is still a dark frame: its level is measured, not refused.
        var offset = image
        for i in offset.samples.indices { offset.samples[i] += 20 }
        let d = try DarkFrame(frame: offset, iso: 100, blackLevel: Self.black, expectedWidth: 240, expectedHeight: 160, file: "d.tif")
        #expect(abs(d.blackLevelDN - (Self.black + 21)) < 1.5)
    }
}
