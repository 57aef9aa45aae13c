import CLCMS2
import ConstantColor

/// Colorimetric conversions and colour differences computed with Little CMS.
///
/// XYZ scale: tristimulus values are relative, with Y of the reference white = 1 (so the D50
/// white is (0.9642, 1, 0.8249)). Little CMS's `cmsCIEXYZ` uses the same scale, so values
/// pass through unchanged. L*a*b* is `SIMD3(L*, a*, b*)` with L* in 0...100.
/// NaN inputs propagate to NaN outputs; no function traps on them.
public enum ColorScience {
    /// The ICC profile connection space illuminant D50, XYZ (ICC.1:2010 section 7.2.16:
    /// X 0.9642, Y 1.0, Z 0.8249).
    public static let whiteD50XYZ = SIMD3<Double>(0.9642, 1.0, 0.8249)

    /// CIE D65 from its chromaticity x 0.3127, y 0.3290 (IEC 61966-2-1), Y = 1
    /// (`WhitePoint.d65`).
    public static let whiteD65XYZ = WhitePoint.d65XYZ

    /// CIE 1976 L*a*b* of `xyz` relative to the reference white `white` (CIE 15:2004
    /// section 8.2.1; `cmsXYZ2Lab`). Both in the same relative scale (Y of white = 1).
    public static func lab(fromXYZ xyz: SIMD3<Double>, white: SIMD3<Double>) -> SIMD3<Double> {
        var w = cmsCIEXYZ(X: white.x, Y: white.y, Z: white.z)
        var v = cmsCIEXYZ(X: xyz.x, Y: xyz.y, Z: xyz.z)
        var lab = cmsCIELab()
        cmsXYZ2Lab(&w, &lab, &v)
        return SIMD3(lab.L, lab.a, lab.b)
    }

    /// "ΔE00 chroma" (issue 7): CIEDE2000 (CIE 142:2001) between the reference L*a*b* (D65) and the
    /// measured XYZ scaled to the reference's Y, so that only chroma and hue count (a pixel darkened
    /// by the flash fall-off is not miscoloured). Infinite when the measurement has no chromaticity
    /// (Y not positive or not finite). Used by the honesty metric and by the colorimetric
    /// uncertainty learned at calibration, which must measure the same quantity.
    public static func chromaDeltaE2000(measuredXYZ m: SIMD3<Double>, referenceLab r: SIMD3<Double>) -> Double {
        guard m.x.isFinite, m.y.isFinite, m.z.isFinite, m.y > 0 else { return .infinity }
        let yRef = xyz(fromLab: r, white: whiteD65XYZ).y
        let lab = lab(fromXYZ: m * (yRef / m.y), white: whiteD65XYZ)
        return ciede2000(SIMD3(r.x, lab.y, lab.z), r)
    }

    /// CIE XYZ (Y of white = 1) of CIE 1976 L*a*b* `lab` relative to the reference white
    /// `white` (CIE 15:2004 section 8.2.1, inverse; `cmsLab2XYZ`).
    public static func xyz(fromLab lab: SIMD3<Double>, white: SIMD3<Double>) -> SIMD3<Double> {
        var w = cmsCIEXYZ(X: white.x, Y: white.y, Z: white.z)
        var l = cmsCIELab(L: lab.x, a: lab.y, b: lab.z)
        var xyz = cmsCIEXYZ()
        cmsLab2XYZ(&w, &xyz, &l)
        return SIMD3(xyz.X, xyz.Y, xyz.Z)
    }

    /// The Bradford chromatic adaptation matrix from `sourceWhite` to `destinationWhite`
    /// (Lam 1985; ICC.1:2010 Annex E): M⁻¹ · diag(ρ_d/ρ_s, γ_d/γ_s, β_d/β_s) · M with M the
    /// Bradford cone matrix. Built with Little CMS: the map is linear, so its columns are
    /// `cmsAdaptToIlluminant` applied to the unit vectors (`_cmsAdaptationMatrix` is not
    /// exported by the shared library).
    ///
    /// - Throws: `.invalidArgument` when a white is not finite or has a cone response too close
    ///   to zero for Little CMS to divide by.
    public static func bradfordMatrix(fromWhite sourceWhite: SIMD3<Double>,
                                      toWhite destinationWhite: SIMD3<Double>) throws(ColorManagementError) -> Matrix3 {
        let function = "ColorScience.bradfordMatrix"
        for white in [sourceWhite, destinationWhite] {
            guard white.x.isFinite, white.y.isFinite, white.z.isFinite, white.y > 0 else {
                throw .invalidArgument(function: function, reason: "white \(white) is not a finite XYZ with Y > 0")
            }
        }
        var source = cmsCIEXYZ(X: sourceWhite.x, Y: sourceWhite.y, Z: sourceWhite.z)
        var destination = cmsCIEXYZ(X: destinationWhite.x, Y: destinationWhite.y, Z: destinationWhite.z)
        var columns: [SIMD3<Double>] = []
        for unit in [SIMD3<Double>(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)] {
            var value = cmsCIEXYZ(X: unit.x, Y: unit.y, Z: unit.z)
            var result = cmsCIEXYZ()
            guard cmsAdaptToIlluminant(&result, &source, &destination, &value) != 0 else {
                throw .invalidArgument(function: "cmsAdaptToIlluminant",
                                       reason: "cannot adapt from white \(sourceWhite) to \(destinationWhite)")
            }
            columns.append(SIMD3(result.X, result.Y, result.Z))
        }
        return Matrix3(columns: columns[0], columns[1], columns[2])
    }

    /// `xyz` adapted from `sourceWhite` to `destinationWhite` with Bradford (Lam 1985;
    /// ICC.1:2010 Annex E): `bradfordMatrix(fromWhite:toWhite:) * xyz`.
    public static func adapt(xyz: SIMD3<Double>, fromWhite sourceWhite: SIMD3<Double>,
                             toWhite destinationWhite: SIMD3<Double>) throws(ColorManagementError) -> SIMD3<Double> {
        try bradfordMatrix(fromWhite: sourceWhite, toWhite: destinationWhite) * xyz
    }

    /// Bradford from the ICC D50 white to D65 (`whiteD50XYZ` → `whiteD65XYZ`).
    public static let bradfordD50ToD65: Matrix3 = {
        // Both whites are constants with positive cone responses: this cannot fail.
        do { return try bradfordMatrix(fromWhite: whiteD50XYZ, toWhite: whiteD65XYZ) } catch { fatalError("\(error)") }
    }()

    /// L*a*b* relative to D65 of a colour published as L*a*b* relative to D50 (reference
    /// charts): Lab(D50) → XYZ (CIE 15:2004) → Bradford D50 → D65 (Lam 1985) → Lab(D65).
    /// D50 is the ICC PCS white (`whiteD50XYZ`).
    public static func labD65(fromLabD50 labD50: SIMD3<Double>) -> SIMD3<Double> {
        let xyzD50 = xyz(fromLab: labD50, white: whiteD50XYZ)
        return lab(fromXYZ: bradfordD50ToD65 * xyzD50, white: whiteD65XYZ)
    }

    /// The CIEDE2000 colour difference ΔE00 between two L*a*b* colours with the parametric
    /// factors k_L = k_C = k_H = 1 (CIE 142-2001; `cmsCIE2000DeltaE`). Verified against the
    /// 34 pairs of Sharma, Wu & Dalal (2005), Table 1. A NaN component in either colour
    /// gives NaN.
    public static func ciede2000(_ lab1: SIMD3<Double>, _ lab2: SIMD3<Double>) -> Double {
        var a = cmsCIELab(L: lab1.x, a: lab1.y, b: lab1.z)
        var b = cmsCIELab(L: lab2.x, a: lab2.y, b: lab2.z)
        return cmsCIE2000DeltaE(&a, &b, 1, 1, 1)
    }
}
