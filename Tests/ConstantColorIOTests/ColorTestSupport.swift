import ConstantColor
import Foundation

/// Tolerances shared by the colour tests, each tied to where its reference values come from.
enum ColorTolerance {
    /// Values published to four decimals (IEC 61966-2-1 matrix, Lindbloom's Bradford matrix,
    /// the brief's XYZ check): within 1e-4.
    static let fourDecimals = 1e-4
    /// "Equal to four decimals": the computed value rounds to the published one.
    static let roundsToFourDecimals = 5e-5
    /// Round trips in double precision through Little CMS.
    static let roundTrip = 1e-9
    /// Single-precision pixel paths compared with the double-precision path.
    static let singlePrecision = 1e-5
}

/// `true` when every component of `a` is within `tolerance` of `b`.
func isClose(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tolerance: Double) -> Bool {
    let d = a - b
    return abs(d.x) <= tolerance && abs(d.y) <= tolerance && abs(d.z) <= tolerance
}

/// Largest absolute difference between two matrices' entries.
func maxDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
    zip(a.m, b.m).map { abs($0 - $1) }.max() ?? .infinity
}

/// The Bradford cone response matrix M_BFD (Lam 1985, as given in ICC.1:2010 Annex E),
/// used by the tests for an adaptation computed without Little CMS.
let bradfordConeMatrix = Matrix3([0.8951, 0.2664, -0.1614,
                                  -0.7502, 1.7135, 0.0367,
                                  0.0389, -0.0685, 1.0296])

/// Bradford adaptation from `source` to `destination` white computed directly from
/// M_BFD (Lam 1985): M⁻¹ · diag(M·dst / M·src) · M.
func independentBradford(from source: SIMD3<Double>, to destination: SIMD3<Double>) -> Matrix3 {
    let m = bradfordConeMatrix
    let ratio = (m * destination) / (m * source)
    return m.inverse! * Matrix3.diagonal(ratio) * m
}

/// CIE 1976 L*a*b* from XYZ written out from CIE 15:2004 section 8.2.1, independent of
/// Little CMS.
func independentLab(xyz: SIMD3<Double>, white: SIMD3<Double>) -> SIMD3<Double> {
    func f(_ t: Double) -> Double {
        let epsilon = 216.0 / 24389.0, kappa = 24389.0 / 27.0
        return t > epsilon ? cbrt(t) : (kappa * t + 16) / 116
    }
    let r = xyz / white
    let fx = f(r.x), fy = f(r.y), fz = f(r.z)
    return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
}

/// The tags of an ICC profile's tag table (ICC.1:2010 section 7.3): signature → (offset, size).
func iccTagTable(_ bytes: [UInt8]) -> [String: (offset: Int, size: Int)] {
    func u32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    func sig(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
    var table: [String: (offset: Int, size: Int)] = [:]
    let count = u32(128)
    for i in 0..<count {
        let entry = 132 + 12 * i
        table[sig(entry)] = (u32(entry + 4), u32(entry + 8))
    }
    return table
}

/// Four ASCII characters at `offset`.
func signature(_ bytes: [UInt8], at offset: Int) -> String {
    String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
}
