import ConstantColor
import ConstantColorIO
import TestSupport
import Foundation
import Testing

/// `InputFrame.load`: the one reader of camera frames for every command and for `ValidationRun`.
@Suite("Input frames: decode, linear light, exposure, warnings")
struct InputFrameTests {
    static let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2.8, isoSpeed: 200)

    /// A 16-bit RGB frame with EXIF exposure (or none), written by `TIFFWriter`.
    static func write(_ path: String, channels: Int = 3, type: TIFFWriteOptions.SampleType = .uint16,
                      exposure: ExposureSettings? = exposure, icc: [UInt8]? = nil) throws {
        var options = TIFFWriteOptions(sampleType: type, exposure: exposure)
        options.iccProfile = icc
        try TIFFWriter.write(TestImages.image(channels: channels, type: type), to: path, options: options)
    }

    @Test("a frame with EXIF: its samples, its exposure, no warnings; the override wins over EXIF")
    func exifAndOverride() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("f.tif")
        try Self.write(path)
        let loaded = try InputFrame.load(path: path, role: .flash, exposureOverride: nil, linearizeICC: false,
                                         whiteLevel: (65535, "camera.json"))
        #expect(loaded.frame.image == TestImages.image(channels: 3, type: .uint16))
        #expect(abs(loaded.frame.exposure.exposureTimeSeconds * 60 - 1) < 1e-6 && loaded.frame.exposure.isoSpeed == 200)
        #expect(loaded.warnings.isEmpty && loaded.unitsWarnings.isEmpty)
        let overridden = try InputFrame.load(path: path, role: .flash, exposureOverride: "1/100,4,400", linearizeICC: false)
        #expect(overridden.frame.exposure == ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 4, isoSpeed: 400))
    }

    /// A frame cut by its last byte, inside the Software tag's value that ends `TIFFWriter`'s files:
    /// libtiff drops the tag with a warning and the pixels are whole. The warning was dropped and the
    /// damaged file passed without a word (a probe); it is said now.
    @Test("a frame cut inside a tag's value: read whole, and said to be damaged")
    func damagedTagIsSaid() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("cut.tif")
        var options = TIFFWriteOptions(sampleType: .uint16, exposure: Self.exposure)
        options.software = "a writer with a long name"
        try TIFFWriter.write(TestImages.image(channels: 3, type: .uint16), to: path, options: options)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.removeLast()
        try bytes.write(to: URL(fileURLWithPath: path))
        let loaded = try InputFrame.load(path: path, role: .flash, exposureOverride: nil, linearizeICC: false,
                                         whiteLevel: (65535, "camera.json"))
        #expect(loaded.frame.image == TestImages.image(channels: 3, type: .uint16))
        #expect(loaded.warnings.contains { $0.hasPrefix("warning: \(path) is damaged (libtiff: ") && $0.contains("IO error") },
                "\(loaded.warnings)")
    }

    @Test("no exposure anywhere: refused naming the file, the missing tags and where to give them")
    func missingExposure() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("a.tif")
        try Self.write(path, exposure: nil)
        #expect {
            _ = try InputFrame.load(path: path, role: .ambient, exposureOverride: nil, linearizeICC: false)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(path + ": no exposure data (") && text.contains("ExposureTime")
                && text.hasSuffix("give --ambient-exposure T,N,ISO")
        }
        #expect {
            _ = try InputFrame.load(path: path, role: .ambient, exposureOverride: nil, linearizeICC: false, overrideHint: "the list's fields")
        } throws: { "\($0)".hasSuffix("give the list's fields") }
        #expect {
            _ = try InputFrame.load(path: path, role: .dark, exposureOverride: "1/60,2.8", linearizeICC: false)
        } throws: { "\($0)".hasPrefix(path + ": --dark-exposure: ") }
    }

    @Test("an exposure tag no camera records (f-number 0, as manual and adapted lenses leave it): refused naming the file, the value and the override that mends it")
    func invalidExposureTag() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("f0.tif")
        // (The writer refuses f/0: the tag is patched to 0/10 afterwards.)
        try Self.write(path)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(TIFFBytes.setEXIFRational(&bytes, tag: 33437, 0, 10))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try InputFrame.load(path: path, role: .flash, exposureOverride: nil, linearizeICC: false)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(path + ": exposure tags (EXIF or IFD0): f-number 0") && !text.contains("\n")
                && text.hasSuffix("; give --flash-exposure T,N,ISO with the capture's values")
        }
        let mended = try InputFrame.load(path: path, role: .flash, exposureOverride: "1/60,2.8,200", linearizeICC: false)
        #expect(mended.frame.exposure.fNumber == 2.8)
    }

    @Test("an unassociated alpha below full coverage (an alignment tool's no-data border) is refused in one line naming the file, the count and the first pixel; an opaque alpha is ignored")
    func transparentPixels() throws {
        let folder = try TemporaryFolder()
        var image = TestImages.image(channels: 4, type: .uint16)
        let n = image.pixelCount, w = image.width
        for i in 0..<n { image.samples[3 * n + i] = 65535 }
        let opaquePath = folder.file("opaque.tif")
        try TIFFWriter.write(image, to: opaquePath, options: TIFFWriteOptions(sampleType: .uint16, exposure: Self.exposure))
        let loaded = try InputFrame.load(path: opaquePath, role: .ambient, exposureOverride: nil, linearizeICC: false)
        #expect(loaded.frame.image == TestImages.withoutExtraChannels(image))
        // The bottom two rows without data (alpha 0), as a registration tool leaves a shifted frame.
        for y in (image.height - 2)..<image.height { for x in 0..<w { image.samples[3 * n + y * w + x] = 0 } }
        let borderPath = folder.file("border.tif")
        try TIFFWriter.write(image, to: borderPath, options: TIFFWriteOptions(sampleType: .uint16, exposure: Self.exposure))
        #expect {
            _ = try InputFrame.load(path: borderPath, role: .ambient, exposureOverride: nil, linearizeICC: false)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(borderPath + ": its alpha channel marks \(2 * w) pixels (8.7 %, the first at x 0, y \(image.height - 2)) as not fully covered")
                && !text.contains("\n")
        }
    }

    @Test("not three channels: refused in one line naming the file")
    func notRGB() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("grey.tif")
        try Self.write(path, channels: 1)
        #expect(throws: InputFrameError(file: path, problem: "has 1 channel(s); camera RGB (3 samples per pixel; extra samples, such as an opaque alpha, are ignored) is required")) {
            _ = try InputFrame.load(path: path, role: .flash, exposureOverride: nil, linearizeICC: false)
        }
    }

    @Test("a float file's largest sample describes its samples as decoded: linearizing them forgets it")
    func largestSampleAfterLinearizing() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("encoded-float.tif")
        var image = PlanarImage(width: 8, height: 4, channelCount: 3)
        for i in image.samples.indices { image.samples[i] = Float(i % 7) / 8 }  // 0…0.75, encoded values
        var options = TIFFWriteOptions(sampleType: .float32, exposure: Self.exposure)
        options.iccProfile = try ICCProfileFactory.rgbGamma(space: .sRGB, gamma: 2.2)
        try TIFFWriter.write(image, to: path, options: options)
        var decoded = try TIFFReader.read(path: path)
        #expect(decoded.largestSample == 0.75)
        #expect(try LinearInput.make(&decoded, linearizeICC: true))
        #expect(decoded.largestSample == nil && (decoded.image.samples.max() ?? 1) < 0.75)
    }

    @Test("a white level beyond the file's codes and 8-bit samples without a profile are said; a non-linear profile is refused unless linearized, then the flash frame's rendering is said")
    func warnings() throws {
        let folder = try TemporaryFolder()
        let eight = folder.file("eight.tif")
        try Self.write(eight, type: .uint8)
        let loaded = try InputFrame.load(path: eight, role: .flash, exposureOverride: nil, linearizeICC: false,
                                         whiteLevel: (4095, "camera.json"))
        #expect(loaded.unitsWarnings.count == 1 && loaded.unitsWarnings[0].contains("camera.json's white level 4095.0 is above the largest code"))
        #expect(loaded.warnings.contains { $0.contains("has 8-bit samples and no ICC profile") })

        let encoded = folder.file("srgb.tif")
        try Self.write(encoded, icc: try ICCProfileFactory.rgbGamma(space: .sRGB, gamma: 2.2))
        #expect {
            _ = try InputFrame.load(path: encoded, role: .flash, exposureOverride: nil, linearizeICC: false)
        } throws: { ($0 as? InputFrameError)?.file == encoded && "\($0)".contains("non-linear") }
        let flash = try InputFrame.load(path: encoded, role: .flash, exposureOverride: nil, linearizeICC: true)
        #expect(flash.warnings.contains { $0.contains("was rendered by its camera") })
        #expect(flash.frame.image != TestImages.image(channels: 3, type: .uint16))
        // The ambient frame's rendering is the flash frame's concern, not its own.
        let ambient = try InputFrame.load(path: encoded, role: .ambient, exposureOverride: nil, linearizeICC: true)
        #expect(ambient.warnings.isEmpty && ambient.frame.image == flash.frame.image)
    }
}
