import Foundation
import TestSupport
import Testing
@testable import ConstantColor

/// The pieces of stage 4c (`FrameDisagreement`) on exact data: window sums, regions and their
/// groups, the blur kernel, and the sweep that must cover both crescents of a moved disc.
@Suite("Frame disagreement: window sums, regions, sweep")
struct FrameDisagreementTests {
    @Test func integralImageSumsEveryWindow() {
        let w = 13, h = 9
        var rng = SplitMix64(seed: 44)
        let plane = (0..<(w * h)).map { _ in Double(rng.next() % 1000) / 7 - 50 }
        let sums = IntegralImage(plane, width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                for (radius, extra) in [(0, (0, 0)), (2, (0, 0)), (2, (1, 3))] {
                    let box = CellWindow(x: x, y: y, radius: radius, width: w, height: h, extra: extra)
                    var direct = 0.0, count = 0
                    for yy in max(0, y - radius - extra.1)...min(h - 1, y + radius + extra.1) {
                        for xx in max(0, x - radius - extra.0)...min(w - 1, x + radius + extra.0) {
                            direct += plane[yy * w + xx]; count += 1
                        }
                    }
                    #expect(abs(sums.sum(box) - direct) < 1e-9)
                    #expect(box.count == count)
                }
            }
        }
    }

    @Test func regionsAreEightConnectedAndGroupedByDistance() {
        // Two diagonal neighbours (one region), a cell 3 columns away (near), one far away.
        let w = 30, h = 10
        var set = [Bool](repeating: false, count: w * h)
        for (x, y) in [(2, 2), (3, 3), (6, 3), (27, 8)] { set[y * w + x] = true }
        let regions = FrameDisagreement.connectedRegions(set, width: w, height: h).sorted { $0.count > $1.count }
        #expect(regions.map(\.count) == [2, 1, 1])
        let groups = FrameDisagreement.nearbyGroups(regions, width: w, distance: 4)
        let near = regions.firstIndex { $0 == [3 * w + 6] }!
        #expect(groups.count == 2)
        #expect(groups.contains { Set($0) == [0, near] })
        #expect(FrameDisagreement.nearbyGroups(regions, width: w, distance: 2).count == 3)
    }

    @Test func gaussianKernelHasTheVarianceAskedFor() {
        #expect(FrameDisagreement.gaussianKernel(variance: 0.001) == [1])
        for variance in [0.5, 2.0, 6.0] {
            let k = FrameDisagreement.gaussianKernel(variance: variance)
            let r = k.count / 2
            #expect(abs(k.reduce(0, +) - 1) < 1e-12)
            let v = k.enumerated().reduce(0.0) { $0 + $1.element * Double(($1.offset - r) * ($1.offset - r)) }
            #expect(abs(v / variance - 1) < 0.03, "variance \(v) for \(variance)")
        }
    }

    /// A disc of radius 9 cells seen at `a` in the ambient frame and at `a + v` in the flash frame:
    /// sweeping its ambient outline along v covers every cell of both crescents (in one disc and not
    /// the other); without the sweep (v = 0) the crescents' middles stay uncovered.
    @Test func sweepCoversBothCrescents() {
        let w = 60, h = 50, radius = 9.0
        let a = SIMD2<Double>(25, 24)
        for v in [SIMD2<Int>(7, 3), SIMD2(-4, 8), SIMD2(12, 0)] {
            let f = a + SIMD2(Double(v.x), Double(v.y))
            var outline: [Int] = []
            var crescents: [Int] = []
            for y in 0..<h {
                for x in 0..<w {
                    let p = SIMD2(Double(x), Double(y))
                    let da = ((p - a) * (p - a)).sum().squareRoot(), df = ((p - f) * (p - f)).sum().squareRoot()
                    if abs(da - radius) <= 0.75 { outline.append(y * w + x) }
                    if (da < radius - 1) != (df < radius - 1) && abs(da - radius) > 1 && abs(df - radius) > 1 {
                        crescents.append(y * w + x)
                    }
                }
            }
            var swept = [Bool](repeating: false, count: w * h)
            FrameDisagreement.sweep(outline, along: v, radius: 1, width: w, height: h, into: &swept)
            #expect(crescents.count > 40)
            #expect(crescents.allSatisfy { swept[$0] }, "v = \(v)")
            // Nothing beyond the flash frame's disc along v, nor behind the ambient frame's.
            let unit = SIMD2(Double(v.x), Double(v.y)) / (Double(v.x * v.x + v.y * v.y)).squareRoot()
            for p in [f + (radius + 3) * unit, a - (radius + 3) * unit] {
                let x = Int(p.x.rounded()), y = Int(p.y.rounded())
                #expect(!swept[y * w + x], "v = \(v): (\(x), \(y)) swept")
            }
            // Most of the outline, moved by v, lands on the flash frame's outline (widened by a cell).
            var flashOutline = [Bool](repeating: false, count: w * h)
            for y in 0..<h { for x in 0..<w {
                let p = SIMD2(Double(x), Double(y))
                if abs(((p - f) * (p - f)).sum().squareRoot() - radius) <= 1.75 { flashOutline[y * w + x] = true }
            } }
            #expect(FrameDisagreement.matchedShare(outline: outline, shiftedBy: v, onto: flashOutline, width: w, height: h) > 0.99)
            #expect(FrameDisagreement.matchedShare(outline: outline, shiftedBy: .zero, onto: flashOutline, width: w, height: h) < 0.5)
            var still = [Bool](repeating: false, count: w * h)
            FrameDisagreement.sweep(outline, along: .zero, radius: 1, width: w, height: h, into: &still)
            #expect(!crescents.allSatisfy { still[$0] })
        }
    }
}
