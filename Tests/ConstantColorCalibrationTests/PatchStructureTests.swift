import TestSupport
import ConstantColor
import ConstantColorCalibration
import Foundation
import Testing

/// Squares that do not hold one uniform surface: `PatchUniformity` (refused for the matrix) and
/// `PhotonTransfer.structured` (left out of the noise model).
@Suite("Chart squares with structure")
struct PatchStructureTests {
    static let truth = NoiseModel(readNoiseDN: 8, gainElectronsPerDN: 0.25, referenceISO: 100)
    static let black = 1024.0

    /// A 6 × 4 chart of `side`-pixel cells, levels from `base` DN up by 1.3× a cell, with
    /// Poisson–Gaussian noise at ISO 100 and a gentle
    /// fall-off across each cell; `step(x, y, cell)` multiplies the mean (1 = none). The squares are
    /// the cells' central `side − 4` pixels.
    static func chart(side: Int, seed: UInt64, base: Double = 40, step: (Int, Int, Int) -> Double) -> (PlanarImage, [PatchSquare]) {
        var rng = SplitMix(state: seed)
        var image = PlanarImage(width: 6 * side, height: 4 * side, channelCount: 3)
        var squares: [PatchSquare] = []
        for j in 0..<4 {
            for i in 0..<6 {
                let cell = j * 6 + i
                squares.append(PatchSquare(center: SIMD2(Double(i * side) + Double(side) / 2, Double(j * side) + Double(side) / 2),
                                           halfSize: Double(side) / 2 - 2))
                for c in 0..<3 {
                    let level = base * pow(1.3, Double(cell)) * [1.0, 1.3, 0.8][c]
                    for y in (j * side)..<((j + 1) * side) {
                        for x in (i * side)..<((i + 1) * side) {
                            let mean = level * (1 + 0.002 * Double(x - i * side)) * step(x - i * side, y - j * side, cell)
                            let electrons = rng.poisson(mean * truth.gainElectronsPerDN)
                            image[x, y, c] = Float((black + electrons / truth.gainElectronsPerDN + truth.readNoiseDN * rng.normal()).rounded())
                        }
                    }
                }
            }
        }
        return (image, squares)
    }

    static func signal(_ image: PlanarImage) -> PlanarImage {
        var s = image
        for i in s.samples.indices { s.samples[i] -= Float(black) }
        return s
    }

    @Test("uniformity: a noisy square with a fall-off passes; a square a third of which is another surface does not")
    func uniformity() throws {
        let (clean, squares) = Self.chart(side: 40, seed: 11) { _, _, _ in 1 }
        for (k, s) in squares.enumerated() {
            let d = try #require(PatchUniformity.departure(signal: Self.signal(clean), square: s))
            #expect(!d.isNonUniform, "patch \(k): \(d)")
        }
        // The chart description 12 px off: the squares' last 12 of 36 columns lie on the next surface
        // (a neighbouring patch at 0.6 of the level).
        let (shifted, _) = Self.chart(side: 40, seed: 12, base: 1000) { x, _, _ in x >= 26 ? 0.6 : 1 }
        var flagged = 0
        for s in squares {
            let d = try #require(PatchUniformity.departure(signal: Self.signal(shifted), square: s))
            if d.isNonUniform { flagged += 1 }
        }
        #expect(flagged == squares.count, "\(flagged) of \(squares.count) squares flagged")
        // On the darkest patches of the 40-DN chart, 6 columns on the next surface are within the
        // noise: not flagged, and not expected to be (a 2.7 DN departure against a 3.5 DN standard error).
        let (dim, _) = Self.chart(side: 40, seed: 13) { x, _, _ in x >= 32 ? 0.6 : 1 }
        #expect(!(try #require(PatchUniformity.departure(signal: Self.signal(dim), square: squares[0]))).isNonUniform)
        // Too small to tell.
        #expect(PatchUniformity.departure(signal: Self.signal(clean), square: PatchSquare(center: SIMD2(20, 20), halfSize: 2.5)) == nil)
    }

    @Test("photon transfer: squares crossed by a shadow's penumbra are left out; gain and correlation stay right")
    func structuredSquares() throws {
        // A penumbra (a 12-pixel ramp to 0.8 of the level) across four of the squares (not the
        // dim ones, where noise hides it: below 1000 DN a 20 % ramp is within 3 pixel σ).
        let shaded: Set<Int> = [14, 17, 20, 23]
        let (image, squares) = Self.chart(side: 40, seed: 21) { x, _, cell in
            guard shaded.contains(cell) else { return 1 }
            return 1 - 0.2 * min(1, max(0, Double(x - 14) / 12))
        }
        let points = squares.enumerated().flatMap { k, s in
            (0..<3).compactMap { PhotonTransfer.point(raw: image, channel: $0, square: s, blackLevel: Self.black, patch: k) }
        }
        let plain = try #require(PhotonTransfer.fit(points))
        let plainCorrelation = try #require(PhotonTransfer.correlation(points, fit: plain)).correlation
        let robust = try #require(PhotonTransfer.fitLeavingOutStructure(points))
        let robustCorrelation = try #require(PhotonTransfer.correlation(robust.points, fit: robust)).correlation
        let gain = { (f: PhotonTransfer.Fit) in f.noiseModel(iso: 100).gainElectronsPerDN }
        print(String(format: "penumbra across 4 of 24 squares: gain %.4f all points, %.4f without the structured ones (truth 0.25); area factor %.2f / %.2f",
                     gain(plain), gain(robust), plainCorrelation.areaFactor.y, robustCorrelation.areaFactor.y))
        #expect(Set(robust.excludedPoints.map(\.patch)) == shaded)
        #expect(robust.excludedPoints.count == 3 * shaded.count)
        #expect(abs(gain(robust) / 0.25 - 1) < 0.05)
        #expect(robustCorrelation.areaFactor.max() < 1.3)
        // Without leaving them out, the answer is wrong (so the check above can fail).
        #expect(plainCorrelation.areaFactor.max() > 2)
    }

    @Test("photon transfer: a clean chart leaves nothing out")
    func cleanChart() throws {
        for seed in [31, 32, 33] as [UInt64] {
            let (image, squares) = Self.chart(side: 40, seed: seed) { _, _, _ in 1 }
            let points = squares.enumerated().flatMap { k, s in
                (0..<3).compactMap { PhotonTransfer.point(raw: image, channel: $0, square: s, blackLevel: Self.black, patch: k) }
            }
            #expect(PhotonTransfer.structured(points).isEmpty, "seed \(seed)")
        }
    }
}
