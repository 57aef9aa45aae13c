// TEMPORARY until the color branch lands on main: same signature as ColorScience.lab(fromXYZ:white:).
import Foundation
enum ColorScience {
    static func lab(fromXYZ xyz: SIMD3<Double>, white: SIMD3<Double>) -> SIMD3<Double> {
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let fx = f(xyz.x / white.x), fy = f(xyz.y / white.y), fz = f(xyz.z / white.z)
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }
}
