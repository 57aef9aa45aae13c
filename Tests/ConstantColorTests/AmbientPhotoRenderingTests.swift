import Testing
@testable import ConstantColor

/// The fallback photo and SPEC 5's variance-reduction reference (`AmbientPhotoRendering`): gray-world
/// white balance (Buchsbaum 1980) through the flash profile's matrix, against values worked out by hand.
@Suite("Ambient photo rendering: gray world through the flash profile's matrix")
struct AmbientPhotoRenderingTests {
    /// A camera→XYZ matrix that maps camera RGB (1, 1, 1) to the D65 white, as a flash profile's does:
    /// an arbitrary invertible matrix with its columns scaled so that they sum to the white.
    static let matrix: Matrix3 = {
        let n = Matrix3([0.62, 0.21, 0.13, 0.28, 0.71, 0.05, 0.02, 0.11, 0.93])
        return n * Matrix3.diagonal(n.inverse! * WhitePoint.d65XYZ)
    }()
    static let flash = FlashProfile(name: "test flash", cameraName: nil, whiteCameraRGB: SIMD3(1, 1, 1), matrixToXYZD65: matrix)
    static let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2, isoSpeed: 100)

    /// A 4 × 1 frame: three unclipped pixels whose channel means are (2, 4, 8), one clipped pixel far
    /// brighter and bluer, which gray world must not count.
    static func frame(clipped: [UInt8] = [0, 0, 0, 1]) -> LinearFrame {
        // Planar: red of the four pixels, then green, then blue.
        let samples: [Float] = [1, 2, 3, 60_000, 3, 4, 5, 60_000, 6, 8, 10, 65_000]
        return LinearFrame(image: PlanarImage(width: 4, height: 1, channelCount: 3, samples: samples), clipped: clipped,
                           noise: FrameNoise(varianceOffset: 1, varianceSlope: 0), exposure: exposure)
    }

    @Test("the balance makes the unclipped pixels' mean neutral: the matrix times diag(g/r, 1, g/b), the clipped pixel left out")
    func grayWorldGainsFromTheUnclippedMeans() {
        let m = AmbientPhotoRendering.grayWorldCameraToXYZ(Self.frame(), flash: Self.flash)
        // Means (2, 4, 8): gains 4/2 = 2 for red and 4/8 = 0.5 for blue.
        let expected = Self.matrix * Matrix3.diagonal(SIMD3(2, 1, 0.5))
        for i in 0..<9 { #expect(abs(m.m[i] - expected.m[i]) < 1e-12, "element \(i): \(m.m[i]) vs \(expected.m[i])") }
        // The mean pixel renders as D65 (chromaticity of the white, scaled by the green mean 4).
        let mean = m * SIMD3(2, 4, 8), white = WhitePoint.d65XYZ
        for c in 0..<3 { #expect(abs(mean[c] / mean.y - white[c] / white.y) < 1e-12) }
    }

    @Test("with nothing to balance (every pixel clipped, or a channel without light) the matrix is the flash profile's")
    func nothingToBalanceKeepsTheMatrix() {
        #expect(AmbientPhotoRendering.grayWorldCameraToXYZ(Self.frame(clipped: [1, 1, 1, 1]), flash: Self.flash) == Self.matrix)
        var dark = Self.frame()
        for i in 8..<12 { dark.image.samples[i] = 0 }  // no blue anywhere
        #expect(AmbientPhotoRendering.grayWorldCameraToXYZ(dark, flash: Self.flash) == Self.matrix)
    }

    @Test("the rendered photo: the mean pixel comes out achromatic in the output primaries, each pixel the balanced matrix's")
    func renderedMeanIsNeutral() {
        // A frame whose unclipped pixel is exactly the mean: it must come out R = G = B in linear P3.
        let samples: [Float] = [2, 1, 3, 4, 3, 5, 8, 6, 10]
        let frame = LinearFrame(image: PlanarImage(width: 3, height: 1, channelCount: 3, samples: samples),
                                clipped: [0, 0, 0], noise: FrameNoise(varianceOffset: 1, varianceSlope: 0), exposure: Self.exposure)
        // Means (2, 4, 8) again; pixel 0 is (2, 4, 8).
        let (image, rendering) = AmbientPhotoRendering.render(frame, flash: Self.flash, primaries: .displayP3)
        let r = image[0, 0, 0], g = image[0, 0, 1], b = image[0, 0, 2]
        #expect(g > 0)
        #expect(abs(r / g - 1) < 1e-5 && abs(b / g - 1) < 1e-5, "\(r) \(g) \(b)")
        // Every pixel is the balanced camera→XYZ matrix, to P3, at the automatic scale.
        let toRGB = rendering.matrix(to: .rgb)
        for x in 0..<3 {
            let v = toRGB * SIMD3(Double(frame.image[x, 0, 0]), Double(frame.image[x, 0, 1]), Double(frame.image[x, 0, 2]))
            for c in 0..<3 { #expect(abs(Double(image[x, 0, c]) - v[c]) <= 1e-5 * max(1, abs(v[c]))) }
        }
        let expected = AmbientPhotoRendering.grayWorldCameraToXYZ(frame, flash: Self.flash)
        #expect(rendering.cameraToXYZ == expected)
    }
}
