import Foundation

/// Spectral power distributions computed from formulas: Planckian radiators, CIE daylight,
/// narrow-band LEDs.
public enum LightSourceModel {
    /// First radiation constant c₁ = 3.741771e-16 W·m² (CIE 015:2004 §3.1 / CODATA).
    public static let c1WattSquareMetre = 3.741771852e-16
    /// Second radiation constant c₂ = 1.4388e-2 m·K (CIE 015:2004 §3.1, ITS-90).
    public static let c2MetreKelvin = 1.4388e-2

    /// Spectral radiant exitance of a blackbody, W·m⁻²·nm⁻¹, by Planck's law
    /// M(λ, T) = c₁ λ⁻⁵ / (exp(c₂ / (λT)) − 1) (CIE 015:2004 eq. 3.1 with λ in m).
    /// `c2` may be overridden (CIE illuminant A is defined as 2848 K with the older c₂ = 1.435e-2 m·K).
    public static func planckian(temperatureKelvin t: Double, c2: Double = c2MetreKelvin) -> SpectralDistribution {
        SpectralDistribution(name: "Planckian \(formatKelvin(t))") { nm in
            let lambda = nm * 1e-9
            return c1WattSquareMetre / pow(lambda, 5) / expm1(c2 / (lambda * t)) * 1e-9
        }
    }

    /// Chromaticity (x_D, y_D) of CIE daylight at a correlated colour temperature, 4000–25000 K
    /// (CIE 015:2004 eq. 3.3 and 3.4).
    public static func daylightChromaticity(cctKelvin t: Double) throws(LightSourceError) -> (x: Double, y: Double) {
        guard t >= 4000, t <= 25000 else { throw .daylightCCTOutOfRange(t) }
        let t2 = t * t, t3 = t2 * t
        let x = t <= 7000
            ? -4.6070e9 / t3 + 2.9678e6 / t2 + 0.09911e3 / t + 0.244063
            : -2.0064e9 / t3 + 1.9018e6 / t2 + 0.24748e3 / t + 0.237040
        return (x, -3.000 * x * x + 2.870 * x - 0.275)
    }

    /// CIE daylight S(λ) = S₀ + M₁S₁ + M₂S₂ at a CCT of 4000–25000 K (CIE 015:2004 eq. 3.5), with
    /// M₁ and M₂ rounded to three decimals as CIE 015:2004 §3.1 prescribes to reproduce its tables.
    /// D65 is this at 6500 × 1.4388 / 1.4380 ≈ 6504 K. `roundedCoefficients: false` keeps them
    /// unrounded, so that the spectrum changes smoothly with `t` (the rounding makes it a staircase,
    /// on which a tint's Newton solve, `PlanckianLocus.offLocusSource`, found no slope).
    public static func daylight(cctKelvin t: Double, basis: DaylightBasis,
                                roundedCoefficients: Bool = true) throws(LightSourceError) -> SpectralDistribution {
        let (x, y) = try daylightChromaticity(cctKelvin: t)
        let m = 0.0241 + 0.2562 * x - 0.7341 * y
        func rounded(_ v: Double) -> Double { roundedCoefficients ? (v * 1000).rounded() / 1000 : v }
        let m1 = rounded((-1.3515 - 1.7703 * x + 5.9114 * y) / m)
        let m2 = rounded((0.0300 - 31.4424 * x + 30.0717 * y) / m)
        var v = basis.s0.values
        for i in v.indices { v[i] += m1 * basis.s1.values[i] + m2 * basis.s2.values[i] }
        return SpectralDistribution(workingGridValues: v, name: "CIE daylight \(formatKelvin(t))")
    }

    /// A narrow-band LED of peak `peakNm` and half width `halfWidthNm`, by Ohno's model
    /// S(λ) = [g(λ) + 2g(λ)⁵] / 3, g = exp(−((λ − λ₀)/Δλ)²) (Ohno 2005, Opt. Eng. 44(11) 111302, eq. 1).
    public static func narrowBandLED(peakNm: Double, halfWidthNm: Double) -> SpectralDistribution {
        SpectralDistribution(name: "LED \(Int(peakNm.rounded())) nm") { nm in
            let g = exp(-pow((nm - peakNm) / halfWidthNm, 2))
            return (g + 2 * pow(g, 5)) / 3
        }
    }

    static func formatKelvin(_ t: Double) -> String { "\(Int(t.rounded())) K" }
}

/// The CIE daylight basis functions S₀, S₁, S₂ (CIE 015:2004 Table T.2).
public struct DaylightBasis: Sendable, Equatable {
    /// Mean, first and second characteristic vectors on the working grid.
    public var s0: SpectralDistribution, s1: SpectralDistribution, s2: SpectralDistribution

    /// Creates the basis.
    public init(s0: SpectralDistribution, s1: SpectralDistribution, s2: SpectralDistribution) {
        self.s0 = s0; self.s1 = s1; self.s2 = s2
    }

    /// Reads a set file with members `S0`, `S1`, `S2`.
    public init(path: String) throws {
        let set = try SpectralSet(path: path)
        func member(_ n: String) throws -> SpectralDistribution {
            guard let m = set[n] else { throw JSONFileError.invalidValue(file: path, key: "names", expected: "to contain \"\(n)\"") }
            return m
        }
        self.init(s0: try member("S0"), s1: try member("S1"), s2: try member("S2"))
    }
}

import ConstantColor

/// Problems building a light source.
public enum LightSourceError: Error, Equatable, CustomStringConvertible {
    /// CIE daylight is defined for 4000–25000 K only.
    case daylightCCTOutOfRange(Double)
    /// The requested chromaticity could not be reached by tinting.
    case tintDidNotConverge(cctKelvin: Double, duv: Double)
    /// A source description could not be parsed.
    case malformedSource(String)
    /// A parameter of a source description is outside what the model describes.
    case parameterOutOfRange(source: String, expected: String)
    /// A distribution gives no illuminance (zero, negative or not finite), so it cannot be scaled to lux.
    case noPhotopicPower(String)
    /// A distribution has negative power at a wavelength of the working grid.
    case negativePower(name: String, nm: Double, value: Double)

    public var description: String {
        switch self {
        case .daylightCCTOutOfRange(let t): return "CIE daylight is defined for 4000–25000 K, not \(t) K"
        case .tintDidNotConverge(let t, let d): return "cannot tint a source to CCT \(t) K, Duv \(d)"
        case .malformedSource(let s): return "light source '\(s)' is not understood"
        case .parameterOutOfRange(let s, let expected): return "light source '\(s)': expected \(expected)"
        case .negativePower(let name, let nm, let value):
            return "'\(name)' has negative power (\(value) at \(nm) nm): a spectral power distribution cannot be negative"
        case .noPhotopicPower(let name): return "'\(name)' gives no illuminance (its spectrum weighted by ȳ(λ) is not positive), so it cannot be scaled to lux"
        }
    }
}
