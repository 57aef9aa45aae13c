import ConstantColor
import ConstantColorIO
import Foundation
import TestSupport

/// Shared test data and a small deterministic generator.
enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let darkroom = root + "/fixtures/colorchecker/darkroom/darkroom.tif"
    static let darkroomTruth = root + "/fixtures/colorchecker/darkroom/truth.json"
    static let dark = root + "/fixtures/colorchecker/darkroom/dark.tif"
}

/// The shared SplitMix64 with normal (Box–Muller) and Poisson draws.
typealias SplitMix = SplitMix64

extension SplitMix64 {
    /// Uniform in (0, 1).
    mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / Double(1 << 53) }
    /// Standard normal (Box–Muller).
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
