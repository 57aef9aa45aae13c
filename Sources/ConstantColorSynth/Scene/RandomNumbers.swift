import Foundation

/// SplitMix64 (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number generators", OOPSLA):
/// expands a seed into independent xoshiro states, draws the synthetic effects' parameters, and is
/// the test targets' generator (`TestSupport`).
public struct SplitMix64: Sendable, RandomNumberGenerator {
    /// The state.
    public var state: UInt64
    /// Creates the generator.
    public init(seed: UInt64) { state = seed }
    /// The same, with the state named as such.
    public init(state: UInt64) { self.state = state }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// xoshiro256** (Blackman & Vigna 2018, "Scrambled linear pseudorandom number generators"), the
/// renderer's deterministic generator. One stream per (seed, frame, row) so that the noise of a row
/// does not depend on how rows are split over cores: same seed, same bytes on any machine.
public struct Xoshiro256StarStar: Sendable {
    var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// A stream for `seed` and a stream number (e.g. frame × 2³² + row), seeded through SplitMix64.
    public init(seed: UInt64, stream: UInt64) {
        var sm = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = sm.next(); s1 = sm.next(); s2 = sm.next(); s3 = sm.next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A standard normal deviate by the Box–Muller transform (Box & Muller 1958), one of the pair.
    public mutating func normal() -> Double {
        let u1 = 1 - uniform()            // (0, 1]
        let u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// A Poisson deviate of mean `mu` ≥ 0: inversion by sequential search for mu < 10, otherwise
    /// Hörmann's PTRS transformed rejection (Hörmann 1993, "The transformed rejection method for
    /// generating Poisson random variables", Insurance: Mathematics and Economics 12, 39–45).
    public mutating func poisson(_ mu: Double) -> Double {
        if mu <= 0 { return 0 }
        if mu < 10 {
            var k = 0.0, p = exp(-mu), s = p
            let u = uniform()
            while u > s && k < 1000 { k += 1; p *= mu / k; s += p }
            return k
        }
        let slam = mu.squareRoot()
        let b = 0.931 + 2.53 * slam
        let a = -0.059 + 0.02483 * b
        let vr = 0.9277 - 3.6224 / (b - 2)
        while true {
            let u = uniform() - 0.5
            let v = uniform()
            let us = 0.5 - abs(u)
            let k = ((2 * a / us + b) * u + mu + 0.43).rounded(.down)
            if us >= 0.07 && v <= vr { return k }      // fast acceptance (about 86 % of draws)
            if k < 0 || (us < 0.013 && v > us) { continue }
            let invalpha = 1.1239 + 1.1328 / (b - 3.4)
            if log(v) + log(invalpha) - log(a / (us * us) + b) <= -mu + k * log(mu) - lgamma(k + 1) {
                return k
            }
        }
    }
}
