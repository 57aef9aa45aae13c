import Foundation
import Testing
import ConstantColor
@testable import ConstantColorSynth

/// A camera that sees like the CIE 1931 observer (channels x̄, ȳ, z̄): its green channel is luminance.
func xyzCamera(_ lib: SpectralLibrary, whiteLevel: Double = 65000) -> SynthCamera {
    SynthCamera(name: "XYZ observer", sensitivity: CameraSensitivity(name: "XYZ", red: lib.cmfs.xBar, green: lib.cmfs.yBar, blue: lib.cmfs.zBar),
                whiteLevel: whiteLevel)
}

func nikonRenderer(_ lib: SpectralLibrary) throws -> SceneRenderer {
    let cam = SynthCamera(name: "Nikon 5100 (NPL)", sensitivity: try lib.camera(file: SpectralLibrary.File.nikon5100))
    return SceneRenderer(library: lib, camera: cam, flash: try lib.distribution(file: SpectralLibrary.File.phosphorLEDYAG))
}

/// A plain condition: one uniform light, no gradient, shadow, highlights or motion.
func plain(_ spectrum: LightSpectrum, lux: Double, motion: RigidMotion = .none) -> SynthCondition {
    SynthCondition(name: "plain", description: "test", lights: [AmbientLight(spectrum: spectrum, lux: lux)],
                   gradient: 0, shadow: false, speculars: false, motion: motion)
}

/// Everything is a perfect white.
let allWhite = SceneGeometry.Content.pointTarget(centerX: 0, centerY: 0, radiusPx: 1e9)

func mean(_ img: PlanarImage, channel c: Int) -> Double {
    var s = 0.0
    for j in 0..<img.height { for i in 0..<img.width { s += Double(img[i, j, c]) } }
    return s / Double(img.pixelCount)
}

@Suite struct RendererTests {
    let lib = Fixture.library

    /// Lux means lux: a perfect white under L lux of any SPD gives the luminance signal
    /// (W − B) · S/78 · q t/N² · L/π at equal exposure, whatever the SPD.
    @Test func perfectWhiteLuminanceIsProportionalToLuxForEverySPD() throws {
        let cam = xyzCamera(lib)
        let r = SceneRenderer(library: lib, camera: cam, flash: lib.d65)
        let spectra: [LightSpectrum] = [.file("illuminant-d65.json"), .planckian(cctKelvin: 2700, duv: 0),
                                        .planckian(cctKelvin: 5000, duv: -0.01), .file("lamp-fl11.json"),
                                        .file("lamp-hp1-sodium.json"), .narrowBand(peakNm: 460, halfWidthNm: 12),
                                        .daylight(cctKelvin: 7500, duv: nil)]
        var perLux: [Double] = []
        for s in spectra {
            for lux in [20.0, 400, 1500] {
                // Equal exposure for every SPD at a given lux, chosen so that the white gives ~20000 DN.
                let e = ExposureSettings(exposureTimeSeconds: 5 / lux, fNumber: 2, isoSpeed: 100)
                let cap = try r.render(plain(s, lux: lux), width: 32, height: 24, seed: 1, content: allWhite,
                                       options: RenderOptions(noise: false, flashExposure: e, ambientExposure: e))
                let y = mean(cap.ambient!.image, channel: 1) - cam.blackLevel
                let expected = cam.dnPerLuminance(e) * lux / Double.pi
                #expect(abs(y / expected - 1) < 2e-4, "\(s) at \(lux) lux: \(y) DN, expected \(expected)")
                perLux.append(y / (lux * cam.dnPerLuminance(e)))
            }
        }
        let spread = (perLux.max()! - perLux.min()!) / perLux.min()!
        #expect(spread < 1e-4, "luminance per lux differs across SPDs by \(spread)")
    }

    /// Noise: a flat field's sample mean and variance match `NoiseModel` (plus the 1/12 DN² of
    /// rounding); the bounds are 4 standard errors computed from the sample size and the model's
    /// cumulants (shot noise is Poisson: fourth cumulant λ (k/g)⁴; rounding: −1/120).
    @Test(arguments: [100.0, 1600.0])
    func flatFieldNoiseMatchesModel(iso: Double) throws {
        let cam = xyzCamera(lib)
        let r = SceneRenderer(library: lib, camera: cam, flash: lib.d65)
        let e = ExposureSettings(exposureTimeSeconds: 1.0 / 100 * 100 / iso, fNumber: 2, isoSpeed: iso)
        let cond = plain(.planckian(cctKelvin: 4000, duv: 0), lux: 300)
        let clean = try r.render(cond, width: 200, height: 150, seed: 3, content: allWhite,
                                 options: RenderOptions(noise: false, flashExposure: e, ambientExposure: e))
        let scene = clean.scene
        let expectedDN = scene.pixelLuminance(i: 10, j: 10, origin: .zero, ex: SIMD2(1, 0), ey: SIMD2(0, 1),
                                              flashOn: false, supersampling: 1) * cam.dnPerLuminance(e)
        let noisy = try r.render(cond, width: 200, height: 150, seed: 3, content: allWhite,
                                 options: RenderOptions(noise: true, flashExposure: e, ambientExposure: e)).ambient!.image
        let n = Double(noisy.pixelCount)
        let c = cam.noise.coefficients(iso: iso)
        for ch in 0..<3 {
            let s = expectedDN[ch]
            #expect(s > 1000 && s + cam.blackLevel < cam.whiteLevel - 2000, "signal \(s) must be unclipped")
            let variance = cam.noise.variance(signalDN: s, iso: iso) + 1.0 / 12
            var sum = 0.0, sum2 = 0.0
            for j in 0..<noisy.height { for i in 0..<noisy.width {
                let v = Double(noisy[i, j, ch]) - cam.blackLevel
                sum += v; sum2 += v * v
            } }
            let m = sum / n
            let v = (sum2 - n * m * m) / (n - 1)
            #expect(abs(m - s) < 4 * (variance / n).squareRoot(), "channel \(ch): mean \(m), expected \(s)")
            let kappa4 = (s / c.shotDNPerDN) * pow(c.shotDNPerDN, 4) - 1.0 / 120
            let seVariance = (2 * variance * variance / (n - 1) + kappa4 / n).squareRoot()
            #expect(abs(v - variance) < 4 * seVariance, "channel \(ch): variance \(v), model \(variance) ± \(seVariance)")
        }
    }

    /// The motion in truth.json is the one rendered: a bright dot's centroid in the flash frame, mapped
    /// by `ambientFromFlash`, lands on its centroid in the ambient frame (to 0.02 px), at two places.
    @Test(arguments: [(60.0, 50.0), (245.3, 148.6)])
    func renderedMotionMatchesTruth(x: Double, y: Double) throws {
        let r = try nikonRenderer(lib)
        let motion = RigidMotion(translationXPx: 3.3, translationYPx: -1.7, rotationDegrees: 0.8)
        let cap = try r.render(plain(.planckian(cctKelvin: 3500, duv: 0), lux: 200, motion: motion), width: 300, height: 200,
                               seed: 5, content: .pointTarget(centerX: x, centerY: y, radiusPx: 4),
                               options: RenderOptions(noise: false, supersampling: 16,
                                                      flashExposure: ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 1.8, isoSpeed: 100),
                                                      ambientExposure: ExposureSettings(exposureTimeSeconds: 1.0 / 25, fNumber: 1.8, isoSpeed: 100)))
        // Fixed exposures keep the dot below the white level (a clipped dot's centroid is biased).
        #expect(cap.flash.image.samples.max()! < Float(r.camera.whiteLevel) && cap.ambient!.image.samples.max()! < Float(r.camera.whiteLevel))
        let matrix = cap.truth.object?["ambientFromFlash"]?.object?["matrix"]?.array?.compactMap(\.doubles)
        let m = try #require(matrix)
        let cf = centroid(cap.flash.image, near: (x, y))
        let predicted = (m[0][0] * cf.x + m[0][1] * cf.y + m[0][2], m[1][0] * cf.x + m[1][1] * cf.y + m[1][2])
        let ca = centroid(cap.ambient!.image, near: predicted)
        #expect(hypot(cf.x - x, cf.y - y) < 0.02, "flash centroid \(cf) vs dot at \(x), \(y)")
        #expect(hypot(ca.x - predicted.0, ca.y - predicted.1) < 0.02, "ambient centroid \(ca) vs \(predicted)")
    }

    /// Centroid (continuous pixel coordinates, pixel centres at +0.5) of the green channel in a
    /// 21 × 21 window, after removing a plane fitted to the window's border.
    func centroid(_ img: PlanarImage, near p: (Double, Double)) -> (x: Double, y: Double) {
        let ci = Int(p.0), cj = Int(p.1), r = 10
        var border: [(Double, Double, Double)] = []
        for j in (cj - r)...(cj + r) { for i in (ci - r)...(ci + r) where abs(i - ci) == r || abs(j - cj) == r {
            border.append((Double(i), Double(j), Double(img[i, j, 1])))
        } }
        // Least squares v = a + b x + c y on the border (normal equations).
        var ata = Matrix3([0, 0, 0, 0, 0, 0, 0, 0, 0]); var atv = SIMD3<Double>(0, 0, 0)
        for (x, y, v) in border {
            let row = SIMD3(1, x, y)
            for a in 0..<3 { for b in 0..<3 { ata[a, b] += row[a] * row[b] } }
            atv += row * v
        }
        let coef = ata.inverse! * atv
        var sw = 0.0, sx = 0.0, sy = 0.0
        for j in (cj - r + 1)...(cj + r - 1) { for i in (ci - r + 1)...(ci + r - 1) {
            let v = Double(img[i, j, 1]) - (coef.x + coef.y * Double(i) + coef.z * Double(j))
            sw += v; sx += v * (Double(i) + 0.5); sy += v * (Double(j) + 0.5)
        } }
        return (sx / sw, sy / sw)
    }

    /// Same seed, same frames; another seed, other noise.
    @Test func deterministicForASeed() throws {
        let r = try nikonRenderer(lib)
        let cond = SynthCondition.preset(named: "50lux-4000K-above")!
        let a = try r.render(cond, width: 120, height: 80, seed: 42)
        let b = try r.render(cond, width: 120, height: 80, seed: 42)
        let c = try r.render(cond, width: 120, height: 80, seed: 43)
        #expect(a.flash.image == b.flash.image && a.ambient!.image == b.ambient!.image && a.truth == b.truth)
        #expect(a.flash.image != c.flash.image)
    }

    /// Auto-exposure: a dim scene gets the longest shutter and a high ISO; a bright one base ISO.
    @Test func autoExposureRespectsLimits() throws {
        let r = try nikonRenderer(lib)
        let dim = try r.render(SynthCondition.preset(named: "10lux-3000K-on")!, width: 60, height: 40, seed: 1)
        #expect(dim.ambient!.exposure.exposureTimeSeconds == r.camera.maxExposureTimeSeconds)
        #expect(dim.ambient!.exposure.isoSpeed > 400 && dim.ambient!.exposure.isoSpeed <= r.camera.maxISO)
        let bright = try r.render(SynthCondition.preset(named: "bright-daylight-20000lux")!, width: 60, height: 40, seed: 1)
        #expect(bright.ambient!.exposure.isoSpeed == 100 && bright.ambient!.exposure.exposureTimeSeconds < 1.0 / 1000)
    }

    /// The highlights clip in the flash frame; the shadow darkens the ambient frame by its depth.
    @Test func highlightsClipAndShadowDarkens() throws {
        let r = try nikonRenderer(lib)
        let cap = try r.render(SynthCondition.preset(named: "200lux-4000K-on")!, width: 300, height: 200, seed: 9)
        for s in cap.scene.speculars {
            #expect(cap.flash.image[Int(s.x), Int(s.y), 1] == Float(r.camera.whiteLevel))
        }
        let scene = cap.scene
        let inside = scene.shadowFactor(x: 10, y: 190), outside = scene.shadowFactor(x: 290, y: 10)
        #expect(inside == SynthCondition.shadowDepth && outside == 1)
    }
}
