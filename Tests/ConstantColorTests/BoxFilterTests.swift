import Foundation
import TestSupport
import Testing
@testable import ConstantColor

@Suite("Box filter")
struct BoxFilterTests {
    /// The mean over the clipped window, summed directly in Double.
    static func bruteForce(_ p: [Float], _ w: Int, _ h: Int, _ r: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w {
            var s = 0.0, n = 0.0
            for yy in max(0, y - r)...min(h - 1, y + r) { for xx in max(0, x - r)...min(w - 1, x + r) { s += Double(p[yy * w + xx]); n += 1 } }
            out[y * w + x] = Float(s / n)
        } }
        return out
    }

    @Test("matches the direct mean over the clipped window, borders included, also in place", arguments: [0, 1, 3, 5, 6, 9, 12])
    func matchesBruteForce(radius: Int) {
        var rng = SplitMix(seed: UInt64(radius) + 1)
        // (41×70 and 9×130 split into several row bands on a multi-core machine: in place, a band's
        // neighbours overwrite the rows beyond its ends; `inPlaceWithBands` forces the splits. 23×400:
        // radii above 3 take block sums over many blocks; 5×60 only the scalar tails.)
        for (w, h) in [(37, 23), (5, 4), (1, 9), (41, 70), (9, 130), (23, 400), (5, 60)] {
            let p = (0..<(w * h)).map { _ in Float(rng.uniform() * 1000 - 200) }
            let expected = Self.bruteForce(p, w, h, radius)
            let got = BoxFilter.mean(p, width: w, height: h, radius: radius)
            var inPlace = p
            inPlace.withUnsafeMutableBufferPointer { b in
                BoxFilter.mean(UnsafeBufferPointer(b), width: w, height: h, radius: radius, into: b)
            }
            for i in expected.indices {
                #expect(abs(got[i] - expected[i]) <= 1e-4 * max(1, abs(expected[i])), "\(w)x\(h) r\(radius) at \(i)")
                #expect(inPlace[i] == got[i])
            }
        }
    }

    @Test("below a bright edge a dark window's mean is as exact as a direct sum's (no rounding of rows outside the window), and the result does not depend on the row bands", arguments: [3, 6, 12])
    func exactBelowAnEdgeWhateverTheBands(radius: Int) {
        var rng = SplitMix(seed: 77)
        // 60 rows at 10 000 above 140 rows of 1 ± 0.1: a 10⁴:1 edge.
        let w = 21, h = 200, edge = 60
        let p = (0..<(w * h)).map { i in i / w < edge ? Float(10_000) : Float(1 + 0.1 * (rng.uniform() * 2 - 1)) }
        let expected = Self.bruteForce(p, w, h, radius)
        func filtered(_ bands: [Range<Int>]) -> [Float] {
            var out = [Float](repeating: .nan, count: w * h)
            p.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { BoxFilter.mean(source, width: w, height: h, radius: radius, into: $0, bands: bands) }
            }
            return out
        }
        let one = filtered([0..<h]), three = filtered([0..<7, 7..<edge + 3, (edge + 3)..<h])
        #expect(one == three, "the bands changed the result")
        var worst: Float = 0
        for y in (edge + radius)..<h {
            for x in 0..<w { let i = y * w + x; worst = max(worst, abs(one[i] - expected[i]) / expected[i]) }
        }
        // A direct sum of (2r+1)² values near 1 rounds to a few 1e-7; a running sum (add the row that
        // enters, subtract the one that leaves) kept 10 000's rounding, about 1e-3 of these means.
        #expect(worst < 1e-5, "relative error below the edge \(worst)")
    }

    @Test("a constant plane stays uniform where the windows are whole, whichever lane or block boundary a sample falls on (registration's featureless frames rely on it)", arguments: [1, 2, 3, 4, 6, 12])
    func constantStaysConstant(radius: Int) {
        let w = 70, h = 90, v: Float = 8.787_456
        let out = BoxFilter.mean([Float](repeating: v, count: w * h), width: w, height: h, radius: radius)
        var values = Set<Float>()
        for y in radius..<(h - radius) { for x in radius..<(w - radius) { values.insert(out[y * w + x]) } }
        #expect(values.count == 1, "\(values.count) distinct values: \(values.sorted().prefix(4))")
        // And that value is the plane's (a sum not divided by the window's size would be uniform too).
        #expect(values.allSatisfy { abs($0 - v) <= v * 1e-6 }, "\(values.sorted().prefix(4)) for \(v)")
    }

    @Test("in place over forced row bands (one shorter than the radius, splits inside blocks), and values of exponents 10⁻⁸ to 10⁸ (where the Double sums round): the same as out of place over one band, and near the direct mean", arguments: [2, 3, 6, 12])
    func inPlaceWithBands(radius: Int) {
        var rng = SplitMix(seed: 91 + UInt64(radius))
        let w = 19, h = 150
        let p = (0..<(w * h)).map { _ in Float(pow(10, rng.uniform() * 16 - 8) * (rng.uniform() < 0.5 ? -1 : 1)) }
        let expected = Self.bruteForce(p, w, h, radius)
        var reference = [Float](repeating: .nan, count: w * h)
        p.withUnsafeBufferPointer { source in
            reference.withUnsafeMutableBufferPointer { BoxFilter.mean(source, width: w, height: h, radius: radius, into: $0, bands: [0..<h]) }
        }
        for bands in [[0..<1, 1..<40, 40..<41, 41..<97, 97..<h], [0..<13, 13..<26, 26..<h]] {
            var inPlace = p
            inPlace.withUnsafeMutableBufferPointer { b in
                BoxFilter.mean(UnsafeBufferPointer(b), width: w, height: h, radius: radius, into: b, bands: bands)
            }
            #expect(inPlace == reference, "bands \(bands)")
        }
        // Sums of terms up to 10⁸ and of either sign: the error is relative to the largest term.
        for y in 0..<h {
            for x in 0..<w {
                var largest: Float = 0
                for yy in max(0, y - radius)...min(h - 1, y + radius) {
                    for xx in max(0, x - radius)...min(w - 1, x + radius) { largest = max(largest, abs(p[yy * w + xx])) }
                }
                let i = y * w + x
                #expect(abs(reference[i] - expected[i]) <= 1e-5 * largest, "r\(radius) at \(x),\(y)")
            }
        }
    }
}
