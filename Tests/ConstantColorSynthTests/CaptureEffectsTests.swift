import Foundation
import Testing
import ConstantColor
import ConstantColorIO
@testable import ConstantColorSynth

/// Each capture fault of issue 7 changes the render the way its truth says, and the per-pixel
/// label map agrees with the chart's geometry.
@Suite struct CaptureEffectsTests {
    let lib = Fixture.library
    static let e = ExposureSettings(exposureTimeSeconds: 1.0 / 100, fNumber: 2, isoSpeed: 100)

    func rowMeans(_ img: PlanarImage, channel c: Int, minus black: Double) -> [Double] {
        (0..<img.height).map { j in
            var s = 0.0
            for i in 0..<img.width { s += Double(img[i, j, c]) - black }
            return s / Double(img.width)
        }
    }

    func render(_ c: SynthCondition, _ r: SceneRenderer, width: Int = 120, height: Int = 80,
                content: SceneGeometry.Content = .colorChecker, truthMaps: Bool = false,
                flashExposure: ExposureSettings = e, ambientExposure: ExposureSettings = e) throws -> SynthCapture {
        try r.render(c, width: width, height: height, seed: 5, content: content,
                     options: RenderOptions(noise: false, flashExposure: flashExposure, ambientExposure: ambientExposure,
                                            truthMaps: truthMaps))
    }

    /// Exposure metadata off: each frame's signal scales by its true/EXIF time × gain; EXIF and
    /// truth keep the nominal exposure, truth records the true one and the true ratio.
    @Test func exposureErrorScalesEachFrameByItsRecordedFactor() throws {
        let r = try nikonRenderer(lib)
        var c = plain(.planckian(cctKelvin: 4000, duv: 0), lux: 300)
        let factors = ExposureFactors(flashTime: 1.03, flashGain: 0.98, ambientTime: 0.96, ambientGain: 1.02)
        let base = try render(c, r, content: allWhite)
        c.effects.exposureError = .given(factors)
        let off = try render(c, r, content: allWhite)
        let black = r.camera.blackLevel
        for (a, b, k) in [(base.flash, off.flash, factors.flashScale), (base.ambient!, off.ambient!, factors.ambientScale)] {
            for ch in 0..<3 {
                let ratio = (mean(b.image, channel: ch) - black) / (mean(a.image, channel: ch) - black)
                #expect(abs(ratio / k - 1) < 2e-4, "channel \(ch): \(ratio) vs \(k)")
            }
            #expect(b.exposure == a.exposure)                          // EXIF: nominal
            #expect(abs(b.trueExposure.radiometricScale / b.exposure.radiometricScale / k - 1) < 1e-12)
        }
        let x = try JSONObjectReader(off.truth, file: "truth").object("exposure")
        #expect(try x.number("nominalAmbientToFlashRatio") == 1)
        #expect(abs(try x.number("trueAmbientToFlashRatio") - factors.ambientScale / factors.flashScale) < 1e-12)
        // Random factors stay within ±m and come from the seed.
        let f1 = ExposureMetadataError.random(maxRelative: 0.04).factors(seed: 9)
        let f2 = ExposureMetadataError.random(maxRelative: 0.04).factors(seed: 9)
        let f3 = ExposureMetadataError.random(maxRelative: 0.04).factors(seed: 10)
        #expect(f1 == f2 && f1 != f3)
        for v in [f1.flashTime, f1.flashGain, f1.ambientTime, f1.ambientGain] { #expect(abs(v - 1) <= 0.04) }
    }

    /// Row gains: the closed form (no PWM) matches a direct midpoint integral of I(t); with PWM over
    /// a whole number of PWM periods and no mains ripple every row's gain is 1; a short exposure
    /// bands (gain range ≈ depth), a long one (whole flicker periods) does not.
    @Test func flickerRowGainsAreTheIntegralOfTheIntensity() {
        let f = Flicker(frequencyHz: 100, depth: 0.3, frameReadoutSeconds: 0.02, phaseCycles: 0.2)
        let t = 1.0 / 1000, h = 50
        let g = f.rowGains(height: h, exposureSeconds: t, start: 0.0123)
        for j in [0, 17, 49] {
            let s = 0.0123 + Double(j) * 0.02 / Double(h)
            var sum = 0.0
            let n = 20000
            for k in 0..<n { sum += f.intensity(at: s + (Double(k) + 0.5) * t / Double(n)) }
            #expect(abs(g[j] - sum / Double(n)) < 1e-6)
        }
        #expect(g.max()! - g.min()! > 0.5 * 0.3 * 2)                   // bands
        let long = f.rowGains(height: h, exposureSeconds: 0.02, start: 0.0123)   // two whole periods
        #expect(long.allSatisfy { abs($0 - 1) < 1e-9 })
        let pwm = Flicker(frequencyHz: 100, depth: 0, pwmHz: 2000, pwmDuty: 0.25)
        #expect(pwm.rowGains(height: 20, exposureSeconds: 0.005, start: 0.00031).allSatisfy { abs($0 - 1) < 1e-3 })
        // A PWM exposure shorter than the period sees on or off: gains are 0 … 1/D.
        let short = pwm.rowGains(height: 200, exposureSeconds: 1.0 / 20000, start: 0)
        #expect(short.min()! < 0.05 && short.max()! > 3.9)
    }

    /// Flicker through a rolling shutter: per row, the ambient frame is the steady one times the
    /// recorded gain, and the flash frame's ambient part is too (flash − steady flash = (G − 1) · ambient).
    @Test func flickerRowMeansFollowTheRecordedGains() throws {
        let r = try nikonRenderer(lib)
        var c = plain(.planckian(cctKelvin: 3000, duv: 0), lux: 200)
        let steady = try render(c, r, content: allWhite, flashExposure: ExposureSettings(exposureTimeSeconds: 1.0 / 1000, fNumber: 2, isoSpeed: 800))
        c.effects.flicker = Flicker(frequencyHz: 120, depth: 0.4)
        let flk = try render(c, r, content: allWhite, flashExposure: ExposureSettings(exposureTimeSeconds: 1.0 / 1000, fNumber: 2, isoSpeed: 800))
        let black = r.camera.blackLevel
        let fx = try JSONObjectReader(flk.truth, file: "truth").object("effects").object("flicker").object("rowGain")
        let gA = try fx.numbers("ambient"), gF = try fx.numbers("flash")
        #expect(gA == flk.ambient!.faults.rowGains! && gF.count == 80)
        #expect(gF.max()! - gF.min()! > 0.2, "a 1 ms exposure under 120 Hz flicker bands")
        let a0 = rowMeans(steady.ambient!.image, channel: 1, minus: black), a1 = rowMeans(flk.ambient!.image, channel: 1, minus: black)
        for j in 0..<80 { #expect(abs(a1[j] / a0[j] - gA[j]) < 2e-4, "ambient row \(j)") }
        // Ambient part of the flash frame at the flash frame's exposure: ambient row mean × exposure ratio.
        let k = r.camera.dnPerLuminance(flk.flash.exposure) / r.camera.dnPerLuminance(flk.ambient!.exposure)
        let f0 = rowMeans(steady.flash.image, channel: 1, minus: black), f1 = rowMeans(flk.flash.image, channel: 1, minus: black)
        for j in 0..<80 {
            let expected = f0[j] + (gF[j] - 1) * a0[j] * k
            #expect(abs(f1[j] - expected) < 1, "flash row \(j): \(f1[j]) vs \(expected)")
        }
    }

    /// Hand shake: a small bright dot keeps its centroid (the path has mean zero) and its spread
    /// along the path grows by the path's variance, not across it.
    @Test func handShakeBlurSpreadsADotAlongThePath() throws {
        let r = try nikonRenderer(lib)
        var c = plain(.planckian(cctKelvin: 4000, duv: 0), lux: 300)
        let dot = SceneGeometry.Content.pointTarget(centerX: 300.3, centerY: 200.6, radiusPx: 2.5)
        let still = try render(c, r, width: 600, height: 400, content: dot)
        c.effects.handShake = HandShake(lengthPx: 12, angleDegrees: 0, samples: 16)
        let shaken = try render(c, r, width: 600, height: 400, content: dot)
        func moments(_ img: PlanarImage) -> (x: Double, y: Double, vx: Double, vy: Double) {
            var bg = 0.0
            for i in 0..<50 { bg += Double(img[i, 5, 1]) }
            bg /= 50
            var s = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0
            for j in 170..<230 {
                for i in 260..<340 {
                    let v = Double(img[i, j, 1]) - bg
                    let x = Double(i) + 0.5, y = Double(j) + 0.5
                    s += v; sx += v * x; sy += v * y; sxx += v * x * x; syy += v * y * y
                }
            }
            let mx = sx / s, my = sy / s
            return (mx, my, sxx / s - mx * mx, syy / s - my * my)
        }
        let a = moments(still.ambient!.image), b = moments(shaken.ambient!.image)
        let path = shaken.ambient!.faults.shakeOffsets
        let pathVariance = path.map { $0.x * $0.x }.reduce(0, +) / Double(path.count)
        #expect(abs(a.x - b.x) < 0.02 && abs(a.y - b.y) < 0.02)
        #expect(abs((b.vx - a.vx) / pathVariance - 1) < 0.03, "spread along x grew by \(b.vx - a.vx), path variance \(pathVariance)")
        #expect(abs(b.vy - a.vy) < 0.02)
        #expect(shaken.flash.image == still.flash.image)              // the flash frame is not blurred
    }

    /// Independent motion: the label maps show the object at its recorded place in each frame, and
    /// the frames differ from an object-free render only where the object is.
    @Test func movingObjectIsWhereTheTruthSays() throws {
        let r = try nikonRenderer(lib)
        var c = plain(.planckian(cctKelvin: 4000, duv: 0), lux: 300)
        let without = try render(c, r, width: 240, height: 160, truthMaps: true)
        c.effects.movingObject = MovingObject(flashCenter: SIMD2(0.3, 0.4), ambientCenter: SIMD2(0.36, 0.45), radiusFraction: 0.04)
        let with = try render(c, r, width: 240, height: 160, truthMaps: true)
        let m = try JSONObjectReader(with.truth, file: "truth").object("effects").object("movingObject")
        let label = Float(try m.number("label"))
        let fc = try m.numbers("flashCenter", count: 2), ac = try m.numbers("ambientCenter", count: 2)
        let radius = try m.number("radiusPx")
        #expect(fc == [0.3 * 240, 0.4 * 160] && ac == [0.36 * 240, 0.45 * 160] && radius == 0.04 * 240 && label == 26)
        for (labels, center, image, plainImage) in [(with.labels!, fc, with.flash.image, without.flash.image),
                                                   (with.ambientLabels!, ac, with.ambient!.image, without.ambient!.image)] {
            var count = 0
            for j in 0..<160 {
                for i in 0..<240 {
                    let d = ((Double(i) + 0.5 - center[0]) * (Double(i) + 0.5 - center[0])
                             + (Double(j) + 0.5 - center[1]) * (Double(j) + 0.5 - center[1])).squareRoot()
                    if labels[i, j, 0] == label { count += 1; #expect(d < radius) }
                    if d < radius - 1 { #expect(labels[i, j, 0] == label) }
                    if d > radius + 1.5 {
                        #expect(labels[i, j, 0] != label)
                        for ch in 0..<3 { #expect(image[i, j, ch] == plainImage[i, j, ch]) }
                    }
                }
            }
            // Fully covered pixels: about π r² less a one-pixel rim.
            #expect(Double(count) > Double.pi * (radius - 1) * (radius - 1) && Double(count) < Double.pi * radius * radius)
        }
    }

    /// Flash colour shading: in a flash-only render of a white plane, each pixel's camera RGB
    /// chromaticity is the recorded blend of the centre and edge whites with w = min(1, (r/R)²).
    @Test func flashColorShadingBlendsTheRecordedWhites() throws {
        let r = try nikonRenderer(lib)
        var c = SynthCondition.darkroom
        c.effects.flashColorShading = FlashColorShading(blueLossAtEdge: 0.3, edgeRadiusFraction: 0.8)
        let cap = try render(c, r, width: 150, height: 100, content: allWhite)
        let s = try JSONObjectReader(cap.truth, file: "truth").object("effects").object("flashColorShading")
        let cw = try s.numbers("centreWhiteCameraRGB", count: 3), ew = try s.numbers("edgeWhiteCameraRGB", count: 3)
        let radius = try s.number("edgeRadiusPx")
        #expect(abs(radius - 0.8 * 0.5 * (150.0 * 150 + 100 * 100).squareRoot()) < 1e-9)
        #expect(ew[2] < cw[2] * 0.9, "the edge is less blue")
        let black = r.camera.blackLevel
        let cWhite = cap.scene.flashWhite, eWhite = cap.scene.flashEdgeWhite
        for (i, j) in [(75, 50), (110, 70), (5, 5), (149, 99), (30, 80)] {
            let dx = Double(i) + 0.5 - 75, dy = Double(j) + 0.5 - 50
            let w = min(1, (dx * dx + dy * dy) / (radius * radius))
            let expected = (1 - w) * cWhite + w * eWhite
            let px = SIMD3((0..<3).map { Double(cap.flash.image[i, j, $0]) - black }[0...2])
            #expect(abs(px.z / px.y - expected.z / expected.y) < 2e-3, "B/G at (\(i), \(j))")
            #expect(abs(px.x / px.y - expected.x / expected.y) < 2e-3, "R/G at (\(i), \(j))")
        }
        #expect(abs(cw[2] - cWhite.z / cWhite.y) < 1e-12 && abs(ew[2] - eWhite.z / eWhite.y) < 1e-12)
    }

    /// Per-pixel truth: every labelled pixel's footprint lies in one material of the chart geometry
    /// (label = material + 1), every patch's sampling square is labelled with its patch, mixed
    /// pixels (label 0) straddle an edge or sit within a highlight's radius, and the materials'
    /// reference colours are the patches' D65 L*a*b*.
    @Test func labelsAgreeWithTheChartGeometry() throws {
        let r = try nikonRenderer(lib)
        let c = SynthCondition.preset(named: "200lux-4000K-on")!
        let cap = try r.render(c, width: 324, height: 216, seed: 1, options: RenderOptions(noise: false, truthMaps: true))
        let labels = try #require(cap.labels), g = cap.scene.geometry
        var zero = 0
        for j in 0..<216 {
            for i in 0..<324 {
                let l = Int(labels[i, j, 0])
                let corners = [(0.0, 0.0), (0.999, 0), (0, 0.999), (0.999, 0.999), (0.5, 0.5)].map {
                    g.material(x: Double(i) + $0.0, y: Double(j) + $0.1)
                }
                if l > 0 {
                    #expect(corners.allSatisfy { $0 + 1 == l }, "pixel (\(i), \(j)) label \(l), materials \(corners)")
                } else {
                    zero += 1
                    let nearHighlight = cap.scene.speculars.contains { p in
                        let dx = Double(i) + 0.5 - p.x, dy = Double(j) + 0.5 - p.y
                        return dx * dx + dy * dy < cap.scene.specularRadiusPx * cap.scene.specularRadiusPx
                    }
                    let grid = [0, 0.125, 0.25, 0.375, 0.4995, 0.625, 0.75, 0.875, 0.999]
                    let seen = Set(grid.flatMap { a in grid.map { b in g.material(x: Double(i) + a, y: Double(j) + b) } })
                    #expect(nearHighlight || seen.count > 1, "pixel (\(i), \(j)) is marked mixed but lies in one material")
                }
            }
        }
        #expect(zero > 0 && zero < 324 * 216 / 5)
        for p in 0..<24 {
            let ctr = g.patchCenter(p), hs = g.samplingHalfSizePx
            for j in Int((ctr.y - hs).rounded(.down))..<Int((ctr.y + hs).rounded(.up)) {
                for i in Int((ctr.x - hs).rounded(.down))..<Int((ctr.x + hs).rounded(.up)) {
                    #expect(labels[i, j, 0] == Float(p + 2))
                }
            }
        }
        let mats = try #require(cap.truth.object?["materials"]?.array)
        #expect(mats.count == 25)
        let ref = try JSONObjectReader(mats[3], file: "truth").numbers("labD65", count: 3)
        let patch = cap.truth.object!["chart"]!.object!["patches"]!.array![2].object!["lab"]!.doubles!
        #expect(ref == patch)                                          // label 4 = patch 3 ("blue sky")
    }

    /// Turning no effect on leaves the render and the truth as they were (committed fixtures keep
    /// their bytes); `allOn` turns every effect on, and differs between conditions.
    @Test func effectsAreOffByDefaultAndAllOnDiffersByName() throws {
        #expect(SynthCondition.preset(named: "200lux-4000K-on")!.effects.isEmpty)
        let a = CaptureEffects.allOn(key: "a"), b = CaptureEffects.allOn(key: "b")
        #expect(a.exposureError != nil && a.flicker != nil && a.handShake != nil && a.movingObject != nil && a.flashColorShading != nil)
        #expect(a != b)
        #expect(SynthCondition.realHardSet.count == 15 && SynthCondition.realHardSet.allSatisfy { !$0.effects.isEmpty })
        let r = try nikonRenderer(lib)
        let cap = try r.render(SynthCondition.preset(named: "200lux-4000K-on")!, width: 96, height: 64, seed: 3)
        #expect(cap.truth.object?["effects"] == nil && cap.truth.object?["materials"] == nil && cap.labels == nil)
    }
}
