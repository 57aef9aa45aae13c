import TestSupport
import CLCMS2
import ConstantColor
import ConstantColorIO
import Foundation
import Testing

@Suite struct ColorICCProfileTests {
    static let spaces: [RGBColorSpace] = [.displayP3, .sRGB]

    @Test(arguments: spaces)
    func generatedProfileParsesBack(_ space: RGBColorSpace) throws {
        let bytes = try ICCProfileFactory.rgbGamma(space: space)
        let profile = try ICCProfile(bytes: bytes, source: "\(space.name).icc")
        #expect(profile.isRGB)
        #expect(profile.colorSpaceSignature == "RGB ")
        #expect(abs(profile.version - 4.3) < 1e-9)
        #expect(profile.isMatrixShaper)
        #expect(!profile.isLinear)
        #expect(profile.profileDescription == "Constant Color \(space.name) D65 gamma 2.2")
    }

    @Test func descriptionNamesSpaceWhiteAndGamma() {
        #expect(ICCProfileFactory.description(space: .displayP3, gamma: 2.2) == "Constant Color Display P3 D65 gamma 2.2")
        #expect(ICCProfileFactory.description(space: .sRGB, gamma: 1.0) == "Constant Color sRGB D65 gamma 1.0")
        var d50Space = RGBColorSpace.sRGB
        d50Space.white = Chromaticity(x: 0.3457, y: 0.3585)
        #expect(ICCProfileFactory.description(space: d50Space, gamma: 1.8)
                == "Constant Color sRGB white x 0.3457 y 0.3585 gamma 1.8")
    }

    @Test(arguments: spaces)
    func toneCurvesArePureGamma22(_ space: RGBColorSpace) throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: space))
        for channel in 0..<3 {
            for x: Float in [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 1] {
                let y = try #require(profile.linearValue(encoded: x, channel: channel))
                #expect(abs(Double(y) - pow(Double(x), 2.2)) <= ColorTolerance.fourDecimals,
                        "channel \(channel) at \(x): \(y)")
            }
        }
        #expect(profile.linearValue(encoded: 0.5, channel: 3) == nil)
    }

    @Test(arguments: spaces)
    func headerAndTagTableAreThoseOfAV4DisplayProfile(_ space: RGBColorSpace) throws {
        let bytes = try ICCProfileFactory.rgbGamma(space: space)
        // ICC.1:2010 section 7.2: size, version 4.3, class, colour space, PCS, magic.
        #expect(bytes[0..<4].reduce(0) { $0 << 8 | Int($1) } == bytes.count)
        #expect(bytes[8] == 4 && bytes[9] == 0x30)
        #expect(signature(bytes, at: 12) == "mntr")
        #expect(signature(bytes, at: 16) == "RGB ")
        #expect(signature(bytes, at: 20) == "XYZ ")
        #expect(signature(bytes, at: 36) == "acsp")
        // Fixed creation date 2025-01-01 00:00:00.
        #expect(Array(bytes[24..<36]) == [0x07, 0xE9, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0])
        // MD5 profile ID present (ICC.1:2010 section 7.2.18).
        #expect(bytes[84..<100].contains { $0 != 0 })
        let tags = iccTagTable(bytes)
        for tag in ["desc", "cprt", "wtpt", "chad", "rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC"] {
            #expect(tags[tag] != nil, "missing tag \(tag)")
        }
        // v4 stores the TRC as a parametric curve with an s15Fixed16 exponent, not u8Fixed8.
        let trc = try #require(tags["rTRC"])
        #expect(signature(bytes, at: trc.offset) == "para")
        let exponent = bytes[(trc.offset + 12)..<(trc.offset + 16)].reduce(0) { $0 << 8 | Int($1) }
        #expect(abs(Double(exponent) / 65536 - 2.2) < 1.0 / 65536)
    }

    /// The `--linear-space xyz` profile: channels X, Y, Z under D65. Through it the D65 white is
    /// the PCS white, a colour its Bradford-adapted D50 value (CIE 15's white, Lindbloom's matrix
    /// through `ColorScience`), values above 1 pass (float, unbounded), and L*a*b* of the white is
    /// (100, 0, 0); the same bytes every time, the source white recovered as D65.
    @Test func xyzAsRGBProfileMapsD65XYZToThePCS() throws {
        func norm(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
        let bytes = try ICCProfileFactory.xyzAsRGB()
        #expect(try ICCProfileFactory.xyzAsRGB() == bytes)
        // No 'chrm' tag: sRGB's primaries, which cmsCreateRGBProfile wrote, are not these channels'.
        let tags = iccTagTable(bytes)
        #expect(tags["chrm"] == nil && tags["rXYZ"] != nil && tags["chad"] != nil, "\(tags.keys.sorted())")
        let profile = try ICCProfile(bytes: bytes, source: "xyz.icc")
        #expect(profile.isRGB && profile.isMatrixShaper && profile.isLinear && profile.profileDescription == ICCProfileFactory.xyzAsRGBDescription)
        let d65 = ColorScience.whiteD65XYZ, d50 = ColorScience.whiteD50XYZ
        let sourceWhite = try #require(profile.sourceWhiteXYZ)
        #expect(norm(sourceWhite - d65) < 1e-3, "\(sourceWhite)")
        let toXYZ = try ColorTransform(from: profile, to: .xyzD50), toLab = try ColorTransform(from: profile, to: .labD50)
        #expect(norm(toXYZ.convert(d65) - d50) < 2e-4, "\(toXYZ.convert(d65))")
        #expect(norm(toLab.convert(d65) - SIMD3(100, 0, 0)) < 0.02, "\(toLab.convert(d65))")
        let bradford = try ColorScience.bradfordMatrix(fromWhite: d65, toWhite: d50)
        for xyz in [SIMD3(0.2, 0.3, 0.1), SIMD3(0.05, 0.02, 0.3), SIMD3(1.4, 1.5, 1.7)] {
            let expected = bradford * xyz
            #expect(norm(toXYZ.convert(xyz) - expected) < 2e-4 * norm(expected), "\(xyz): \(toXYZ.convert(xyz)) against \(expected)")
        }
    }

    @Test func generationIsReproducibleAndDiffersBySpace() throws {
        let p3 = try ICCProfileFactory.rgbGamma(space: .displayP3)
        #expect(try ICCProfileFactory.rgbGamma(space: .displayP3) == p3)
        let srgb = try ICCProfileFactory.rgbGamma(space: .sRGB)
        #expect(srgb != p3)
        #expect(srgb[84..<100] != p3[84..<100])
    }

    @Test(arguments: spaces)
    func whitesAreD50MediaAndD65Source(_ space: RGBColorSpace) throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: space))
        let media = try #require(profile.mediaWhitePointXYZ)
        let source = try #require(profile.sourceWhiteXYZ)
        // s15Fixed16 storage: 1/65536 per component, then a matrix inverse.
        #expect(isClose(media, ColorScience.whiteD50XYZ, ColorTolerance.fourDecimals), "wtpt \(media)")
        #expect(isClose(source, ColorScience.whiteD65XYZ, ColorTolerance.fourDecimals), "chad⁻¹·wtpt \(source)")
    }

    @Test func gammaOneProfileIsLinear() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .displayP3, gamma: 1.0))
        #expect(profile.isLinear)
        #expect(profile.profileDescription == "Constant Color Display P3 D65 gamma 1.0")
    }

    @Test func gammaCloseToOneIsNotLinear() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .sRGB, gamma: 1.05))
        #expect(!profile.isLinear)
    }

    @Test func invalidGammaOrPrimariesThrow() {
        for gamma in [0, -2.2, .nan, .infinity, 40000] {
            #expect(throws: ColorManagementError.self) { try ICCProfileFactory.rgbGamma(space: .sRGB, gamma: gamma) }
        }
        var bad = RGBColorSpace.sRGB
        bad.green = Chromaticity(x: 0.3, y: 0)
        #expect(throws: ColorManagementError.self) { try ICCProfileFactory.rgbGamma(space: bad) }
        var collinear = RGBColorSpace.sRGB
        collinear.green = Chromaticity(x: 0.395, y: 0.195)  // on the line from red to blue
        #expect(throws: ColorManagementError.self) { try ICCProfileFactory.rgbGamma(space: collinear) }
    }

    // MARK: linearize

    @Test func linearizeInvertsA22Encoding() throws {
        let bytes = try ICCProfileFactory.rgbGamma(space: .displayP3)
        let profile = try ICCProfile(bytes: bytes)
        // The profile stores 2.2 as s15Fixed16 (ICC.1:2010 section 4.6): round(2.2 · 65536) / 65536
        // = 2.19999695. Encode with that exponent so that only the arithmetic is tested.
        let storedGamma = (2.2 * 65536).rounded() / 65536
        let width = 8, height = 48  // tall enough for several row bands
        let scale: Float = 65535
        var linear = PlanarImage(width: width, height: height, channelCount: 4)
        for c in 0..<4 { for y in 0..<height { for x in 0..<width {
            linear[x, y, c] = Float((x + width * y + 97 * c) % (width * height)) / Float(width * height - 1)
        } } }
        var image = linear
        for c in 0..<3 { for i in 0..<image.pixelCount {
            let v = Double(image.samples[c * image.pixelCount + i])
            image.samples[c * image.pixelCount + i] = Float(65535 * pow(v, 1 / storedGamma))
        } }
        try profile.linearize(&image, scale: scale)
        // Float arithmetic: the encoded value's rounding (2^-24 relative) grows by γ, plus the
        // table's interpolation (< 2e-8 of full scale) and the two scalings: 8 · 2^-24 of scale.
        let tolerance = 8 * scale * Float.ulpOfOne / 2
        var worst: Float = 0
        for c in 0..<3 { for i in 0..<image.pixelCount {
            let expected = scale * linear.samples[c * image.pixelCount + i]
            worst = max(worst, abs(image.samples[c * image.pixelCount + i] - expected))
        } }
        #expect(worst <= tolerance, "worst error \(worst) of 65535")
        // The fourth plane (alpha) is untouched.
        #expect(Array(image.samples[(3 * image.pixelCount)...]) == Array(linear.samples[(3 * linear.pixelCount)...]))
    }

    @Test func linearizeHandlesOutOfRangeAndNaN() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .sRGB))
        var image = PlanarImage(width: 4, height: 1, channelCount: 3,
                                samples: [1.2, -0.1, .nan, 0.5, 1.2, -0.1, .nan, 0.5, 1.2, -0.1, .nan, 0.5])
        try profile.linearize(&image, scale: 1)
        for c in 0..<3 {
            #expect(abs(Double(image[0, 0, c]) - pow(1.2, 2.2)) <= 1e-5)  // parametric curve extends past 1
            #expect(image[1, 0, c] == 0)                                  // ICC type 0 curve is 0 below 0
            #expect(image[2, 0, c].isNaN)
            #expect(abs(Double(image[3, 0, c]) - pow(0.5, 2.2)) <= 1e-6)
        }
    }

    @Test func linearizeWithLinearProfileIsIdentity() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .sRGB, gamma: 1))
        let original = PlanarImage(width: 5, height: 3, channelCount: 3,
                                   samples: (0..<45).map { Float($0) / 44 })
        var image = original
        try profile.linearize(&image, scale: 1)
        for (a, b) in zip(image.samples, original.samples) { #expect(abs(a - b) <= 1e-6) }
    }

    @Test func linearizeRejectsBadArguments() throws {
        let profile = try ICCProfile(bytes: ICCProfileFactory.rgbGamma(space: .sRGB))
        var grey = PlanarImage(width: 2, height: 2, channelCount: 1)
        #expect(throws: ColorManagementError.self) { try profile.linearize(&grey, scale: 1) }
        var rgb = PlanarImage(width: 2, height: 2, channelCount: 3)
        for scale: Float in [0, -1, .nan, .infinity] {
            #expect(throws: ColorManagementError.self) { try profile.linearize(&rgb, scale: scale) }
        }
    }

    // MARK: profiles without tone curves

    @Test func lutBasedRGBProfileIsNotLinearAndCannotBeLinearized() throws {
        let profile = try ICCProfile(bytes: Self.linearRGBProfileWithA2B0(), source: "lut.icc")
        #expect(profile.isRGB)
        #expect(!profile.isMatrixShaper)
        #expect(!profile.isLinear)
        #expect(profile.linearValue(encoded: 0.5, channel: 0) == nil)
        var image = PlanarImage(width: 2, height: 2, channelCount: 3)
        let error = #expect(throws: ColorManagementError.self) { try profile.linearize(&image, scale: 1) }
        #expect(error?.description.hasPrefix("lut.icc: ICCProfile.linearize:") == true)
    }

    @Test func labProfileIsNotRGB() throws {
        let profile = try ICCProfile(bytes: Self.lab4Profile())
        #expect(!profile.isRGB)
        #expect(profile.colorSpaceSignature == "Lab ")
        #expect(!profile.isLinear)
        #expect(throws: ColorManagementError.self) { try ColorTransform(from: profile, to: .xyzD50) }
    }

    // MARK: malformed bytes

    @Test func malformedBytesThrow() throws {
        let valid = try ICCProfileFactory.rgbGamma(space: .displayP3)
        var random = SplitMix64(seed: 3)
        var wrongMagic = valid
        wrongMagic[36] = UInt8(ascii: "x")
        var wrongSize = valid
        wrongSize[3] &+= 1  // declares one byte more than present
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("header only", Array(valid.prefix(100))),
            ("random", (0..<600).map { _ in UInt8.random(in: 0...255, using: &random) }),
            ("random with a consistent size", [0, 0, 2, 88] + (4..<600).map { _ in UInt8.random(in: 0...255, using: &random) }),
            ("truncated", Array(valid.dropLast(40))),
            ("wrong magic", wrongMagic),
            ("wrong size", wrongSize),
        ]
        for (name, bytes) in cases {
            let error = #expect(throws: ColorManagementError.self, "\(name)") {
                try ICCProfile(bytes: bytes, source: "bad.icc")
            }
            let text = error?.description ?? ""
            #expect(text.hasPrefix("bad.icc: malformed ICC profile ("), "\(name): \(text)")
            #expect(!text.contains("\n"))
        }
    }

    @Test func corruptToneCurveTagIsMalformed() throws {
        var bytes = try ICCProfileFactory.rgbGamma(space: .displayP3)
        let trc = try #require(iccTagTable(bytes)["rTRC"])
        for (i, ch) in "zzzz".utf8.enumerated() { bytes[trc.offset + i] = ch }
        let error = #expect(throws: ColorManagementError.self) { try ICCProfile(bytes: bytes, source: "corrupt.icc") }
        guard case let .malformedProfile(source, function, message)? = error else {
            Issue.record("expected malformedProfile, got \(String(describing: error))")
            return
        }
        #expect(source == "corrupt.icc")
        #expect(function == "cmsReadTag")
        #expect(message.contains("'rTRC'"), "\(message)")
    }

    @Test func littleCMSMessageIsRoutedIntoTheError() throws {
        var bytes = try ICCProfileFactory.rgbGamma(space: .displayP3)
        bytes[36] = 0  // break the 'acsp' magic
        let error = #expect(throws: ColorManagementError.self) { try ICCProfile(bytes: bytes, source: "magic.icc") }
        guard case let .malformedProfile(_, function, message)? = error else {
            Issue.record("expected malformedProfile, got \(String(describing: error))")
            return
        }
        #expect(function == "cmsOpenProfileFromMem")
        // Little CMS 2.14 logs "not an ICC profile, invalid signature" (cmsio0.c, _cmsReadHeader).
        #expect(message.contains("signature"), "\(message)")
    }

    // MARK: helpers

    /// A linear sRGB matrix/TRC profile that also carries an identity A2B0 lookup table,
    /// built with Little CMS directly.
    static func linearRGBProfileWithA2B0() throws -> [UInt8] {
        let linear = try ICCProfileFactory.rgbGamma(space: .sRGB, gamma: 1)
        let handle = try #require(cmsOpenProfileFromMem(linear, cmsUInt32Number(linear.count)))
        defer { cmsCloseProfile(handle) }
        let pipeline = try #require(cmsPipelineAlloc(nil, 3, 3))
        defer { cmsPipelineFree(pipeline) }
        // lutAtoBType with B curves only (ICC.1:2010 section 10.10); identity curves.
        #expect(cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, nil)) != 0)
        #expect(cmsWriteTag(handle, cmsSigAToB0Tag, UnsafeRawPointer(pipeline)) != 0)
        return try save(handle)
    }

    /// Little CMS's built-in v4 Lab identity profile.
    static func lab4Profile() throws -> [UInt8] {
        let handle = try #require(cmsCreateLab4Profile(nil))
        defer { cmsCloseProfile(handle) }
        return try save(handle)
    }

    static func save(_ handle: cmsHPROFILE) throws -> [UInt8] {
        var size: cmsUInt32Number = 0
        #expect(cmsSaveProfileToMem(handle, nil, &size) != 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        #expect(cmsSaveProfileToMem(handle, &bytes, &size) != 0)
        return bytes
    }
}
