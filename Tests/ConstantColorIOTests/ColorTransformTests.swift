import TestSupport
import ConstantColor
import ConstantColorIO
import Dispatch
import Foundation
import Testing

@Suite struct ColorTransformTests {
    /// XYZ (D50 PCS, Y of white = 1) of encoded RGB under a pure-gamma profile, computed without
    /// Little CMS: decode with rgb^γ, apply the space's RGB → XYZ matrix (SMPTE RP 177-1993,
    /// white D65), then adapt D65 → ICC D50 with Bradford (Lam 1985, cone matrix M_BFD).
    static func expectedXYZD50(_ rgb: SIMD3<Double>, space: RGBColorSpace, gamma: Double = 2.2) -> SIMD3<Double> {
        let linear = SIMD3(pow(rgb.x, gamma), pow(rgb.y, gamma), pow(rgb.z, gamma))
        let adapt = independentBradford(from: space.white.xyzUnitY, to: ColorScience.whiteD50XYZ)
        return adapt * (space.rgbToXYZ * linear)
    }

    static let samples: [SIMD3<Double>] = [
        SIMD3(0.8, 0.4, 0.2), SIMD3(1, 1, 1), SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0),
        SIMD3(0, 0, 1), SIMD3(0.5, 0.5, 0.5), SIMD3(0.1, 0.9, 0.35),
    ]

    @Test(arguments: [RGBColorSpace.displayP3, .sRGB])
    func generatedProfileMapsToExpectedXYZ(_ space: RGBColorSpace) throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: space))
        let transform = try ColorTransform(from: profile, to: .xyzD50)
        #expect(transform.destination == .xyzD50)
        for rgb in Self.samples {
            let xyz = transform.convert(rgb)
            let expected = Self.expectedXYZD50(rgb, space: space)
            #expect(isClose(xyz, expected, ColorTolerance.fourDecimals), "\(space.name) \(rgb): \(xyz) vs \(expected)")
        }
        #expect(isClose(transform.convert(SIMD3(1, 1, 1)), ColorScience.whiteD50XYZ, ColorTolerance.fourDecimals))
    }

    @Test func displayP3OrangeMatchesHandComputedXYZ() throws {
        // Display P3 (0.8, 0.4, 0.2) with gamma 2.2, from the IEC/SMPTE-derived matrix.
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .displayP3))
        let transform = try ColorTransform(from: profile, to: .xyzD50)
        let linear = SIMD3(pow(0.8, 2.2), pow(0.4, 2.2), pow(0.2, 2.2))
        let p3 = Matrix3([0.486571, 0.265668, 0.198217,
                          0.228975, 0.691739, 0.079287,
                          0.000000, 0.045113, 1.043944])
        let expected = independentBradford(from: ColorScience.whiteD65XYZ, to: ColorScience.whiteD50XYZ) * (p3 * linear)
        #expect(isClose(transform.convert(SIMD3(0.8, 0.4, 0.2)), expected, ColorTolerance.fourDecimals))
    }

    @Test func labDestinationAgreesWithColorScience() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .displayP3))
        let toLab = try ColorTransform(from: profile, to: .labD50)
        let toXYZ = try ColorTransform(from: profile, to: .xyzD50)
        #expect(toLab.destination == .labD50)
        for rgb in Self.samples {
            let lab = toLab.convert(rgb)
            let viaXYZ = ColorScience.lab(fromXYZ: toXYZ.convert(rgb), white: ColorScience.whiteD50XYZ)
            // Little CMS evaluates pipelines in single precision (cmsPipelineEvalFloat) even for
            // double formats: Lab values up to ~128 carry 128 · 2^-24 ≈ 8e-6 per rounding.
            #expect(isClose(lab, viaXYZ, 2e-5), "\(rgb): \(lab) vs \(viaXYZ)")
        }
        #expect(isClose(toLab.convert(SIMD3(1, 1, 1)), SIMD3(100, 0, 0), 1e-2))
    }

    @Test(arguments: [ColorTransform.Destination.xyzD50, .labD50])
    func planarImageMatchesPerPixelConversion(_ destination: ColorTransform.Destination) throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .sRGB))
        let transform = try ColorTransform(from: profile, to: destination)
        let width = 6, height = 40  // several row bands on a multi-core machine
        var random = SplitMix64(seed: 11)
        let image = PlanarImage(width: width, height: height, channelCount: 4,
                                samples: (0..<(4 * width * height)).map { _ in Float.random(in: 0...1, using: &random) })
        let converted = try transform.convert(image)
        #expect(converted.channelCount == 3 && converted.width == width && converted.height == height)
        // Lab values are up to 100, XYZ up to ~1: compare relative to the component's range.
        let range = destination == .labD50 ? 100.0 : 1.0
        for y in 0..<height { for x in 0..<width {
            let rgb = SIMD3(Double(image[x, y, 0]), Double(image[x, y, 1]), Double(image[x, y, 2]))
            let expected = transform.convert(rgb)
            let got = SIMD3(Double(converted[x, y, 0]), Double(converted[x, y, 1]), Double(converted[x, y, 2]))
            #expect(isClose(got, expected, ColorTolerance.singlePrecision * range), "(\(x), \(y)): \(got) vs \(expected)")
        } }
    }

    @Test func concurrentConversionsAgree() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .displayP3))
        let transform = try ColorTransform(from: profile, to: .xyzD50)
        let inputs: [SIMD3<Double>] = (0..<256).map { (i: Int) -> SIMD3<Double> in
            let t = Double(i)
            return SIMD3(t / 255, (255 - t) / 255, Double(i % 17) / 16)
        }
        let serial = inputs.map { transform.convert($0) }
        let results = ResultSlots(count: inputs.count)
        DispatchQueue.concurrentPerform(iterations: inputs.count) { i in
            results.store(transform.convert(inputs[i]), at: i)
        }
        #expect(results.values == serial)
    }

    @Test func transformRejectsThreePlaneShortImages() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .sRGB))
        let transform = try ColorTransform(from: profile, to: .xyzD50)
        #expect(throws: ColorManagementError.self) {
            try transform.convert(PlanarImage(width: 2, height: 2, channelCount: 2))
        }
        let empty = try transform.convert(PlanarImage(width: 0, height: 0, channelCount: 3))
        #expect(empty.samples.isEmpty)
    }

    @Test func transformOutlivesItsProfile() throws {
        var profile: ICCProfile? = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .sRGB))
        let transform = try ColorTransform(from: profile!, to: .xyzD50)
        profile = nil
        #expect(isClose(transform.convert(SIMD3(1, 1, 1)), ColorScience.whiteD50XYZ, ColorTolerance.fourDecimals))
    }
}

/// Results written by concurrent iterations, one slot each, behind a lock.
final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [SIMD3<Double>]
    init(count: Int) { storage = Array(repeating: SIMD3(-1, -1, -1), count: count) }
    func store(_ value: SIMD3<Double>, at index: Int) { lock.lock(); storage[index] = value; lock.unlock() }
    var values: [SIMD3<Double>] { lock.lock(); defer { lock.unlock() }; return storage }
}
