import ConstantColor
import ConstantColorIO
import Foundation

/// Shared test data and a small deterministic generator.
enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let darkroom = root + "/fixtures/colorchecker/darkroom/darkroom.tif"
    static let darkroomTruth = root + "/fixtures/colorchecker/darkroom/truth.json"
    static let dark = root + "/fixtures/colorchecker/darkroom/dark.tif"
}

/// SplitMix64 (Steele, Lea & Flood 2014) with normal (Box–Muller) and Poisson draws.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / Double(1 << 53) }
    mutating func normal() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform()) }
    /// Poisson: Knuth's product method below 30, else the normal approximation.
    mutating func poisson(_ mean: Double) -> Double {
        if mean < 30 {
            let l = exp(-mean)
            var k = 0.0, p = uniform()
            while p > l { k += 1; p *= uniform() }
            return k
        }
        return max(0, (mean + mean.squareRoot() * normal()).rounded())
    }
}
