import ConstantColor
import Testing

private func maxDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
    zip(a.m, b.m).map { abs($0 - $1) }.max() ?? .infinity
}

/// Matrices published to four decimals: compare within 1e-4.
private let fourDecimals = 1e-4

@Suite struct RGBColorSpaceTests {
    @Test func sRGBMatrixMatchesIEC61966() {
        // IEC 61966-2-1:1999, section 5.2, linear sRGB → XYZ (D65).
        let published = Matrix3([0.4124, 0.3576, 0.1805,
                                 0.2126, 0.7152, 0.0722,
                                 0.0193, 0.1192, 0.9505])
        let m = RGBColorSpace.sRGB.rgbToXYZ
        #expect(maxDifference(m, published) <= fourDecimals, "\(m.rows)")
    }

    @Test func displayP3MatrixMatchesPublished() {
        // Display P3 (SMPTE EG 432-1 primaries, D65), as published by Apple and in
        // colour-science's RGB_COLOURSPACE_DISPLAY_P3.
        let published = Matrix3([0.4866, 0.2657, 0.1982,
                                 0.2290, 0.6917, 0.0793,
                                 0.0000, 0.0451, 1.0439])
        let m = RGBColorSpace.displayP3.rgbToXYZ
        #expect(maxDifference(m, published) <= fourDecimals, "\(m.rows)")
    }

    @Test(arguments: [RGBColorSpace.sRGB, .displayP3])
    func whiteMapsToD65AndPrimariesToTheirChromaticities(_ space: RGBColorSpace) {
        let m = space.rgbToXYZ
        let white = m * SIMD3(1, 1, 1)
        let d65 = WhitePoint.d65XYZ
        #expect(abs(white.x - d65.x) <= 1e-12 && abs(white.y - 1) <= 1e-12 && abs(white.z - d65.z) <= 1e-12)
        for (column, primary) in [space.red, space.green, space.blue].enumerated() {
            var unit = SIMD3<Double>(0, 0, 0)
            unit[column] = 1
            let xyz = m * unit
            let sum = xyz.x + xyz.y + xyz.z
            #expect(abs(xyz.x / sum - primary.x) <= 1e-12 && abs(xyz.y / sum - primary.y) <= 1e-12)
        }
    }

    @Test(arguments: [RGBColorSpace.sRGB, .displayP3])
    func xyzToRGBInvertsRGBToXYZ(_ space: RGBColorSpace) {
        #expect(maxDifference(space.xyzToRGB * space.rgbToXYZ, .identity) <= 1e-12)
    }

    @Test func d65FromChromaticity() {
        let d65 = WhitePoint.d65XYZ
        #expect(abs(d65.x - 0.3127 / 0.3290) <= 1e-15)
        #expect(d65.y == 1)
        #expect(abs(d65.z - 0.3583 / 0.3290) <= 1e-12)
    }
}
