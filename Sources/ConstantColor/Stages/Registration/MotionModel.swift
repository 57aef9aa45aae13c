/// The geometric models registration can fit, from the simplest.
public enum MotionModel: String, Sendable, CaseIterable, Codable {
    /// Shift only (2 parameters).
    case translation
    /// Shift and rotation (3).
    case rigid
    /// Shift, rotation and uniform scale (4).
    case similarity
    /// Plane projective transform (8).
    case homography

    /// Number of geometric parameters.
    public var parameterCount: Int {
        switch self {
        case .translation: 2
        case .rigid: 3
        case .similarity: 4
        case .homography: 8
        }
    }
}

/// A warp in normalized coordinates `u = (x − w/2) / s`, `v = (y − h/2) / s`, `s = max(w, h) / 2`,
/// which are the same at every pyramid level (a level halves `x`, `w/2` and `s` together).
///
/// The warp maps a point of the flash frame to the same scene point in the ambient frame.
struct NormalizedWarp {
    var model: MotionModel
    /// Parameters; meaning depends on `model` (see `matrix`).
    var p: [Double]

    init(model: MotionModel, p: [Double]? = nil) {
        self.model = model
        self.p = p ?? [Double](repeating: 0, count: model.parameterCount)
    }

    /// The warp as a 3×3 matrix acting on (u, v, 1).
    var matrix: Matrix3 {
        switch model {
        case .translation:
            return Matrix3([1, 0, p[0], 0, 1, p[1], 0, 0, 1])
        case .rigid:
            let c = cos(p[2]), s = sin(p[2])
            return Matrix3([c, -s, p[0], s, c, p[1], 0, 0, 1])
        case .similarity:
            return Matrix3([1 + p[2], -p[3], p[0], p[3], 1 + p[2], p[1], 0, 0, 1])
        case .homography:
            return Matrix3([1 + p[0], p[1], p[2], p[3], 1 + p[4], p[5], p[6], p[7], 1])
        }
    }

    /// The same motion expressed with a richer model (exactly, for the parameters it shares).
    func promoted(to richer: MotionModel) -> NormalizedWarp {
        let m = matrix
        switch richer {
        case .translation: return NormalizedWarp(model: .translation, p: [m[0, 2], m[1, 2]])
        case .rigid: return NormalizedWarp(model: .rigid, p: [m[0, 2], m[1, 2], atan2(m[1, 0], m[0, 0])])
        case .similarity: return NormalizedWarp(model: .similarity, p: [m[0, 2], m[1, 2], m[0, 0] - 1, m[1, 0]])
        case .homography:
            let n = m[2, 2]
            return NormalizedWarp(model: .homography, p: [m[0, 0] / n - 1, m[0, 1] / n, m[0, 2] / n,
                                                          m[1, 0] / n, m[1, 1] / n - 1, m[1, 2] / n,
                                                          m[2, 0] / n, m[2, 1] / n])
        }
    }
}

/// One motion model's warp and Jacobian with its parameters unpacked (and, for the rigid model,
/// its cosine and sine taken once), for the per-sample loop of registration.
protocol WarpKernel {
    /// Number of geometric parameters.
    static var parameterCount: Int { get }
    /// The warped point of (u, v); writes ∂W/∂p into `jx`, `jy` (`parameterCount` each).
    func apply(u: Double, v: Double, jx: UnsafeMutablePointer<Double>, jy: UnsafeMutablePointer<Double>) -> (Double, Double)
}

/// `NormalizedWarp.matrix` of `.translation`: (u + p0, v + p1).
struct TranslationKernel: WarpKernel {
    static var parameterCount: Int { 2 }
    let p0: Double, p1: Double
    init(_ p: [Double]) { p0 = p[0]; p1 = p[1] }
    @inline(__always)
    func apply(u: Double, v: Double, jx: UnsafeMutablePointer<Double>, jy: UnsafeMutablePointer<Double>) -> (Double, Double) {
        jx[0] = 1; jx[1] = 0; jy[0] = 0; jy[1] = 1
        return (u + p0, v + p1)
    }
}

/// `NormalizedWarp.matrix` of `.rigid`: rotation by p2, then shift (p0, p1).
struct RigidKernel: WarpKernel {
    static var parameterCount: Int { 3 }
    let p0: Double, p1: Double, c: Double, s: Double
    init(_ p: [Double]) { p0 = p[0]; p1 = p[1]; c = cos(p[2]); s = sin(p[2]) }
    @inline(__always)
    func apply(u: Double, v: Double, jx: UnsafeMutablePointer<Double>, jy: UnsafeMutablePointer<Double>) -> (Double, Double) {
        jx[0] = 1; jx[1] = 0; jx[2] = -s * u - c * v
        jy[0] = 0; jy[1] = 1; jy[2] = c * u - s * v
        return (c * u - s * v + p0, s * u + c * v + p1)
    }
}

/// `NormalizedWarp.matrix` of `.similarity`: [[1 + p2, −p3], [p3, 1 + p2]], then shift (p0, p1).
struct SimilarityKernel: WarpKernel {
    static var parameterCount: Int { 4 }
    let p0: Double, p1: Double, p2: Double, p3: Double
    init(_ p: [Double]) { p0 = p[0]; p1 = p[1]; p2 = p[2]; p3 = p[3] }
    @inline(__always)
    func apply(u: Double, v: Double, jx: UnsafeMutablePointer<Double>, jy: UnsafeMutablePointer<Double>) -> (Double, Double) {
        jx[0] = 1; jx[1] = 0; jx[2] = u; jx[3] = -v
        jy[0] = 0; jy[1] = 1; jy[2] = v; jy[3] = u
        return ((1 + p2) * u - p3 * v + p0, p3 * u + (1 + p2) * v + p1)
    }
}

/// `NormalizedWarp.matrix` of `.homography`.
struct HomographyKernel: WarpKernel {
    static var parameterCount: Int { 8 }
    let p: (Double, Double, Double, Double, Double, Double, Double, Double)
    init(_ q: [Double]) { p = (q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]) }
    @inline(__always)
    func apply(u: Double, v: Double, jx: UnsafeMutablePointer<Double>, jy: UnsafeMutablePointer<Double>) -> (Double, Double) {
        let d = p.6 * u + p.7 * v + 1
        let wx = ((1 + p.0) * u + p.1 * v + p.2) / d
        let wy = (p.3 * u + (1 + p.4) * v + p.5) / d
        jx[0] = u / d; jx[1] = v / d; jx[2] = 1 / d; jx[3] = 0; jx[4] = 0; jx[5] = 0
        jx[6] = -wx * u / d; jx[7] = -wx * v / d
        jy[0] = 0; jy[1] = 0; jy[2] = 0; jy[3] = u / d; jy[4] = v / d; jy[5] = 1 / d
        jy[6] = -wy * u / d; jy[7] = -wy * v / d
        return (wx, wy)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
