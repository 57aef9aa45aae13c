import TestSupport
import ConstantColor
import ConstantColorIO
import Foundation
import Testing

/// One row of the CIEDE2000 test data.
struct CIEDE2000Pair: Sendable, CustomTestStringConvertible {
    let number: Int
    let lab1: SIMD3<Double>
    let lab2: SIMD3<Double>
    let deltaE00: Double
    var testDescription: String { "pair \(number)" }
}

/// Table 1 of G. Sharma, W. Wu and E. N. Dalal, "The CIEDE2000 color-difference formula:
/// implementation notes, supplementary test data, and mathematical observations", Color
/// Research & Application 30(1), 21–30 (2005). Columns: L1 a1 b1 L2 a2 b2 ΔE00 (k_L = k_C =
/// k_H = 1). Pairs 9–15 straddle the hue-angle discontinuities the paper warns about.
let sharmaWuDalal2005Table1: [CIEDE2000Pair] = [
    [50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425],
    [50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615],
    [50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412],
    [50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669],
    [50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461],
    [50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065],
    [50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492],
    [50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977],
    [50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030],
    [50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000],
    [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
    [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630],
    [61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731],
    [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
    [22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373],
    [36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
    [90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441],
    [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
    [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
    [2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082],
].enumerated().map { index, row in
    CIEDE2000Pair(number: index + 1, lab1: SIMD3(row[0], row[1], row[2]),
                  lab2: SIMD3(row[3], row[4], row[5]), deltaE00: row[6])
}

@Suite struct ColorScienceTests {
    @Test func sharmaTableHasAll34Pairs() {
        #expect(sharmaWuDalal2005Table1.count == 34)
    }

    @Test(arguments: sharmaWuDalal2005Table1)
    func ciede2000MatchesSharmaWuDalal(_ pair: CIEDE2000Pair) {
        let forward = ColorScience.ciede2000(pair.lab1, pair.lab2)
        let backward = ColorScience.ciede2000(pair.lab2, pair.lab1)
        #expect(abs(forward - pair.deltaE00) <= ColorTolerance.roundsToFourDecimals,
                "ΔE00 \(forward), published \(pair.deltaE00)")
        #expect(abs(backward - pair.deltaE00) <= ColorTolerance.roundsToFourDecimals,
                "ΔE00 (swapped) \(backward), published \(pair.deltaE00)")
    }

    @Test func ciede2000OfIdenticalColoursIsZero() {
        #expect(ColorScience.ciede2000(SIMD3(52, 12, -30), SIMD3(52, 12, -30)) == 0)
    }

    @Test func ciede2000PropagatesNaN() {
        let good = SIMD3<Double>(50, 2.5, 0)
        for bad in [SIMD3(Double.nan, 0, 0), SIMD3(50, .nan, 0), SIMD3(50, 0, .nan)] {
            #expect(ColorScience.ciede2000(bad, good).isNaN)
            #expect(ColorScience.ciede2000(good, bad).isNaN)
        }
    }

    @Test func ciede2000OfInfiniteInputIsNotFinite() {
        let d = ColorScience.ciede2000(SIMD3(50, .infinity, 0), SIMD3(50, 2.5, 0))
        #expect(!d.isFinite)
    }

    @Test func labOfWhiteIsL100() {
        let lab = ColorScience.lab(fromXYZ: ColorScience.whiteD65XYZ, white: ColorScience.whiteD65XYZ)
        #expect(isClose(lab, SIMD3(100, 0, 0), 1e-12))
    }

    @Test func labOfMidGrey() {
        // CIE 15:2004: L* = 116 (Y/Yn)^(1/3) − 16; Y = 0.18 gives 49.4961.
        let white = ColorScience.whiteD50XYZ
        let lab = ColorScience.lab(fromXYZ: 0.18 * white, white: white)
        #expect(abs(lab.x - (116 * cbrt(0.18) - 16)) <= 1e-9)
        #expect(abs(lab.y) <= 1e-12 && abs(lab.z) <= 1e-12)
    }

    @Test func labMatchesIndependentFormulaIncludingTheLinearSegment() {
        var random = SplitMix64(seed: 7)
        let white = ColorScience.whiteD65XYZ
        for _ in 0..<200 {
            // Include values below (6/29)^3 ≈ 0.008856 where the formula is linear.
            let xyz = SIMD3(Double.random(in: 0...0.02, using: &random),
                            Double.random(in: 0...1.0, using: &random),
                            Double.random(in: 0...1.1, using: &random))
            let lab = ColorScience.lab(fromXYZ: xyz, white: white)
            #expect(isClose(lab, independentLab(xyz: xyz, white: white), 1e-9), "XYZ \(xyz)")
        }
    }

    @Test func labRoundTrip() {
        var random = SplitMix64(seed: 42)
        for white in [ColorScience.whiteD50XYZ, ColorScience.whiteD65XYZ] {
            for _ in 0..<200 {
                let xyz = SIMD3(Double.random(in: 0...1, using: &random),
                                Double.random(in: 0...1, using: &random),
                                Double.random(in: 0...1.1, using: &random))
                let back = ColorScience.xyz(fromLab: ColorScience.lab(fromXYZ: xyz, white: white), white: white)
                #expect(isClose(back, xyz, ColorTolerance.roundTrip), "XYZ \(xyz) came back as \(back)")
            }
        }
    }

    @Test func bradfordD65ToD50MatchesLindbloom() throws {
        // Bruce Lindbloom, "Chromatic Adaptation" (brucelindbloom.com), Bradford D65 → D50,
        // computed with his whites D65 = (0.95047, 1, 1.08883), D50 = (0.96422, 1, 0.82521).
        let lindbloomD65 = SIMD3(0.95047, 1.0, 1.08883), lindbloomD50 = SIMD3(0.96422, 1.0, 0.82521)
        let published = Matrix3([1.0478112, 0.0228866, -0.0501270,
                                 0.0295424, 0.9904844, -0.0170491,
                                 -0.0092345, 0.0150436, 0.7521316])
        let m = try ColorScience.bradfordMatrix(fromWhite: lindbloomD65, toWhite: lindbloomD50)
        #expect(maxDifference(m, published) <= ColorTolerance.fourDecimals, "\(m.rows)")
        let publishedInverse = Matrix3([0.9555766, -0.0230393, 0.0631636,
                                        -0.0282895, 1.0099416, 0.0210077,
                                        0.0122982, -0.0204830, 1.3299098])
        let inverse = try ColorScience.bradfordMatrix(fromWhite: lindbloomD50, toWhite: lindbloomD65)
        #expect(maxDifference(inverse, publishedInverse) <= ColorTolerance.fourDecimals, "\(inverse.rows)")
    }

    @Test func bradfordMatchesIndependentConeMatrixComputation() throws {
        let m = try ColorScience.bradfordMatrix(fromWhite: ColorScience.whiteD65XYZ, toWhite: ColorScience.whiteD50XYZ)
        let expected = independentBradford(from: ColorScience.whiteD65XYZ, to: ColorScience.whiteD50XYZ)
        #expect(maxDifference(m, expected) <= 1e-9)
    }

    @Test func bradfordMapsWhiteToWhiteAndInvertsExactly() throws {
        let d65 = ColorScience.whiteD65XYZ, d50 = ColorScience.whiteD50XYZ
        let forward = try ColorScience.bradfordMatrix(fromWhite: d65, toWhite: d50)
        let backward = try ColorScience.bradfordMatrix(fromWhite: d50, toWhite: d65)
        #expect(isClose(forward * d65, d50, 1e-12))
        #expect(isClose(backward * d50, d65, 1e-12))
        #expect(maxDifference(forward * backward, .identity) <= 1e-12)
        #expect(maxDifference(backward, forward.inverse!) <= 1e-12)
        #expect(maxDifference(ColorScience.bradfordD50ToD65, backward) == 0)
    }

    @Test func adaptAppliesTheBradfordMatrix() throws {
        let xyz = SIMD3(0.3, 0.25, 0.5)
        let adapted = try ColorScience.adapt(xyz: xyz, fromWhite: ColorScience.whiteD65XYZ, toWhite: ColorScience.whiteD50XYZ)
        let expected = independentBradford(from: ColorScience.whiteD65XYZ, to: ColorScience.whiteD50XYZ) * xyz
        #expect(isClose(adapted, expected, 1e-12))
        let same = try ColorScience.adapt(xyz: xyz, fromWhite: ColorScience.whiteD65XYZ, toWhite: ColorScience.whiteD65XYZ)
        #expect(isClose(same, xyz, 1e-15))
    }

    @Test func adaptPropagatesNaN() throws {
        let adapted = try ColorScience.adapt(xyz: SIMD3(.nan, 0.5, 0.5), fromWhite: ColorScience.whiteD65XYZ,
                                             toWhite: ColorScience.whiteD50XYZ)
        #expect(adapted.x.isNaN && adapted.y.isNaN && adapted.z.isNaN)
    }

    @Test func bradfordRejectsInvalidWhites() {
        for white in [SIMD3(Double.nan, 1, 1), SIMD3(1, 0, 1), SIMD3(0.9, 1, .infinity), SIMD3<Double>(0, 0, 0)] {
            #expect(throws: ColorManagementError.self) {
                try ColorScience.bradfordMatrix(fromWhite: white, toWhite: ColorScience.whiteD50XYZ)
            }
            #expect(throws: ColorManagementError.self) {
                try ColorScience.bradfordMatrix(fromWhite: ColorScience.whiteD50XYZ, toWhite: white)
            }
        }
    }

    @Test func labD65FromLabD50KeepsWhiteAndNeutrals() {
        for l in [100.0, 50, 20, 5] {
            #expect(isClose(ColorScience.labD65(fromLabD50: SIMD3(l, 0, 0)), SIMD3(l, 0, 0), 1e-9))
        }
    }

    @Test func labD65FromLabD50MatchesIndependentComputation() {
        // D50 Lab → XYZ (CIE 15:2004 inverse) → Bradford (M_BFD) → Lab D65, without Little CMS.
        let d50 = ColorScience.whiteD50XYZ, d65 = ColorScience.whiteD65XYZ
        let bradford = independentBradford(from: d50, to: d65)
        func xyz(fromLab lab: SIMD3<Double>, white: SIMD3<Double>) -> SIMD3<Double> {
            func fInverse(_ t: Double) -> Double { t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29) }
            let fy = (lab.x + 16) / 116
            return white * SIMD3(fInverse(fy + lab.y / 500), fInverse(fy), fInverse(fy - lab.z / 200))
        }
        let chartLabD50: [SIMD3<Double>] = [SIMD3(37.99, 13.56, 14.06), SIMD3(65.71, 18.13, 17.81),
                                             SIMD3(49.93, -4.88, -21.93), SIMD3(28.78, 14.18, -50.30),
                                             SIMD3(81.26, -0.64, -0.34), SIMD3(3, 1, -2)]
        for labD50 in chartLabD50 {
            let expected = independentLab(xyz: bradford * xyz(fromLab: labD50, white: d50), white: d65)
            #expect(isClose(ColorScience.labD65(fromLabD50: labD50), expected, 1e-9), "Lab D50 \(labD50)")
        }
    }

    @Test func whiteConstants() {
        #expect(ColorScience.whiteD50XYZ == SIMD3(0.9642, 1.0, 0.8249))
        #expect(isClose(ColorScience.whiteD65XYZ, SIMD3(0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290), 1e-15))
    }
}
