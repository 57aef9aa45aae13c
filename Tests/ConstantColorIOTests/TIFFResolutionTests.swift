import CTIFF
import Foundation
import Testing
import ConstantColor
@testable import ConstantColorIO

/// XResolution, YResolution and ResolutionUnit (282, 283, 296; TIFF 6.0 section 8): kept through a
/// write and read; tags that do not give a pixel size are noted, not used.
@Suite("TIFF resolution")
struct TIFFResolutionTests {
    @Test("the writer stores the resolution it is given and the reader reports it; none written: none read; a resolution of 0 is refused before any file is made")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        let image = TestImages.image(channels: 3, type: .float32, seed: 7)
        let cases = [TIFFResolution(x: 300, y: 150, unit: .inch), TIFFResolution(x: 118.110_236, y: 118.110_236, unit: .centimeter),
                     TIFFResolution.unspecified]
        for (k, r) in cases.enumerated() {
            let path = folder.file("r\(k).tif")
            try TIFFWriter.writeFloat(image, to: path, resolution: r)
            let decoded = try TIFFReader.read(path: path)
            let read = try #require(decoded.resolution)
            // (libtiff keeps the rationals in single precision.)
            #expect(read.unit == r.unit && abs(read.x / r.x - 1) < 1e-7 && abs(read.y / r.y - 1) < 1e-7, "\(read) for \(r)")
            #expect(decoded.resolutionNote == nil && decoded.image == image)
        }
        let plain = folder.file("plain.tif")
        try TIFFWriter.writeFloat(image, to: plain)
        let decoded = try TIFFReader.read(path: plain)
        #expect(decoded.resolution == nil && decoded.resolutionNote == nil)
        let bad = folder.file("bad.tif")
        #expect(throws: TIFFError.self) { try TIFFWriter.writeFloat(image, to: bad, resolution: TIFFResolution(x: 0, y: 300, unit: .inch)) }
        #expect(!FileManager.default.fileExists(atPath: bad))
    }

    /// A 2 × 1 8-bit grey file with the given tags, written with libtiff directly.
    static func tinyFile(_ path: String, x: Double?, y: Double?, unit: UInt16?) throws {
        let tif = try #require(TIFFOpen(path, "w"))
        #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), 2) == 1)
        #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), 1) == 1)
        #expect(cc_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), 8) == 1)
        #expect(cc_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_MINISBLACK)) == 1)
        #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), 1) == 1)
        if let x { #expect(cc_tiff_set_double(tif, UInt32(TIFFTAG_XRESOLUTION), x) == 1) }
        if let y { #expect(cc_tiff_set_double(tif, UInt32(TIFFTAG_YRESOLUTION), y) == 1) }
        if let unit { #expect(cc_tiff_set_u16(tif, UInt32(TIFFTAG_RESOLUTIONUNIT), unit) == 1) }
        var pixels: [UInt8] = [10, 20]
        #expect(TIFFWriteEncodedStrip(tif, 0, &pixels, 2) == 2)
        #expect(TIFFWriteDirectory(tif) == 1)
        TIFFClose(tif)
    }

    @Test("resolutions without a unit are per inch (TIFF's default); a resolution of zero gives none and a note naming the tags")
    func unusableTags() throws {
        let folder = try TemporaryFolder()
        let noUnit = folder.file("nounit.tif")
        try Self.tinyFile(noUnit, x: 240, y: 240, unit: nil)
        #expect(try TIFFReader.read(path: noUnit).resolution == TIFFResolution(x: 240, y: 240, unit: .inch))
        // (libtiff writes the two resolutions together, 0 for one not set, and refuses an unknown unit.)
        let cases: [(Double?, Double?, UInt16?, String)] = [
            (300, nil, 2, "YResolution 0.0"), (0, 0, 3, "XResolution 0.0, YResolution 0.0, ResolutionUnit 3"),
        ]
        for (k, (x, y, unit, detail)) in cases.enumerated() {
            let path = folder.file("u\(k).tif")
            try Self.tinyFile(path, x: x, y: y, unit: unit)
            let decoded = try TIFFReader.read(path: path)
            #expect(decoded.resolution == nil && decoded.image.samples == [10, 20])
            #expect(decoded.resolutionNote?.contains(detail) == true && decoded.resolutionNote?.contains("\n") == false,
                    "\(decoded.resolutionNote ?? "no note")")
        }
    }
}
