// TEMPORARY until the color branch lands on main: same signature as ColorScience.lab(fromXYZ:white:).
import Foundation
enum ColorScience {
    static func lab(fromXYZ xyz: SIMD3<Double>, white: SIMD3<Double>) -> SIMD3<Double> {
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let fx = f(xyz.x / white.x), fy = f(xyz.y / white.y), fz = f(xyz.z / white.z)
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }
}
extension ColorScience {
    static func ciede2000(_ l1: SIMD3<Double>, _ l2: SIMD3<Double>) -> Double {
        let c1 = hypot(l1.y, l1.z), c2 = hypot(l2.y, l2.z), cb = (c1 + c2) / 2
        let g = 0.5 * (1 - (pow(cb, 7) / (pow(cb, 7) + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * l1.y, a2 = (1 + g) * l2.y
        let cp1 = hypot(a1, l1.z), cp2 = hypot(a2, l2.z)
        func hue(_ b: Double, _ a: Double) -> Double { if a == 0 && b == 0 { return 0 }; var h = atan2(b, a) * 180 / .pi; if h < 0 { h += 360 }; return h }
        let h1 = hue(l1.z, a1), h2 = hue(l2.z, a2)
        let dL = l2.x - l1.x, dC = cp2 - cp1
        var dh = 0.0
        if cp1 * cp2 != 0 { dh = h2 - h1; if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 } }
        let dH = 2 * (cp1 * cp2).squareRoot() * sin(dh / 2 * .pi / 180)
        let lb = (l1.x + l2.x) / 2, cpb = (cp1 + cp2) / 2
        var hb = h1 + h2
        if cp1 * cp2 != 0 { if abs(h1 - h2) <= 180 { hb /= 2 } else if h1 + h2 < 360 { hb = (hb + 360) / 2 } else { hb = (hb - 360) / 2 } }
        let t = 1 - 0.17 * cos((hb - 30) * .pi / 180) + 0.24 * cos(2 * hb * .pi / 180) + 0.32 * cos((3 * hb + 6) * .pi / 180) - 0.20 * cos((4 * hb - 63) * .pi / 180)
        let dTheta = 30 * exp(-pow((hb - 275) / 25, 2))
        let rc = 2 * (pow(cpb, 7) / (pow(cpb, 7) + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(lb - 50, 2) / (20 + pow(lb - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * cpb, sh = 1 + 0.015 * cpb * t
        let rt = -sin(2 * dTheta * .pi / 180) * rc
        return (pow(dL / sl, 2) + pow(dC / sc, 2) + pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh)).squareRoot()
    }
}
