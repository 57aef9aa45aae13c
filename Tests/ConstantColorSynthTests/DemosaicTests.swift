import Foundation
import Testing
import ConstantColor
@testable import ConstantColorSynth

/// The colour filter array and demosaicing (`Demosaic`, `RenderOptions.demosaic`): known values on
/// a hand-made mosaic (bilinear) and from impulses (Malvar–He–Cutler), the noise statistics the
/// bilinear kernel implies, and a render that changes only what demosaicing should change.
@Suite struct DemosaicTests {
    let lib = Fixture.library

    /// A hand-made 6 × 4 RGGB mosaic (rows: R G R G R G / G B G B G B / …), distinct integers.
    static let mosaic: [[Float]] = [
        [10, 52, 30, 71, 18, 44],
        [61, 25, 83, 37, 66, 90],
        [14, 77, 42, 58, 26, 35],
        [93, 48, 69, 12, 81, 55],
    ]

    /// Every interpolated value below is worked out by hand from the mosaic (x = column, y = row);
    /// borders mirror the index (-1 → 1, 6 → 4, 4 → 2); half-DN means round to even.
    @Test func knownAnswerOnAHandMadeMosaic() {
        let w = 6, h = 4
        // The samples a pixel's filter does not record are garbage, and must be ignored.
        var img = PlanarImage(width: w, height: h, channelCount: 3, repeating: 60000)
        let d = Demosaic.bilinearRGGB
        for y in 0..<h { for x in 0..<w { img[x, y, d.filterChannel(x: x, y: y)] = Self.mosaic[y][x] } }
        d.apply(to: &img)
        // CFA sites keep their value.
        for y in 0..<h {
            for x in 0..<w { #expect(img[x, y, d.filterChannel(x: x, y: y)] == Self.mosaic[y][x], "(\(x), \(y))") }
        }
        #expect(d.filterChannel(x: 0, y: 0) == 0 && d.filterChannel(x: 1, y: 0) == 1
                && d.filterChannel(x: 0, y: 1) == 1 && d.filterChannel(x: 1, y: 1) == 2)
        let expected: [(x: Int, y: Int, c: Int, value: Float, why: String)] = [
            // R
            (3, 0, 0, 24, "G site, R row: (30 + 18) / 2"),
            (1, 2, 0, 28, "G site, R row: (14 + 42) / 2"),
            (0, 1, 0, 12, "G site, B row: column (10 + 14) / 2"),
            (0, 3, 0, 14, "G site, B row, bottom border: column (14 + 14 mirrored) / 2"),
            (3, 1, 0, 29, "B site: diagonals (30 + 18 + 42 + 26) / 4"),
            (5, 3, 0, 26, "B site, corner: all 4 diagonals mirror to (4, 2) = 26"),
            // G
            (2, 2, 1, 72, "R site: (77 + 58 + 83 + 69) / 4 = 71.75"),
            (3, 1, 1, 70, "B site: (83 + 66 + 71 + 58) / 4 = 69.5, to even"),
            (0, 0, 1, 56, "R site, corner: (52 + 52 + 61 + 61) / 4 = 56.5 mirrored, to even"),
            (5, 3, 1, 58, "B site, corner: (81 + 81 + 35 + 35) / 4 mirrored"),
            // B
            (2, 2, 2, 30, "R site: diagonals (25 + 37 + 48 + 12) / 4 = 30.5, to even"),
            (0, 0, 2, 25, "R site, corner: all 4 diagonals mirror to (1, 1) = 25"),
            (3, 0, 2, 37, "G site, R row, top border: column (37 mirrored + 37) / 2"),
            (1, 2, 2, 36, "G site, R row: column (25 + 48) / 2 = 36.5, to even"),
            (4, 3, 2, 34, "G site, B row: (12 + 55) / 2 = 33.5, to even"),
            (5, 0, 2, 90, "G site, R row, right border: column (90 mirrored + 90) / 2"),
        ]
        for e in expected { #expect(img[e.x, e.y, e.c] == e.value, "(\(e.x), \(e.y)) channel \(e.c): \(e.why)") }
    }

    /// Malvar–He–Cutler's kernels, coefficient by coefficient (ICASSP 2004, Fig. 2, in eighths): on a
    /// flat mosaic of 1000 DN, one sample raised by 800 DN moves each interpolated value near it by
    /// its kernel weight × 100. An R sample: G at its site +4/8, two away in row and column −1/8; B at
    /// its site +6/8, two away −3/2 ⁄ 8; R at the row or column G neighbours +4/8, at the diagonal B
    /// sites +2/8; B at those G neighbours unchanged (weight 0). A G sample (R row): R and B at its
    /// site +5/8; G at the 4 edge neighbours +2/8; from the row's kernel two away in the row −1/8 and
    /// in the column +½ ⁄ 8, from the column's kernel the transposes; the diagonal G sites −1/8.
    @Test func malvarKernelsByImpulse() {
        let w = 9, h = 9, d = Demosaic.malvarRGGB
        func impulse(x: Int, y: Int) -> PlanarImage {
            var img = PlanarImage(width: w, height: h, channelCount: 3, repeating: 1000)
            img[x, y, d.filterChannel(x: x, y: y)] = 1800
            d.apply(to: &img)
            return img
        }
        let red = impulse(x: 4, y: 4), green = impulse(x: 5, y: 4)
        #expect(d.filterChannel(x: 4, y: 4) == 0 && d.filterChannel(x: 5, y: 4) == 1)
        let expected: [(image: PlanarImage, x: Int, y: Int, c: Int, value: Float, why: String)] = [
            (red, 4, 4, 0, 1800, "the R site keeps its sample"),
            (red, 4, 4, 1, 1400, "G at the R site: centre 4/8"),
            (red, 4, 4, 2, 1600, "B at the R site: centre 6/8"),
            (red, 2, 4, 1, 900, "G at the R site two left: −1/8"),
            (red, 4, 6, 1, 900, "G at the R site two down: −1/8"),
            (red, 2, 4, 2, 850, "B at the R site two left: −3/2 ⁄ 8"),
            (red, 4, 2, 2, 850, "B at the R site two up: −3/2 ⁄ 8"),
            (red, 3, 4, 0, 1400, "R at the G site left (R row): row neighbour 4/8"),
            (red, 4, 3, 0, 1400, "R at the G site above (B row): column neighbour 4/8"),
            (red, 3, 4, 2, 1000, "B at the G site left: the R sample is not in its kernel"),
            (red, 4, 3, 2, 1000, "B at the G site above: the R sample is not in its kernel"),
            (red, 3, 3, 0, 1200, "R at the diagonal B site: 2/8"),
            (red, 3, 3, 1, 1000, "G at the diagonal B site: not in its kernel"),
            (green, 5, 4, 1, 1800, "the G site keeps its sample"),
            (green, 5, 4, 0, 1500, "R at the G site (from the row): centre 5/8"),
            (green, 5, 4, 2, 1500, "B at the G site (from the column): centre 5/8"),
            (green, 4, 4, 1, 1200, "G at the R site left: edge 2/8"),
            (green, 5, 3, 1, 1200, "G at the B site above: edge 2/8"),
            (green, 3, 4, 0, 900, "R at the G site two left (from the row): −1/8"),
            (green, 3, 4, 2, 1050, "B at the G site two left (from the column): +½ ⁄ 8"),
            (green, 5, 2, 0, 1050, "R at the G site two up (from the row): +½ ⁄ 8"),
            (green, 5, 2, 2, 900, "B at the G site two up (from the column): −1/8"),
            (green, 4, 3, 0, 900, "R at the diagonal G site (B row, from the column): −1/8"),
            (green, 4, 3, 2, 900, "B at the diagonal G site (B row, from the row): −1/8"),
            (green, 4, 4, 2, 1000, "B at the R site left: not in its kernel"),
        ]
        for e in expected { #expect(e.image[e.x, e.y, e.c] == e.value, "(\(e.x), \(e.y)) channel \(e.c): \(e.why)") }
        // Far from the impulses nothing moves (the kernels reach two pixels).
        for c in 0..<3 { #expect(red[8, 0, c] == 1000 && green[0, 8, c] == 1000) }
    }

    /// Malvar–He–Cutler at the border, where the kernels reach two pixels past it: the index mirrors
    /// (-1 → 1, -2 → 2, n → n − 2, n + 1 → n − 3), which keeps the mosaic's parity. An R sample of 1800 at
    /// (2, 0) on 1000 elsewhere is seen twice from the corner R site (0, 0), at +2 and at the mirrored
    /// −2: G = 1000 − 2·100 = 800 and B = 1000 − 2·150 = 700 (a clamped border, −2 → 0, would give 900
    /// and 850). A B sample of 1800 at (7, 7) of a 9 × 9 image is all four diagonals of the corner R
    /// site (8, 8): B = 1000 + 4·200 = 1800 (clamped: 1200), and its G is unchanged.
    @Test func malvarMirrorsAtTheBorder() {
        let w = 9, h = 9, d = Demosaic.malvarRGGB
        var img = PlanarImage(width: w, height: h, channelCount: 3, repeating: 1000)
        img[2, 0, 0] = 1800
        img[7, 7, 2] = 1800
        #expect(d.filterChannel(x: 2, y: 0) == 0 && d.filterChannel(x: 7, y: 7) == 2 && d.filterChannel(x: 8, y: 8) == 0)
        d.apply(to: &img)
        #expect(img[0, 0, 1] == 800 && img[0, 0, 2] == 700, "(0, 0): G \(img[0, 0, 1]), B \(img[0, 0, 2])")
        #expect(img[8, 8, 2] == 1800 && img[8, 8, 1] == 1000, "(8, 8): B \(img[8, 8, 2]), G \(img[8, 8, 1])")
    }

    /// The kernels are symmetric, their taps on the wanted channel sum to 8/8 and on the recorded one
    /// to 0, so a linear field (different in each channel) comes through exactly, away from the
    /// mirrored border; so does a constant one everywhere.
    @Test func malvarReproducesLinearFields() {
        let w = 12, h = 10, d = Demosaic.malvarRGGB
        func field(_ x: Int, _ y: Int, _ c: Int) -> Float { Float(2000 + 16 * x * (c + 1) - 8 * y * (2 - c)) }
        var img = PlanarImage(width: w, height: h, channelCount: 3, repeating: 0)
        var flat = PlanarImage(width: w, height: h, channelCount: 3, repeating: 0)
        for y in 0..<h {
            for x in 0..<w { for c in 0..<3 { img[x, y, c] = field(x, y, c); flat[x, y, c] = 3000 } }
        }
        d.apply(to: &img); d.apply(to: &flat)
        var wrong = 0
        for y in 2..<(h - 2) {
            for x in 2..<(w - 2) { for c in 0..<3 where img[x, y, c] != field(x, y, c) { wrong += 1 } }
        }
        #expect(wrong == 0, "\(wrong) interior values differ from the linear field")
        #expect(flat.samples.allSatisfy { $0 == 3000 })
    }

    /// Independent Gaussian raw noise (σ = 20 DN around 1000, so the half-DN rounding of the result
    /// adds at most 1/12 DN², < 0.04 % of the smallest expected variance), demosaiced, per channel:
    ///
    /// (i) mean pixel variance / raw variance. An interpolated value is the mean of m independent
    /// samples (variance 1/m): R and B: 1, 1/2, 1/2, 1/4 at the four CFA positions → 0.5625; G: 1, 1,
    /// 1/4, 1/4 → 0.625. Measured on interior pixels (the mirrored border repeats samples).
    ///
    /// (ii) Var(16 × 16 block mean) · 256 / raw variance. A block mean is Σ_k W_k x_k / 256 where W_k
    /// is raw sample k's total weight in the block, so the exact value is Σ_k W_k² / 256, computed
    /// here from the convolution form of the kernel (R, B: the tent [½ 1 ½] ⊗ [½ 1 ½] on the
    /// zero-filled mosaic; G: 1 at the centre and ¼ at the 4 edge neighbours), independently of the
    /// implementation's neighbour rules. Away from a block's border W_k = 4 (R, B) or 2 (G), so it
    /// tends to 4 and 2 for large blocks; at 16 × 16 it is 3.634 (R, B) and 1.892 (G). Blocks that
    /// touch the image border are left out.
    @Test func noiseStatisticsMatchTheBilinearKernel() {
        let side = 256, images = 8, level = 1000.0, sigma = 20.0, block = 16
        let d = Demosaic.bilinearRGGB
        var rawSq = [Double](repeating: 0, count: 3), rawCount = [Double](repeating: 0, count: 3)
        var pixelSq = [Double](repeating: 0, count: 3), pixelCount = 0.0
        var blockSq = [Double](repeating: 0, count: 3), blockCount = 0.0
        for n in 0..<images {
            var img = PlanarImage(width: side, height: side, channelCount: 3, repeating: 0)
            var rng = Xoshiro256StarStar(seed: 1288, stream: UInt64(n))
            for y in 0..<side {
                for x in 0..<side {
                    let c = d.filterChannel(x: x, y: y)
                    let v = (level + sigma * rng.normal()).rounded()
                    img[x, y, c] = Float(v)
                    rawSq[c] += (v - level) * (v - level); rawCount[c] += 1
                }
            }
            d.apply(to: &img)
            for c in 0..<3 {
                for y in 1..<(side - 1) {
                    for x in 1..<(side - 1) { let e = Double(img[x, y, c]) - level; pixelSq[c] += e * e }
                }
            }
            pixelCount += Double((side - 2) * (side - 2))
            for by in 1..<(side / block - 1) {
                for bx in 1..<(side / block - 1) {
                    for c in 0..<3 {
                        var s = 0.0
                        for y in (by * block)..<((by + 1) * block) {
                            for x in (bx * block)..<((bx + 1) * block) { s += Double(img[x, y, c]) }
                        }
                        let e = s / Double(block * block) - level
                        blockSq[c] += e * e
                    }
                    blockCount += 1
                }
            }
        }

        // Exact Σ W_k² / (block²) for a block aligned with the mosaic (its top-left pixel an R site).
        func exactBlockFactor(_ channel: Int) -> Double {
            var total = 0.0
            for ky in -1...block {
                for kx in -1...block where d.filterChannel(x: kx & 1, y: ky & 1) == channel {
                    var weight = 0.0
                    for py in 0..<block {
                        for px in 0..<block {
                            let dx = abs(px - kx), dy = abs(py - ky)
                            if channel == 1 {
                                weight += dx + dy == 0 ? 1 : dx + dy == 1 ? 0.25 : 0
                            } else if dx <= 1 && dy <= 1 {
                                weight += (1 - 0.5 * Double(dx)) * (1 - 0.5 * Double(dy))
                            }
                        }
                    }
                    total += weight * weight
                }
            }
            return total / Double(block * block)
        }

        // Tolerances, 4 standard deviations, from the sample counts (bounds: standard deviations of
        // correlated terms are added, never combined in quadrature).
        // (i) n samples per CFA position. A variance estimated from n independent Gaussian values has a
        // relative standard deviation √(2/n). Correlated values: Var(Σ y²) = 2 Σ_p Σ_q Cov(y_p, y_q)², so
        // each term counts 1 + Σ_q ρ_pq² times; an interpolated value shares raw samples with at most 4
        // same-position neighbours at correlation ½ and 4 at ¼ (R at a B site), Σ ρ² ≤ 4/4 + 4/16 = 1.25.
        // Per position, then summed over the 4 positions (weights ¼ · 1/m, which add up to the expected
        // ratio): relative ≤ √(2 · 2.25/n) for the output, plus √(2/n) for the raw variance.
        let n = Double(images * side * side) / 4
        let tolPixel = 4 * ((4.5 / n).squareRoot() + (2 / n).squareRoot())
        // (ii) B nearly independent block means (neighbours share only border samples: correlation
        // < 0.03, inflation < 1 + 2 · 4 · 0.03² < 1.01): relative standard deviation √(2.02/B).
        let tolBlock = 4 * ((2.02 / blockCount).squareRoot() + (2 / n).squareRoot())
        let pixelTheory = [0.5625, 0.625, 0.5625]
        for c in 0..<3 {
            let raw = rawSq[c] / rawCount[c]
            let pixelRatio = pixelSq[c] / pixelCount / raw
            let blockRatio = blockSq[c] / blockCount * Double(block * block) / raw
            let blockTheory = exactBlockFactor(c)
            print(String(format: "demosaic noise, channel %d: raw variance %.1f DN², pixel variance ratio %.4f (theory %.4f, tolerance ±%.1f %%), 16 × 16 block ratio %.4f (theory %.4f, asymptote %.0f, tolerance ±%.1f %%, %.0f blocks)",
                         c, raw, pixelRatio, pixelTheory[c], 100 * tolPixel, blockRatio, blockTheory, c == 1 ? 2.0 : 4.0,
                         100 * tolBlock, blockCount))
            #expect(abs(pixelRatio / pixelTheory[c] - 1) < tolPixel, "channel \(c): pixel variance ratio \(pixelRatio)")
            #expect(abs(blockRatio / blockTheory - 1) < tolBlock, "channel \(c): block variance ratio \(blockRatio)")
        }
        #expect(abs(exactBlockFactor(0) - 3.6337890625) < 1e-12 && abs(exactBlockFactor(2) - 3.6337890625) < 1e-12)
        #expect(abs(exactBlockFactor(1) - 1.8916015625) < 1e-12)
    }

    /// Through the library: each frame (flash, ambient, dark) is exactly the frame rendered without
    /// demosaicing, mosaicked and demosaiced afterwards (same noise draws, so each pixel's recorded
    /// sample is the same to the bit); truth.json says `"demosaic": "bilinear-rggb"` and is otherwise
    /// unchanged (no key without it).
    ///
    /// Without noise, on a smooth field (all white, no ambient gradient; the flash's fall-off curves
    /// it by a few DN per pixel²), an interpolated value changes by no more than rounding and the
    /// field's curvature: the bilinear mean of neighbours m differs from the value v by ¼ (f_xx + f_yy)
    /// (G from 4 edge neighbours), ½ f_xx or ½ f_yy (2 neighbours), ½ (f_xx + f_yy) (4 diagonals);
    /// the neighbours are rounded (±½), so is the result (±1 against the rounded v); f_xx estimated by
    /// the second difference of rounded values errs by ≤ 2 DN: |Δ| ≤ 1.5 + ½ (|Δ²x| + |Δ²y| + 4).
    @Test func renderDemosaicsEveryFrameAndRecordsIt() throws {
        let r = try nikonRenderer(lib)
        let d = Demosaic.bilinearRGGB
        // Auto-exposure: metered on the scene, so the same with and without demosaicing.
        func options(noise: Bool, _ demosaic: Demosaic?) -> RenderOptions { RenderOptions(noise: noise, demosaic: demosaic) }
        func demosaicked(_ image: PlanarImage) -> PlanarImage {
            var copy = image
            d.apply(to: &copy)
            return copy
        }
        func cfaMatches(_ a: PlanarImage, _ b: PlanarImage) -> Bool {
            for y in 0..<a.height {
                for x in 0..<a.width where a[x, y, d.filterChannel(x: x, y: y)] != b[x, y, d.filterChannel(x: x, y: y)] {
                    return false
                }
            }
            return true
        }
        func differing(_ a: PlanarImage, _ b: PlanarImage) -> Int { zip(a.samples, b.samples).filter { $0 != $1 }.count }

        // A pair (chart, noise on).
        let c = plain(.planckian(cctKelvin: 3500, duv: 0), lux: 200,
                      motion: RigidMotion(translationXPx: 1.3, translationYPx: -0.7, rotationDegrees: 0.2))
        let plainPair = try r.render(c, width: 96, height: 64, seed: 7, options: options(noise: true, nil))
        let mosaicPair = try r.render(c, width: 96, height: 64, seed: 7, options: options(noise: true, d))
        for (a, b) in [(plainPair.flash.image, mosaicPair.flash.image), (plainPair.ambient!.image, mosaicPair.ambient!.image)] {
            #expect(cfaMatches(a, b))
            #expect(demosaicked(a) == b)
            #expect(differing(a, b) > a.samples.count / 2)     // two of three samples are interpolated
        }
        #expect(mosaicPair.flash.image.samples.allSatisfy { $0 >= 0 && $0 <= 65535 && $0 == $0.rounded() })
        #expect(mosaicPair.flash.exposure == plainPair.flash.exposure && mosaicPair.ambient?.exposure == plainPair.ambient?.exposure)
        #expect(mosaicPair.truth.object?["demosaic"]?.string == "bilinear-rggb")
        #expect(plainPair.truth.object?["demosaic"] == nil)
        var stripped = mosaicPair.truth.object!
        stripped["demosaic"] = nil
        #expect(JSONValue.object(stripped) == plainPair.truth)

        // A dark-room capture: the dark frame goes through the same path.
        let plainDark = try r.render(.darkroom, width: 96, height: 64, seed: 3, options: options(noise: true, nil))
        let mosaicDark = try r.render(.darkroom, width: 96, height: 64, seed: 3, options: options(noise: true, d))
        let pd = try #require(plainDark.dark), md = try #require(mosaicDark.dark)
        #expect(cfaMatches(plainDark.flash.image, mosaicDark.flash.image) && demosaicked(plainDark.flash.image) == mosaicDark.flash.image)
        #expect(cfaMatches(pd.image, md.image) && demosaicked(pd.image) == md.image && differing(pd.image, md.image) > 0)
        #expect(mosaicDark.truth.object?["demosaic"]?.string == "bilinear-rggb")
        let dir = Fixture.temporaryDirectory("demosaic")
        defer { Fixture.removeTemporaryDirectory(dir) }
        try mosaicDark.write(toDirectory: dir)
        let written = try JSONValue.read(path: dir + "/" + SynthCapture.FileName.truth)
        #expect(written.object?["demosaic"]?.string == "bilinear-rggb")

        // No noise, a smooth field: interior changes within rounding and curvature.
        let flatPlain = try r.render(c, width: 96, height: 64, seed: 7, content: allWhite, options: options(noise: false, nil))
        let flatMosaic = try r.render(c, width: 96, height: 64, seed: 7, content: allWhite, options: options(noise: false, d))
        for (a, b) in [(flatPlain.flash.image, flatMosaic.flash.image), (flatPlain.ambient!.image, flatMosaic.ambient!.image)] {
            var worst: Float = 0, worstExcess: Float = -.infinity
            for ch in 0..<3 {
                for y in 1..<(a.height - 1) {
                    for x in 1..<(a.width - 1) {
                        let dxx = a[x - 1, y, ch] - 2 * a[x, y, ch] + a[x + 1, y, ch]
                        let dyy = a[x, y - 1, ch] - 2 * a[x, y, ch] + a[x, y + 1, ch]
                        let change = abs(a[x, y, ch] - b[x, y, ch])
                        worst = max(worst, change)
                        worstExcess = max(worstExcess, change - (1.5 + 0.5 * (abs(dxx) + abs(dyy) + 4)))
                    }
                }
            }
            print("demosaic, no noise, smooth field: largest interior change \(worst) DN")
            #expect(worstExcess <= 0, "a change exceeds rounding and curvature by \(worstExcess) DN")
        }
    }
}
