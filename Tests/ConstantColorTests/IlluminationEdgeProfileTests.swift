import Foundation
import Testing
import TestSupport
@testable import ConstantColor

/// One profile of `IlluminationEdgeRatio` (stage 4a's r₀ from the ambient light's edges), against a
/// Monte Carlo of its construction: a penumbra in A, `F′ = r₀·A + a line` plus noise in both frames,
/// both detrended. Checks the errors-in-variables coefficient, the misfit's χ² law (the 99 % limit
/// rejects about 1 % of clean profiles) and that a profile which also crosses a reflectance edge —
/// whose coefficient lies between r₀ and Q — is refused.
@Suite("Illumination edge profiles: coefficient, misfit χ² and the refusal of mixed edges")
struct IlluminationEdgeProfileTests {
    static let n = 11, reach = 5

    /// A smooth penumbra along the profile, 0 … 1 (about 4 pixels wide).
    static func penumbra(_ s: Int) -> Double { 0.5 * (1 + tanh(Double(s) / 1.5)) }

    struct Draws {
        var rng = SplitMix64(seed: 77)
        mutating func uniform() -> Double { (Double(rng.next() >> 11) + 0.5) * 0x1.0p-53 }
        mutating func normal() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform()) }
    }

    /// Channel fits of one profile: A = level + step·(penumbra + reflectance·ρ-step at `border`),
    /// F′ = r·A_illumination-part + Q·(reflectance part) + a line, with noise of variance `va`, `vf`.
    static func fit(_ draws: inout Draws, r: Double, step: Double, va: Double, vf: Double,
                    reflectance: Double = 0, q: Double = 0, border: Int = 4) -> (g: Double, sigma: Double, misfit: Double)? {
        let level = 10 * step
        var a = [Double](repeating: 0, count: n), f = a
        for i in 0..<n {
            let s = i - reach
            let illumination = step * penumbra(s), material = s >= border ? reflectance * step : 0
            a[i] = level + illumination + material + va.squareRoot() * draws.normal()
            // The flash's own smooth fall-off across the profile: a line the detrending removes.
            f[i] = r * (level + illumination) + q * material + 40 * step + 0.3 * step * Double(s) + vf.squareRoot() * draws.normal()
        }
        IlluminationEdgeRatio.detrended(&a); IlluminationEdgeRatio.detrended(&f)
        return IlluminationEdgeRatio.channelFit(flash: f, ambient: a, flashVariance: vf, ambientVariance: va, level: level).map { ($0.g, $0.sigma, $0.misfit) }
    }

    @Test func cleanProfilesGiveRWithinTheirErrorAndFailTheMisfitLimitOnePercentOfTheTime() {
        var draws = Draws()
        // An edge whose detrended bend holds about 1800 times A's noise variance (the synthetic chart's
        // illumination-edge profiles at 50 lux hold 1000–3000 and more), F′'s noise 35 times A's (as there).
        let r = 1.0, va = 1.0, vf = 35.0, step = 100.0
        let profiles = 20_000
        var sum = 0.0, z2 = 0.0, refused = 0, misfits: [Double] = []
        for _ in 0..<profiles {
            var channels: [(g: Double, sigma: Double, misfit: Double)] = []
            for _ in 0..<3 { if let c = Self.fit(&draws, r: r, step: step, va: va, vf: vf) { channels.append(c) } }
            #expect(channels.count == 3)
            let misfit = channels.reduce(0) { $0 + $1.misfit }
            misfits.append(misfit)
            if misfit >= IlluminationEdgeRatio.misfitLimit(channels: 3) { refused += 1 }
            for c in channels { sum += c.g; z2 += (c.g - r) * (c.g - r) / (c.sigma * c.sigma) }
        }
        let mean = sum / Double(3 * profiles), meanZ2 = z2 / Double(3 * profiles)
        let refusedShare = Double(refused) / Double(profiles)
        misfits.sort()
        let median = misfits[profiles / 2]
        print(String(format: "clean profiles: mean g − r₀ %+.5f, mean z² %.3f, refused %.2f %%, median misfit %.2f (χ²₂₄ median %.2f)",
                     mean - r, meanZ2, 100 * refusedShare, median, IlluminationEdgeRatio.misfitMedian(channels: 3)))
        // σ of one channel's g is 0.14 here, of the mean over 60 000 about 6e-4; the second-order
        // bias of the ratio, 2σ²_A/S, is 1e-3. 3e-3 would be a biased estimator.
        #expect(abs(mean - r) < 3e-3)
        #expect(abs(meanZ2 - 1) < 0.05)
        // The binomial standard error of the share is 0.07 %; the detrended noise is exactly χ² with 8
        // degrees of freedom per channel only for F′'s part, so a little room either side.
        #expect(refusedShare > 0.006 && refusedShare < 0.016, "\(refusedShare)")
        #expect(abs(median / IlluminationEdgeRatio.misfitMedian(channels: 3) - 1) < 0.06)
    }

    @Test func aProfileThatAlsoCrossesAReflectanceEdgeReadsHighAndIsRefused() {
        var draws = Draws()
        // The penumbra and, 4 pixels from its centre, a patch border that raises the reflectance by
        // a fifth of the penumbra's step; the flash-to-ambient quotient Q across it is 8 (50 lux).
        let r = 1.0, va = 1.0, vf = 35.0, step = 100.0, q = 8.0
        let profiles = 2_000
        var refused = 0, sum = 0.0
        for _ in 0..<profiles {
            var channels: [(g: Double, sigma: Double, misfit: Double)] = []
            for _ in 0..<3 {
                if let c = Self.fit(&draws, r: r, step: step, va: va, vf: vf, reflectance: 0.2, q: q) { channels.append(c) }
            }
            let misfit = channels.reduce(0) { $0 + $1.misfit }
            if misfit >= IlluminationEdgeRatio.misfitLimit(channels: channels.count) { refused += 1 }
            sum += channels.reduce(0) { $0 + $1.g } / Double(channels.count)
        }
        let mean = sum / Double(profiles), refusedShare = Double(refused) / Double(profiles)
        print(String(format: "penumbra with a reflectance edge: mean g %.3f (r₀ 1, Q %.0f), refused %.1f %%", mean, q, 100 * refusedShare))
        #expect(mean > r + 0.1)
        #expect(refusedShare > 0.99, "\(refusedShare)")
    }

    /// Which three-channel profiles count as illumination edges (`ThreeChannelProfile.readsAsIlluminationEdge`).
    /// A shadow edge gives every channel a g below its own Q, also where the ambient light changed
    /// colour between the frames (each channel its own ratio) and where the frames were developed
    /// with other channel multipliers (g and Q scaled alike). A reflectance edge between two
    /// materials of one green gives green a weak, low g while red's and blue's g are their Q (the
    /// probe's profiles: red 1.99 against Q 2.12, blue 5.55 against Q 4.83, green 0.65 ± 0.13
    /// against 3.04): green's test alone passed it. One channel near its Q is not enough: under a
    /// blue LED's light a shadow edge reads blue at 0.75 of its Q.
    @Test("three-channel profiles: shadow edges count, with the ambient light's colour changed, the channels scaled or one channel the ambient light outweighs the flash in; a reflectance edge green barely sees does not")
    func illuminationEdgesByEveryChannel() {
        typealias P = IlluminationEdgeRatio.ThreeChannelProfile
        let ratios = IlluminationEdgeRatio.plausibleRatios
        func profile(g: SIMD3<Double>, sigma: SIMD3<Double>, channelQ: SIMD3<Double>) -> P {
            // q: the channels' summed quotient, here their mean (equal levels).
            P(g: g, sigma: sigma, q: (channelQ.x + channelQ.y + channelQ.z) / 3, channelQ: channelQ, misfit: 1, bend: SIMD3(repeating: 1000))
        }
        let shadow = profile(g: SIMD3(1, 1, 1), sigma: SIMD3(repeating: 0.02), channelQ: SIMD3(2.5, 3, 6))
        #expect(shadow.readsAsIlluminationEdge(within: ratios))
        // Each channel its own ratio (a lamp switched between the frames), each below its Q.
        let changed = profile(g: SIMD3(1.8, 1.2, 0.6), sigma: SIMD3(repeating: 0.02), channelQ: SIMD3(3.3, 3.2, 5.6))
        #expect(changed.readsAsIlluminationEdge(within: ratios))
        // A 460 nm LED's shadow edge: blue at 0.75 of its Q (1.32), red far below its own.
        let blueLED = profile(g: SIMD3(0.99, 0.98, 1.0), sigma: SIMD3(0.11, 0.03, 0.015), channelQ: SIMD3(5.18, 2.21, 1.32))
        #expect(blueLED.readsAsReflectanceEdge(channel: 2) && !blueLED.readsAsReflectanceEdge(channel: 0))
        #expect(blueLED.readsAsIlluminationEdge(within: ratios))
        // The flash frame developed with other multipliers: g and Q scale alike, nothing changes
        // (blue ×2 on the blue LED's edge is a review's case that a test of green's g against Q_c missed).
        for k in [SIMD3<Double>(2, 1, 1.5), SIMD3(1, 1, 2), SIMD3(0.5, 1, 0.6)] {
            for p in [shadow, blueLED] {
                let scaled = profile(g: p.g * k, sigma: p.sigma * k, channelQ: p.channelQ * k)
                #expect(scaled.readsAsReflectanceEdge(channel: 0) == p.readsAsReflectanceEdge(channel: 0)
                        && scaled.readsAsReflectanceEdge(channel: 2) == p.readsAsReflectanceEdge(channel: 2), "\(k)")
            }
        }
        let reflectance = profile(g: SIMD3(1.99, 0.65, 5.55), sigma: SIMD3(0.015, 0.13, 0.13), channelQ: SIMD3(2.12, 3.04, 4.83))
        #expect(IlluminationEdgeRatio.readsAsIlluminationEdge(g: reflectance.g.y, sigma: reflectance.sigma.y, q: reflectance.q))
        #expect(!reflectance.readsAsIlluminationEdge(within: ratios))
        // No ambient light in a channel at the centre (its Q not a positive number): that channel
        // does not read as a reflectance edge.
        for q in [Double.nan, -4, 0, .infinity] {
            #expect(!profile(g: SIMD3(1, 1, 1), sigma: SIMD3(repeating: 0.02), channelQ: SIMD3(q, 3, 6)).readsAsReflectanceEdge(channel: 0))
            // (Green's test against the summed quotient as for `reflectance` above.)
            #expect(P(g: reflectance.g, sigma: reflectance.sigma, q: reflectance.q, channelQ: SIMD3(q, 3.04, 4.83), misfit: 1,
                      bend: SIMD3(repeating: 1000)).readsAsIlluminationEdge(within: ratios))
        }
    }

    /// A colour change is read where most edges disagree and the edges read the ambient light apart:
    /// red's or blue's ratio over green's, or green's over the one subtracted (the figures of a
    /// probe's mirror of stage 4a). A 25 px diagonal hand shake left 45 % agreeing with red and blue
    /// at 0.998 and 0.999 of green (within 0.1 standard errors): scatter, not a colour. The blue LED
    /// spot switched off between the frames: 39 %, blue 2.88 × green (37 standard errors). A review's
    /// Sigma pair whose every channel read 0.6 of the subtracted ratio: green apart. A location not
    /// measured cannot say the channels agree.
    @Test("a colour change needs the edges' ratios apart: scatter without a common shift is not one")
    func colourChangeNeedsChannelsApart() {
        typealias A = IlluminationEdgeRatio.ChannelAgreement
        let shaken = A(profileCount: 541, agreeingFraction: 0.451, green: 1, redOverGreen: 0.998, blueOverGreen: 0.999,
                       greenLogError: 0.01, redOverGreenLogError: 0.011, blueOverGreenLogError: 0.015)
        let spotOff = A(profileCount: 481, agreeingFraction: 0.393, green: 1, redOverGreen: 0.754, blueOverGreen: 2.878,
                        greenLogError: 0.02, redOverGreenLogError: 0.020, blueOverGreenLogError: 0.029)
        var unmeasured = shaken
        unmeasured.blueOverGreen = nil; unmeasured.blueOverGreenLogError = nil
        var levelApart = shaken
        levelApart.agreeingFraction = 0.086; levelApart.green = 0.6
        #expect(!shaken.readsApart(from: 1) && spotOff.readsApart(from: 1) && unmeasured.readsApart(from: 1))
        #expect(levelApart.readsApart(from: 1) && !levelApart.readsApart(from: 0.61))
        #expect(AmbientRatioEstimate.ambientColourChange(shaken, ratio: 1) == nil)
        #expect(AmbientRatioEstimate.ambientColourChange(spotOff, ratio: 1) != nil)
        #expect(AmbientRatioEstimate.ambientColourChange(levelApart, ratio: 1) != nil)
        // The same kind of shift measured with errors ten times as wide: not apart.
        var wide = spotOff
        wide.redOverGreen = 1.05; wide.blueOverGreen = 1.08; wide.redOverGreenLogError = 0.1; wide.blueOverGreenLogError = 0.1
        #expect(!wide.readsApart(from: 1))
        // Most agreeing: no change, whatever the locations.
        var agreeing = spotOff
        agreeing.agreeingFraction = 0.6
        #expect(AmbientRatioEstimate.ambientColourChange(agreeing, ratio: 1) == nil)
    }

    /// The locations' errors carry the profiles' misfit as r₀'s does (Birge's ratio, `misfitInflation`).
    @Test("channel agreement: the locations' errors grow with the profiles' misfit")
    func channelAgreementErrorsCarryTheMisfit() {
        typealias P = IlluminationEdgeRatio.ThreeChannelProfile
        // 60 shadow edges, alternately a little apart in blue (scatter within the noise).
        let profiles = (0..<60).map { i in
            P(g: SIMD3(1, 1, i % 2 == 0 ? 1.01 : 0.99), sigma: SIMD3(repeating: 0.02), q: 3, channelQ: SIMD3(2.5, 3, 4),
              misfit: 1, bend: SIMD3(repeating: 1000))
        }
        let fit = IlluminationEdgeRatio.channelAgreement(profiles, misfitScale: 1)!
        let misfit = IlluminationEdgeRatio.channelAgreement(profiles, misfitScale: 100)!
        let e1 = fit.blueOverGreenLogError!, e100 = misfit.blueOverGreenLogError!
        #expect(e1 > 0 && abs(e100 / e1 - 10) < 1e-9, "\(e1) \(e100)")
        #expect(abs(misfit.greenLogError! / fit.greenLogError! - 10) < 1e-9)
    }
}
