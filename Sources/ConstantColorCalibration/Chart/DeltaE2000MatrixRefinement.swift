import ConstantColor
import ConstantColorIO
import Foundation

/// Non-linear refinement of a white-preserving matrix: minimizes ∑ ΔE00ᵢ² (CIEDE2000, CIE 142-2001)
/// between the references and `s · M bᵢ / Eᵢ`, over M's first two columns, the exposure scale s and,
/// optionally, the flash fall-off field E (`FlashFalloffField`).
///
/// The third column is `white − c₁ − c₂`, so M (1, 1, 1)ᵀ = white holds exactly for every
/// candidate (6 free matrix parameters); s is the chart's unknown global exposure (parameterized
/// as ln s). The minimizer is Nelder–Mead (`NelderMead`) from the given start, so the result is
/// never worse than the start.
public enum DeltaE2000MatrixRefinement {
    /// The refined fit.
    public struct Result: Sendable {
        /// Balanced camera RGB → XYZ (white preserved exactly).
        public var matrix: Matrix3
        /// The exposure scale s fitted with it.
        public var exposureScale: Double
        /// The fall-off field fitted with it (uniform when not fitted).
        public var field: FlashFalloffField
        /// Per-patch CIEDE2000 at the optimum.
        public var deltaE2000: [Double]
    }

    /// Per-patch CIEDE2000 between `referenceLab` and L*a*b* (relative to `white`) of `factorᵢ · matrix · bᵢ`.
    public static func deltaE2000(matrix: Matrix3, factors: [Double], balanced: [SIMD3<Double>],
                                  referenceLab: [SIMD3<Double>], white: SIMD3<Double>) -> [Double] {
        balanced.indices.map { i in
            ColorScience.ciede2000(ColorScience.lab(fromXYZ: matrix * (factors[i] * balanced[i]), white: white), referenceLab[i])
        }
    }

    /// The white-preserving matrix of parameters (c₁, c₂).
    static func matrix(_ p: [Double], white: SIMD3<Double>) -> Matrix3 {
        let c1 = SIMD3(p[0], p[1], p[2]), c2 = SIMD3(p[3], p[4], p[5])
        return Matrix3(columns: c1, c2, white - c1 - c2)
    }

    /// Refines `start` (which should preserve `white`; only its first two columns are used).
    ///
    /// - Parameters:
    ///   - balanced: white-balanced camera RGB, not corrected for the fall-off (the field divides it).
    ///   - fieldBasis: per-patch `FlashFalloffField.basis`, or nil to fit no field.
    ///   - startField: the field to start from.
    public static func refine(start: Matrix3, startScale: Double = 1, startField: FlashFalloffField = FlashFalloffField(),
                              fieldBasis: [[Double]]? = nil, balanced: [SIMD3<Double>],
                              referenceLab: [SIMD3<Double>], white: SIMD3<Double>) -> Result {
        let fieldCount = fieldBasis == nil ? 0 : FlashFalloffField.termNames.count
        let p0 = [start[0, 0], start[1, 0], start[2, 0], start[0, 1], start[1, 1], start[2, 1], log(startScale)]
            + startField.coefficients.prefix(fieldCount)
        struct Candidate { var matrix: Matrix3; var scale: Double; var field: FlashFalloffField; var deltaE: [Double] }
        func evaluate(_ p: [Double]) -> Candidate {
            let field = fieldCount == 0 ? FlashFalloffField() : FlashFalloffField(coefficients: Array(p[7..<(7 + fieldCount)]))
            let factors = balanced.indices.map { i in exp(p[6]) / (fieldBasis.map { field.relativeIrradiance(basis: $0[i]) } ?? 1) }
            let m = matrix(p, white: white)
            let e = deltaE2000(matrix: m, factors: factors, balanced: balanced, referenceLab: referenceLab, white: white)
            return Candidate(matrix: m, scale: exp(p[6]), field: field, deltaE: e)
        }
        func cost(_ p: [Double]) -> Double {
            let s = evaluate(p).deltaE.reduce(0) { $0 + $1 * $1 }
            return s.isFinite ? s : .infinity
        }
        let best = evaluate(NelderMead.minimize(cost, start: p0, step: [Double](repeating: 0.02, count: p0.count)).point)
        return Result(matrix: best.matrix, exposureScale: best.scale, field: best.field,
                      deltaE2000: best.deltaE)
    }
}
