import ConstantColor
import Foundation

/// The flash's irradiance across the chart, relative to the frame center: a smooth field
/// E(u, v) = exp(c_x·u + c_y·v + c₂·ρ² + c₄·ρ⁴), with u, v the position relative to the frame
/// center in units of the half diagonal and ρ² = u² + v².
///
/// A point flash gives E ∝ cos θ / r² (inverse-square law with Lambert's cosine, CIE 015:2004):
/// even in a dark room the chart's corners get markedly less light than its center, which a
/// 3×3 matrix cannot explain (it changes every patch's lightness by its position, not by its
/// color). The even terms model the radial fall-off, the odd ones a flash beside the lens. The
/// field has no constant term: the global level is the chart's exposure scale.
public struct FlashFalloffField: Sendable, Equatable {
    /// Names of the basis terms, in coefficient order.
    public static let termNames = ["u", "v", "rho2", "rho4"]

    /// The coefficients (c_x, c_y, c₂, c₄); all zero is a uniform flash.
    public var coefficients: [Double]

    /// Creates a field; the default is uniform.
    public init(coefficients: [Double] = [0, 0, 0, 0]) {
        precondition(coefficients.count == Self.termNames.count)
        self.coefficients = coefficients
    }

    /// The basis terms (u, v, ρ², ρ⁴) at `point` in a `width` × `height` frame (SPEC 4.3 coordinates).
    public static func basis(at point: SIMD2<Double>, width: Int, height: Int) -> [Double] {
        let halfDiagonal = 0.5 * (Double(width * width + height * height)).squareRoot()
        let u = (point.x - 0.5 * Double(width)) / halfDiagonal, v = (point.y - 0.5 * Double(height)) / halfDiagonal
        let rho2 = u * u + v * v
        return [u, v, rho2, rho2 * rho2]
    }

    /// Relative irradiance at a point with basis terms `basis`.
    public func relativeIrradiance(basis: [Double]) -> Double {
        exp(zip(coefficients, basis).reduce(0) { $0 + $1.0 * $1.1 })
    }

    /// Least-squares fit of ln ratioᵢ ≈ k + ∑ c_j basisᵢⱼ (k free, then dropped): the field that
    /// best explains per-patch brightness ratios up to a global scale. Returns the uniform field
    /// when the system is singular (too few or collinear patches).
    public static func fit(logRatios: [Double], basis: [[Double]]) -> FlashFalloffField {
        guard let x = LinearLeastSquares.fit(basis: basis.map { [1] + $0 }, values: logRatios) else { return FlashFalloffField() }
        return FlashFalloffField(coefficients: Array(x.dropFirst()))
    }
}
