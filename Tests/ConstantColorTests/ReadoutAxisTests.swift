import Foundation
import Testing
@testable import ConstantColor

/// The pieces that let stage 4a follow a rolling shutter that read the stored frame out column by
/// column (`ReadoutAxis`): the reduced pair turned about its diagonal, and the ambient subtracted per
/// column.
@Suite("Readout along columns (frames stored turned)")
struct ReadoutAxisTests {
    /// A 64 × 40 pair whose flash samples all differ (the ambient ones vary too), reduced by `ReducedFramePair`.
    static func pair() -> ReducedFramePair {
        let w = 64, h = 40, n = w * h
        var f = PlanarImage(width: w, height: h, channelCount: 3), a = f
        for c in 0..<3 {
            for i in 0..<n {
                f.samples[c * n + i] = Float(1000 + 7 * i + 300 * c)
                a.samples[c * n + i] = Float(200 + (i * 13) % 97 + 50 * c)
            }
        }
        let clean = [UInt8](repeating: 0, count: n)
        let exposure = ExposureSettings(exposureTimeSeconds: 1, fNumber: 1, isoSpeed: 100)
        let noise = FrameNoise(varianceOffset: 4, varianceSlope: 0.5)
        var flags = clean
        flags[5 * w + 9] = 1  // one flagged pixel: its block is invalid
        let flash = LinearFrame(image: f, clipped: flags, noise: noise, exposure: exposure)
        let ambient = LinearFrame(image: a, clipped: clean, noise: noise, exposure: exposure)
        let d = DarkRoomEstimate(flash: flash, ambient: ambient, registration: NoiseReductionTests.identity)
        return ReducedFramePair(flash: flash, darkRoom: d, interpolationVariance: SIMD2(0.1, 0.2))
    }

    @Test("the turned pair holds sample (x, y) at (y, x) in every plane; sizes, frame sizes and the resampling's blur per axis are exchanged; turned twice it is the pair")
    func transposedPair() {
        let p = Self.pair(), t = p.transposed(), back = t.transposed()
        #expect(t.width == p.height && t.height == p.width && t.block == p.block)
        #expect(t.fullWidth == p.fullHeight && t.fullHeight == p.fullWidth)
        #expect(t.interpolationVariance == SIMD2(0.2, 0.1))
        for y in 0..<p.height {
            for x in 0..<p.width {
                let i = y * p.width + x, j = x * p.height + y
                #expect(t.flash[j] == p.flash[i] && t.ambient[j] == p.ambient[i])
                #expect(t.flashVariance[j] == p.flashVariance[i] && t.ambientVariance[j] == p.ambientVariance[i])
                #expect(t.valid[j] == p.valid[i])
                for c in 0..<3 {
                    #expect(t.flashChannels[c][j] == p.flashChannels[c][i] && t.ambientChannels[c][j] == p.ambientChannels[c][i])
                    #expect(t.flashChannelVariance[c][j] == p.flashChannelVariance[c][i])
                    #expect(t.ambientChannelVariance[c][j] == p.ambientChannelVariance[c][i])
                }
            }
        }
        #expect(p.valid.contains(false))
        // Row k of the turned pair lies where column k of the pair does, as a fraction of the frame's width.
        for k in 0..<p.width {
            #expect(t.frameFraction(row: k) == (Double(k * p.block) + Double(p.block) / 2) / Double(p.fullWidth))
        }
        #expect(back.flash == p.flash && back.ambientChannels == p.ambientChannels && back.valid == p.valid)
        #expect(back.width == p.width && back.fullHeight == p.fullHeight && back.interpolationVariance == p.interpolationVariance)
    }

    @Test("the ambient subtracted per column: D' = r(x)·k_c·D + (1 − r(x)·k_c)·F at every pixel; the same as per row on the turned frame")
    func subtractAmbientPerColumn() {
        let w = 37, h = 23, n = w * h
        var f = PlanarImage(width: w, height: h, channelCount: 3), a = f
        for i in 0..<(3 * n) { f.samples[i] = Float(500 + (i * 31) % 211); a.samples[i] = Float(100 + (i * 17) % 53) }
        let clean = [UInt8](repeating: 0, count: n)
        let exposure = ExposureSettings(exposureTimeSeconds: 1, fNumber: 1, isoSpeed: 100)
        let noise = FrameNoise(varianceOffset: 4, varianceSlope: 0.5)
        let flash = LinearFrame(image: f, clipped: clean, noise: noise, exposure: exposure)
        let ambient = LinearFrame(image: a, clipped: clean, noise: noise, exposure: exposure)
        let ratios = (0..<w).map { Float(1 + 0.05 * sin(Double($0) * 0.7)) }
        let k = SIMD3<Float>(1.02, 1, 0.97)
        var d = DarkRoomEstimate(flash: flash, ambient: ambient, registration: NoiseReductionTests.identity)
        let before = d.difference
        d.subtractAmbient(lineRatios: ratios, readout: .columns, channelScale: k, flash: flash)
        for c in 0..<3 {
            for y in 0..<h {
                for x in 0..<w {
                    let i = c * n + y * w + x, r = ratios[x] * k[c]
                    #expect(d.difference.samples[i] == r * before.samples[i] + (1 - r) * f.samples[i])
                }
            }
        }
        // The ambient noise model follows the lines' mean ratio (times the largest k), as per row.
        let mean = ratios.reduce(0) { $0 + Double($1) } / Double(w) * Double(k.max())
        #expect(abs(Double(d.ambientNoise.varianceOffset) - 4 * mean * mean) < 1e-5)
        #expect(abs(Double(d.ambientNoise.varianceSlope) - 0.5 * mean) < 1e-6)
    }
}
