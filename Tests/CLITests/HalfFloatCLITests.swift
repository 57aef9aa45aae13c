import ConstantColor
import ConstantColorIO
import CTIFF
import Foundation
import Testing

/// A pair exported as 16-bit float TIFFs (binary16) fuses as its 16-bit integer original does.
@Suite("constant-color fuse: 16-bit float inputs")
struct HalfFloatCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let scene = root + "/fixtures/colorchecker/200lux-4000K-on"
    static let camera = root + "/calibration/synthetic-nikon5100.camera.json"
    static let flash = root + "/calibration/synthetic-phosphor-led-yag.flash.json"

    #if !(os(macOS) && arch(x86_64))
    /// Writes `image` (planar, data numbers) as an interleaved RGB TIFF of binary16 samples, each the
    /// nearest half to the value (Swift's `Float16` rounds to nearest, ties to even); no EXIF.
    static func writeHalf(_ image: PlanarImage, to path: String) -> Bool {
        guard let tif = TIFFOpen(path, "w") else { return false }
        defer { TIFFClose(tif) }
        let w = image.width, h = image.height, n = image.pixelCount, channels = image.channelCount
        var ok = cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(w)) == 1
        ok = ok && cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), UInt32(h)) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), UInt16(channels)) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), 16) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLEFORMAT), UInt16(SAMPLEFORMAT_IEEEFP)) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC),
                                   UInt16(channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB)) == 1
        ok = ok && cc_tiff_set_u16(tif, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)) == 1
        ok = ok && cc_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(h)) == 1
        guard ok else { return false }
        var bits = [UInt16](repeating: 0, count: channels * n)
        for i in 0..<n { for c in 0..<channels { bits[channels * i + c] = Float16(image.samples[c * n + i]).bitPattern } }
        let written = bits.withUnsafeMutableBytes { TIFFWriteEncodedStrip(tif, 0, $0.baseAddress, tmsize_t($0.count)) }
        return Int(written) == 2 * channels * n && TIFFWriteDirectory(tif) == 1
    }

    @Test("the committed 200 lux pair as 16-bit float files: the same decision, confidence and registration as the 16-bit integer files")
    func halfFloatPairFusesLikeIntegers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cc-half-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func file(_ name: String) -> String { folder.appendingPathComponent(name).path }
        var exposures: [String] = []
        for frame in ["flash", "ambient"] {
            let original = try TIFFReader.read(path: Self.scene + "/\(frame).tif")
            #expect(Self.writeHalf(original.image, to: file("\(frame)-half.tif")))
            let e = try #require(original.exposure.settings)
            exposures += ["--\(frame)-exposure", "\(e.exposureTimeSeconds),\(e.fNumber),\(e.isoSpeed)"]
        }
        let half = try TIFFReader.read(path: file("flash-half.tif"))
        #expect(half.isFloatingPoint && half.bitsPerSample == 16)
        func fuse(_ flash: String, _ ambient: String, _ tag: String, _ extra: [String]) throws -> [String: JSONValue] {
            let r = try CLI.run(["fuse", flash, ambient, "--camera", Self.camera, "--flash", Self.flash,
                                 "-o", file("\(tag).tif"), "--report", file("\(tag).json")] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try JSONValue.read(path: file("\(tag).json")).object ?? [:]
        }
        let integers = try fuse(Self.scene + "/flash.tif", Self.scene + "/ambient.tif", "integers", [])
        let floats = try fuse(file("flash-half.tif"), file("ambient-half.tif"), "floats", exposures)
        #expect(floats["decision"] == integers["decision"])
        let a = try #require(integers["centerWeightedMeanConfidence"]?.double)
        let b = try #require(floats["centerWeightedMeanConfidence"]?.double)
        // Binary16 keeps 11 significant bits: 60 000 DN is stored to ±16 DN, under a tenth of the
        // shot noise's σ there (about 490 DN at 0.25 e⁻/DN). Measured: 0.86636 against 0.86639.
        #expect(abs(a - b) < 1.5e-4, "\(a) against \(b)")
        let t = try #require(integers["registration"]?.object?["translationPixels"]?.doubles)
        let u = try #require(floats["registration"]?.object?["translationPixels"]?.doubles)
        #expect(abs(t[0] - u[0]) < 5e-4 && abs(t[1] - u[1]) < 5e-4, "\(t) against \(u)")  // measured 3e-5 px
        // A confidence map is fuse's 32-bit float plane (SPEC 4.4): one of 16-bit floats is not one.
        let size = (try #require(integers["width"]?.double), try #require(integers["height"]?.double))
        var map = PlanarImage(width: Int(size.0), height: Int(size.1), channelCount: 1)
        for i in map.samples.indices { map.samples[i] = 0.5 }
        #expect(Self.writeHalf(map, to: file("half-map.tif")))
        let check = try CLI.run(["check", file("integers.json"), "--roi", "10,10,20,20", "--confidence", file("half-map.tif")])
        #expect(check.status == 2 && check.stderr.contains("one channel of 32-bit float"), "\(check.stderr)")
    }
    #endif
}
