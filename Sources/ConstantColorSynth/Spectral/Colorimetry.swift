import Foundation
import ConstantColor

/// Photometry and chromaticity from spectra.
public enum Photometry {
    /// Maximum luminous efficacy for photopic vision, K_m = 683 lm/W (CIE 015:2004 §7.1; SI candela definition).
    public static let maximumLuminousEfficacyLumensPerWatt = 683.0

    /// Illuminance in lux of a spectral irradiance E(λ) in W·m⁻²·nm⁻¹:
    /// E_v = K_m ∑ E(λ) V(λ) Δλ with V = ȳ of the CIE 1931 observer (CIE 015:2004 eq. 7.1 with k = K_m).
    public static func illuminanceLux(of irradiance: SpectralDistribution, cmfs: ColorMatchingFunctions) -> Double {
        maximumLuminousEfficacyLumensPerWatt * irradiance.integral(against: cmfs.yBar)
    }

    /// The distribution scaled so that, read as spectral irradiance in W·m⁻²·nm⁻¹, it gives `lux`;
    /// an error when it gives no illuminance to scale (all zeros, negative or not finite values, or
    /// all of its power outside the visible range).
    public static func scaled(_ spd: SpectralDistribution, toIlluminanceLux lux: Double,
                              cmfs: ColorMatchingFunctions) throws(LightSourceError) -> SpectralDistribution {
        if let i = spd.values.indices.first(where: { spd.values[$0] < 0 }) {
            throw .negativePower(name: spd.name, nm: WorkingGrid.wavelengthsNm[i], value: spd.values[i])
        }
        let e = illuminanceLux(of: spd, cmfs: cmfs)
        guard e > 0, e.isFinite, spd.values.allSatisfy({ $0.isFinite && $0 >= 0 }) else { throw .noPhotopicPower(spd.name) }
        return spd.scaled(by: lux / e)
    }
}

/// Chromaticity coordinate conversions.
public enum ChromaticityCoordinates {
    /// CIE 1931 (x, y) of tristimulus values (CIE 015:2004 eq. 7.3).
    public static func xy(_ xyz: SIMD3<Double>) -> (x: Double, y: Double) {
        let s = xyz.x + xyz.y + xyz.z
        return (xyz.x / s, xyz.y / s)
    }

    /// CIE 1960 UCS (u, v): u = 4X / (X + 15Y + 3Z), v = 6Y / (X + 15Y + 3Z) (CIE 015:2004 §9.1 note / CIE 1960).
    public static func uv1960(_ xyz: SIMD3<Double>) -> (u: Double, v: Double) {
        let d = xyz.x + 15 * xyz.y + 3 * xyz.z
        return (4 * xyz.x / d, 6 * xyz.y / d)
    }
}

/// The Planckian locus in CIE 1960 (u, v) for one observer, and CCT / Duv by Ohno's method
/// (Ohno, Y. (2014). Practical use and calculation of CCT and Duv. LEUKOS 10(1), 47–55;
/// the triangular and parabolic solutions, here with a cascade of finer tables around the minimum).
public struct PlanckianLocus: Sendable {
    let cmfs: ColorMatchingFunctions
    /// The coarse table: temperatures at 1 % steps from 1000 K to 100000 K and their (u, v).
    let coarseKelvin: [Double]
    let coarseUV: [(u: Double, v: Double)]

    /// Creates the locus for the given observer.
    public init(cmfs: ColorMatchingFunctions) {
        self.cmfs = cmfs
        var temps: [Double] = []
        var t = 1000.0
        while t <= 100_000 { temps.append(t); t *= 1.01 }
        coarseKelvin = temps
        coarseUV = temps.map { ChromaticityCoordinates.uv1960(cmfs.tristimulus(of: LightSourceModel.planckian(temperatureKelvin: $0))) }
    }

    /// (u, v) of a Planckian radiator at `t` kelvin (c₂ = 1.4388e-2 m·K).
    public func uv(temperatureKelvin t: Double) -> (u: Double, v: Double) {
        ChromaticityCoordinates.uv1960(cmfs.tristimulus(of: LightSourceModel.planckian(temperatureKelvin: t)))
    }

    /// Correlated colour temperature (K) and Duv (signed distance from the locus in the 1960 UCS,
    /// positive above it) of a chromaticity, for 1000–100000 K.
    public func cctAndDuv(u: Double, v: Double) -> (cctKelvin: Double, duv: Double) {
        // Coarse table at 1 % steps (Ohno 2014 §3), then three cascades of 11 points between the
        // neighbours of the minimum (spacing 0.2 %, 0.04 %, 0.008 %); the parabolic solution on the last.
        var temps = coarseKelvin
        var d = coarseUV.map { hypot(u - $0.u, v - $0.v) }
        var m = 0
        for cascade in 0...3 {
            if cascade > 0 {
                d = temps.map { tt -> Double in let p = uv(temperatureKelvin: tt); return hypot(u - p.u, v - p.v) }
            }
            m = min(max(d.indices.min { d[$0] < d[$1] }!, 1), temps.count - 2)
            if cascade < 3 {
                let lo = temps[m - 1], hi = temps[m + 1]
                temps = (0...10).map { lo + (hi - lo) * Double($0) / 10 }
            }
        }
        let (t0, t1, t2) = (temps[m - 1], temps[m], temps[m + 1])
        let (d0, d1, d2) = (d[m - 1], d[m], d[m + 1])
        // Parabolic solution for the temperature, Ohno 2014 eq. 12–14 (T_x = −b / 2a); Duv is then the
        // exact distance to the locus point at T_x rather than the parabola's value (eq. 15).
        let x = (t2 - t1) * (t0 - t2) * (t1 - t0)
        let a = (t0 * (d2 - d1) + t1 * (d0 - d2) + t2 * (d1 - d0)) / x
        let b = -(t0 * t0 * (d2 - d1) + t1 * t1 * (d0 - d2) + t2 * t2 * (d1 - d0)) / x
        let tx = a != 0 ? -b / (2 * a) : t1
        let p = uv(temperatureKelvin: tx)
        let duvMagnitude = hypot(u - p.u, v - p.v)
        return (tx, v >= p.v ? duvMagnitude : -duvMagnitude)
    }

    /// CCT and Duv of a spectral power distribution.
    public func cctAndDuv(of spd: SpectralDistribution) -> (cctKelvin: Double, duv: Double) {
        let p = ChromaticityCoordinates.uv1960(cmfs.tristimulus(of: spd))
        return cctAndDuv(u: p.u, v: p.v)
    }

    /// A source off the Planckian locus: the base radiator (Planckian, or CIE daylight when
    /// `daylightBasis` is given) seen through a green (Duv > 0) or magenta (Duv < 0) colour-correction
    /// gel, transmittance τ(λ) = exp(a·g(λ)) with g a Gaussian bump at 530 nm (σ 40 nm) — the
    /// "plus green / minus green" filters used to match lamps. The base temperature T₀ and the gel
    /// density a are solved by Newton's method so that the result has exactly `cctKelvin` and `duv`
    /// (to 0.01 K and 1e-6), as measured by `cctAndDuv`.
    public func offLocusSource(cctKelvin: Double, duv: Double,
                               daylightBasis: DaylightBasis? = nil) throws(LightSourceError) -> SpectralDistribution {
        let gel = SpectralDistribution(name: "gel") { nm in exp(-0.5 * pow((nm - 530) / 40, 2)) }
        func make(_ t0: Double, _ a: Double) throws(LightSourceError) -> SpectralDistribution {
            let base = try daylightBasis.map { b throws(LightSourceError) in try LightSourceModel.daylight(cctKelvin: t0, basis: b, roundedCoefficients: false) }
                ?? LightSourceModel.planckian(temperatureKelvin: t0)
            var v = base.values
            for i in v.indices { v[i] *= exp(a * gel.values[i]) }
            return SpectralDistribution(workingGridValues: v, name: "\(base.name), Duv \(duv)")
        }
        func measure(_ t0: Double, _ a: Double) throws(LightSourceError) -> SIMD2<Double> {
            let r = cctAndDuv(of: try make(t0, a))
            return SIMD2(r.cctKelvin, r.duv)
        }
        var t0 = cctKelvin, a = 0.0
        let target = SIMD2(cctKelvin, duv)
        for _ in 0..<30 {
            let f = try measure(t0, a) - target
            if abs(f.x) < 0.01 && abs(f.y) < 1e-6 { return try make(t0, a) }
            let dt = max(1, t0 * 1e-4), da = 1e-3
            let ft = (try measure(t0 + dt, a) - target - f) / dt
            let fa = (try measure(t0, a + da) - target - f) / da
            let det = ft.x * fa.y - fa.x * ft.y
            guard det != 0, det.isFinite else { break }
            t0 -= (fa.y * f.x - fa.x * f.y) / det
            a -= (-ft.y * f.x + ft.x * f.y) / det
        }
        throw .tintDidNotConverge(cctKelvin: cctKelvin, duv: duv)
    }
}
