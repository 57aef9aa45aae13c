/// CIE 1931 chromaticity coordinates.
public struct Chromaticity: Sendable, Equatable, Codable {
    /// x = X / (X + Y + Z).
    public var x: Double
    /// y = Y / (X + Y + Z).
    public var y: Double
    /// Creates a chromaticity.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    /// XYZ of this chromaticity scaled to Y = 1.
    public var xyzUnitY: SIMD3<Double> { SIMD3(x / y, 1, (1 - x - y) / y) }
}

/// Standard white points.
public enum WhitePoint {
    /// CIE D65 as used by sRGB and Display P3 (IEC 61966-2-1: x 0.3127, y 0.3290).
    public static let d65 = Chromaticity(x: 0.3127, y: 0.3290)
    /// CIE D50 as used by ICC profile connection space (ICC.1:2010: X 0.9642, Y 1, Z 0.8249).
    public static let d50XYZ = SIMD3<Double>(0.9642, 1.0, 0.8249)
    /// D65 XYZ with Y = 1.
    public static var d65XYZ: SIMD3<Double> { d65.xyzUnitY }
}

/// An additive RGB space given by its primaries and white point (linear; the transfer
/// function is applied separately).
public struct RGBColorSpace: Sendable, Equatable {
    /// A short name ("Display P3", "sRGB").
    public var name: String
    /// Red, green and blue primaries.
    public var red: Chromaticity, green: Chromaticity, blue: Chromaticity
    /// The white point.
    public var white: Chromaticity

    /// Creates a space from primaries and white.
    public init(name: String, red: Chromaticity, green: Chromaticity, blue: Chromaticity, white: Chromaticity) {
        self.name = name; self.red = red; self.green = green; self.blue = blue; self.white = white
    }

    /// sRGB / Rec. 709 primaries, D65 white (IEC 61966-2-1:1999).
    public static let sRGB = RGBColorSpace(
        name: "sRGB", red: .init(x: 0.64, y: 0.33), green: .init(x: 0.30, y: 0.60),
        blue: .init(x: 0.15, y: 0.06), white: WhitePoint.d65)

    /// Display P3: DCI-P3 primaries with a D65 white (SMPTE EG 432-1).
    public static let displayP3 = RGBColorSpace(
        name: "Display P3", red: .init(x: 0.680, y: 0.320), green: .init(x: 0.265, y: 0.690),
        blue: .init(x: 0.150, y: 0.060), white: WhitePoint.d65)

    /// The matrix from linear RGB to XYZ (white maps to Y = 1), derived from the primaries
    /// (SMPTE RP 177-1993: scale the primaries' XYZ so that their sum is the white's XYZ).
    public var rgbToXYZ: Matrix3 {
        let p = Matrix3(columns: red.xyzUnitY, green.xyzUnitY, blue.xyzUnitY)
        let s = p.inverse! * white.xyzUnitY
        return p * Matrix3.diagonal(s)
    }

    /// The matrix from XYZ to linear RGB.
    public var xyzToRGB: Matrix3 { rgbToXYZ.inverse! }
}
