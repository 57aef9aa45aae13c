import ConstantColor
@testable import ConstantColorIO
import CTIFF
import Foundation
import Testing
import TestSupport

@Suite("TIFF exposure tags")
struct TIFFExposureTests {
    /// libtiff 4.5 hands EXIF rationals over as `float`; 2^-23 is float's relative precision
    /// (IEEE 754 binary32), so this is the closest the values can come back.
    static let rationalRelativeTolerance = 1.0 / Double(1 << 23)

    static func expectClose(_ value: Double?, _ expected: Double,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        guard let value else {
            Issue.record("missing value, expected \(expected)", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(value - expected) <= expected * rationalRelativeTolerance,
                "\(value) vs \(expected)", sourceLocation: sourceLocation)
    }

    @Test("exposure in the EXIF sub-IFD and in IFD0 reads back",
          arguments: [false, true])
    func exposureRoundTrip(inIFD0: Bool) throws {
        let folder = try TemporaryFolder()
        let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2.8, isoSpeed: 400)
        let image = TestImages.image(channels: 3, type: .uint16)
        let path = folder.file("exposure.tif")
        try TIFFWriter.write(image, to: path, options: TIFFWriteOptions(
            sampleType: .uint16, compression: .deflate, iccProfile: [1, 2, 3, 4],
            exposure: exposure, exposureInIFD0: inIFD0))

        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.image == image)
        #expect(decoded.iccProfile == [1, 2, 3, 4])
        Self.expectClose(decoded.exposure.exposureTimeSeconds, 1.0 / 60)
        Self.expectClose(decoded.exposure.fNumber, 2.8)
        // A rational libtiff hands over as a float is read as the decimal it stands for (the report
        // said f/2.799999952316284).
        #expect(decoded.exposure.fNumber == 2.8, "\(String(describing: decoded.exposure.fNumber))")
        #expect(decoded.exposure.isoSpeed == 400)
        let settings = try #require(decoded.exposure.settings)
        // t × ISO / N²: the errors of t and of N (twice) add up.
        #expect(abs(settings.radiometricScale / exposure.radiometricScale - 1) <= 3 * Self.rationalRelativeTolerance)

        // Where the tags went: an EXIF sub-IFD pointer, or none and the tags in IFD0.
        let file = try #require(QuietTIFF(path, "r"))
        let tif = file.tif
        var exifOffset: UInt64 = 0
        let hasEXIF = cc_tiff_get_ifd8(tif, UInt32(TIFFTAG_EXIFIFD), &exifOffset) == 1
        #expect(hasEXIF == !inIFD0)
        var ifd0Time = 0.0
        #expect((cc_tiff_get_number(tif, 33434, &ifd0Time) == 1) == inIFD0)
        if inIFD0 {
            #expect(decoded.warnings.contains { $0.contains("33434") }, "libtiff's unknown-tag warning is kept")
        }
    }

    @Test("FocalLength (37386) written beside the exposure reads back; absent, it is nil")
    func focalLengthRoundTrip() throws {
        let folder = try TemporaryFolder()
        let exposure = ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2.8, isoSpeed: 400)
        let image = TestImages.image(channels: 3, type: .uint16)
        var options = TIFFWriteOptions(sampleType: .uint16, exposure: exposure)
        options.focalLengthMillimetres = 35
        try TIFFWriter.write(image, to: folder.file("f35.tif"), options: options)
        Self.expectClose(try TIFFReader.read(path: folder.file("f35.tif")).exposure.focalLengthMillimetres, 35)
        options.focalLengthMillimetres = 23.5
        try TIFFWriter.write(image, to: folder.file("f23.tif"), options: options)
        Self.expectClose(try TIFFReader.read(path: folder.file("f23.tif")).exposure.focalLengthMillimetres, 23.5)
        try TIFFWriter.write(image, to: folder.file("none.tif"), options: TIFFWriteOptions(sampleType: .uint16, exposure: exposure))
        #expect(try TIFFReader.read(path: folder.file("none.tif")).exposure.focalLengthMillimetres == nil)
    }

    @Test("ISO above 65535: EXIF's 65535 with the value in RecommendedExposureIndex, read back as the value; IFD0 cannot hold it")
    func isoAbove65535() throws {
        let folder = try TemporaryFolder()
        let image = TestImages.image(channels: 3, type: .uint16)
        for iso in [65535.0, 102_400, 409_600] {
            let path = folder.file("iso\(Int(iso)).tif")
            try TIFFWriter.write(image, to: path, options: TIFFWriteOptions(
                sampleType: .uint16, exposure: ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2.8, isoSpeed: iso)))
            let decoded = try TIFFReader.read(path: path)
            #expect(decoded.exposure.isoSpeed == iso)
            // 65535 itself ("65535 or more") has no tag giving the value: it is taken, and said.
            #expect(decoded.exposure.notes.isEmpty == (iso != 65535), "\(decoded.exposure.notes)")
            let file = try #require(QuietTIFF(path, "r"))
            var exifOffset: UInt64 = 0
            #expect(cc_tiff_get_ifd8(file.tif, UInt32(TIFFTAG_EXIFIFD), &exifOffset) == 1 && TIFFReadEXIFDirectory(file.tif, exifOffset) == 1)
            var stored = 0.0
            #expect(cc_tiff_get_number(file.tif, UInt32(EXIFTAG_ISOSPEEDRATINGS), &stored) == 1 && stored == min(iso, 65535))
        }
        #expect(throws: TIFFError.self) {
            try TIFFWriter.write(image, to: folder.file("ifd0.tif"), options: TIFFWriteOptions(
                sampleType: .uint16, exposure: ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2.8, isoSpeed: 102_400),
                exposureInIFD0: true))
        }
        // 65535 in IFD0, with no EXIF directory at all: taken, and said as in the EXIF directory.
        try TIFFWriter.write(image, to: folder.file("ifd0-65535.tif"), options: TIFFWriteOptions(
            sampleType: .uint16, exposure: ExposureSettings(exposureTimeSeconds: 1.0 / 60, fNumber: 2.8, isoSpeed: 65535),
            exposureInIFD0: true))
        let ifd0 = try TIFFReader.read(path: folder.file("ifd0-65535.tif"))
        #expect(ifd0.exposure.isoSpeed == 65535)
        #expect(ifd0.exposure.notes.contains { $0.contains("65535 or more") }, "\(ifd0.exposure.notes)")
    }

    @Test("EXIF values win over IFD0 values; each missing EXIF value falls back to IFD0")
    func exifPreferredOverIFD0() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("both.tif")
        // IFD0 holds T=1/30, N=4, ISO 800; the EXIF directory holds only T=1/250 and N=8.
        let tif = try #require(TIFFOpen(path, "w"))
        #expect(TIFFCreateEXIFDirectory(tif) == 0)
        #expect(cc_tiff_set_double(tif, UInt32(EXIFTAG_EXPOSURETIME), 1.0 / 250) == 1)
        #expect(cc_tiff_set_double(tif, UInt32(EXIFTAG_FNUMBER), 8) == 1)
        var offset: UInt64 = 0
        #expect(TIFFWriteCustomDirectory(tif, &offset) == 1)
        #expect(TIFFCreateDirectory(tif) == 0)
        Self.setIFD0Exposure(tif, seconds: 1.0 / 30, fNumber: 4, iso: 800)
        Self.finishTinyImage(tif, exifOffset: offset)

        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.image.samples == [1, 2, 3, 4, 5, 6, 7, 8])
        Self.expectClose(decoded.exposure.exposureTimeSeconds, 1.0 / 250)
        Self.expectClose(decoded.exposure.fNumber, 8)
        #expect(decoded.exposure.isoSpeed == 800)
        // The two directories disagree: said, value by value (the ISO is only in IFD0: no note).
        let notes = decoded.exposure.notes
        #expect(notes.count == 2, "\(notes)")
        #expect(notes.contains { $0.contains("ExposureTime is 1/30 s") && $0.contains("1/250 s") && $0.contains("EXIF value is used") }, "\(notes)")
        #expect(notes.contains { $0.contains("FNumber is f/4 in IFD0 and f/8") }, "\(notes)")
    }

    /// Writes ExposureTime (33434), FNumber (33437) and PhotographicSensitivity (34855) into the
    /// current (IFD0) directory of `tif`, where some tools put them.
    static func setIFD0Exposure(_ tif: OpaquePointer, seconds: Double, fNumber: Double, iso: UInt16) {
        #expect(cc_tiff_register_ifd0_exposure_fields(tif) == 0)
        #expect(cc_tiff_set_double(tif, 33434, seconds) == 1)
        #expect(cc_tiff_set_double(tif, 33437, fNumber) == 1)
        var value = iso
        #expect(cc_tiff_set_u16_array(tif, 34855, 1, &value) == 1)
    }

    /// Points the current (IFD0) directory of `tif` at the EXIF directory written at `exifOffset`,
    /// gives it a 4 × 2 8-bit grey image of the values 1…8, writes it and closes the file.
    static func finishTinyImage(_ tif: OpaquePointer, exifOffset offset: UInt64) {
        #expect(cc_tiff_set_ifd8(tif, UInt32(TIFFTAG_EXIFIFD), offset) == 1)
        #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), 4) == 1)
        #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), 2) == 1)
        #expect(cc_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), 8) == 1)
        #expect(cc_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_MINISBLACK)) == 1)
        #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), 2) == 1)
        var pixels: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(TIFFWriteEncodedStrip(tif, 0, &pixels, 8) == 8)
        #expect(TIFFWriteDirectory(tif) == 1)
        TIFFClose(tif)
    }

    @Test("ISO 65535 with a RecommendedExposureIndex below 65535: the tags contradict each other, and the note says so")
    func iso65535WithSmallerIndex() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("rei.tif")
        let tif = try #require(TIFFOpen(path, "w"))
        #expect(TIFFCreateEXIFDirectory(tif) == 0)
        #expect(cc_tiff_set_double(tif, UInt32(EXIFTAG_EXPOSURETIME), 1.0 / 250) == 1)
        #expect(cc_tiff_set_double(tif, UInt32(EXIFTAG_FNUMBER), 8) == 1)
        var iso: UInt16 = 65535
        #expect(cc_tiff_set_u16_array(tif, UInt32(EXIFTAG_ISOSPEEDRATINGS), 1, &iso) == 1)
        #expect(cc_tiff_set_u32(tif, UInt32(EXIFTAG_RECOMMENDEDEXPOSUREINDEX), 100) == 1)
        var offset: UInt64 = 0
        #expect(TIFFWriteCustomDirectory(tif, &offset) == 1)
        #expect(TIFFCreateDirectory(tif) == 0)
        Self.finishTinyImage(tif, exifOffset: offset)
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.exposure.isoSpeed == 65535)
        #expect(decoded.exposure.notes.count == 1 && decoded.exposure.notes[0].contains("RecommendedExposureIndex is 100, below 65535"),
                "\(decoded.exposure.notes)")
    }

    /// A 3 × 2 grey 8-bit file (samples 1…6) with `tags` in IFD0, written by hand (`HandmadeTIFF`)
    /// into `folder` as `name`, and read back.
    static func tinyFileWithIFD0Tags(_ folder: TemporaryFolder, _ name: String, _ tags: [HandmadeTIFF.Entry]) throws -> DecodedTIFF {
        let path = folder.file(name)
        let bytes = HandmadeTIFF.make(width: 3, height: 2, samplesPerPixel: 1, bitsPerSample: 8, photometric: 1,
                                      data: [1, 2, 3, 4, 5, 6], extra: tags)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try TIFFReader.read(path: path)
    }

    /// A tiny file whose EXIF directory holds 1/250 s, f/8, the given PhotographicSensitivity (none:
    /// nil), SensitivityType and the ISO 12232 parameters (tag → value), read back.
    static func sensitivityFile(_ folder: TemporaryFolder, _ name: String, iso: UInt16?, type: UInt16?,
                                parameters: [UInt32: UInt32]) throws -> DecodedTIFF {
        let path = folder.file(name)
        let tif = try #require(TIFFOpen(path, "w"))
        #expect(TIFFCreateEXIFDirectory(tif) == 0)
        #expect(cc_tiff_set_double(tif, UInt32(EXIFTAG_EXPOSURETIME), 1.0 / 250) == 1)
        #expect(cc_tiff_set_double(tif, UInt32(EXIFTAG_FNUMBER), 8) == 1)
        if var iso { #expect(cc_tiff_set_u16_array(tif, UInt32(EXIFTAG_ISOSPEEDRATINGS), 1, &iso) == 1) }
        if let type { #expect(cc_tiff_set_u16(tif, UInt32(EXIFTAG_SENSITIVITYTYPE), type) == 1) }
        for (tag, value) in parameters { #expect(cc_tiff_set_u32(tif, tag, value) == 1) }
        var offset: UInt64 = 0
        #expect(TIFFWriteCustomDirectory(tif, &offset) == 1)
        #expect(TIFFCreateDirectory(tif) == 0)
        Self.finishTinyImage(tif, exifOffset: offset)
        return try TIFFReader.read(path: path)
    }

    @Test("EXIF 2.3 sensitivity: without PhotographicSensitivity the parameter SensitivityType designates gives the ISO; a PhotographicSensitivity equal to none of the designated parameters is said; without SensitivityType nothing is assumed")
    func sensitivityTypeParameters() throws {
        let folder = try TemporaryFolder()
        let sos = UInt32(EXIFTAG_STANDARDOUTPUTSENSITIVITY), rei = UInt32(EXIFTAG_RECOMMENDEDEXPOSUREINDEX), speed = UInt32(EXIFTAG_ISOSPEED)
        // REI alone (SensitivityType 2), legal EXIF 2.3: ISO 400, no note (it was "PhotographicSensitivity missing").
        let reiOnly = try Self.sensitivityFile(folder, "rei.tif", iso: nil, type: 2, parameters: [rei: 400])
        #expect(reiOnly.exposure.isoSpeed == 400 && reiOnly.exposure.notes.isEmpty, "\(reiOnly.exposure.notes)")
        // ISO speed designated (3) while SOS is there too: the designated one.
        let speedOnly = try Self.sensitivityFile(folder, "speed.tif", iso: nil, type: 3, parameters: [sos: 320, speed: 250])
        #expect(speedOnly.exposure.isoSpeed == 250 && speedOnly.exposure.notes.isEmpty)
        // All three designated (7) and one differing: the first, and a note naming both.
        let all = try Self.sensitivityFile(folder, "all.tif", iso: nil, type: 7, parameters: [sos: 200, rei: 200, speed: 160])
        #expect(all.exposure.isoSpeed == 200 && all.exposure.notes.count == 1
                && all.exposure.notes[0].contains("StandardOutputSensitivity 200 and ISOSpeed 160"), "\(all.exposure.notes)")
        // PhotographicSensitivity 200 beside the REI 100 SensitivityType designates: said, 200 used.
        let contradicting = try Self.sensitivityFile(folder, "contra.tif", iso: 200, type: 2, parameters: [rei: 100])
        #expect(contradicting.exposure.isoSpeed == 200 && contradicting.exposure.notes.count == 1
                && contradicting.exposure.notes[0].contains("PhotographicSensitivity is 200 but SensitivityType 2 says it records RecommendedExposureIndex 100"),
                "\(contradicting.exposure.notes)")
        // Two designated (4: SOS and REI) that differ, PhotographicSensitivity equal to one of them
        // (it holds one of the parameters): no contradiction. Equal to neither: said, naming both.
        let oneOfTwo = try Self.sensitivityFile(folder, "sos-rei.tif", iso: 100, type: 4, parameters: [sos: 100, rei: 200])
        #expect(oneOfTwo.exposure.isoSpeed == 100 && oneOfTwo.exposure.notes.isEmpty, "\(oneOfTwo.exposure.notes)")
        let neither = try Self.sensitivityFile(folder, "neither.tif", iso: 160, type: 4, parameters: [sos: 100, rei: 200])
        #expect(neither.exposure.isoSpeed == 160 && neither.exposure.notes.count == 1
                && neither.exposure.notes[0].contains("records StandardOutputSensitivity 100 and RecommendedExposureIndex 200 (EXIF 2.3 has it equal to one of them"),
                "\(neither.exposure.notes)")
        // Agreeing: nothing said.
        let agreeing = try Self.sensitivityFile(folder, "agree.tif", iso: 100, type: 6, parameters: [rei: 100, speed: 100])
        #expect(agreeing.exposure.isoSpeed == 100 && agreeing.exposure.notes.isEmpty)
        // No SensitivityType: REI alone does not say what PhotographicSensitivity would be (nothing
        // assumed), and REI beside another PhotographicSensitivity is no contradiction.
        let untyped = try Self.sensitivityFile(folder, "untyped.tif", iso: nil, type: nil, parameters: [rei: 400])
        #expect(untyped.exposure.isoSpeed == nil && untyped.exposure.missingTagNames.contains("PhotographicSensitivity"))
        let untypedBeside = try Self.sensitivityFile(folder, "untyped2.tif", iso: 200, type: nil, parameters: [rei: 100])
        #expect(untypedBeside.exposure.isoSpeed == 200 && untypedBeside.exposure.notes.isEmpty)
    }

    @Test("a camera's rationals are read exactly (1/79 s, f/1.8 as 18/10: the quotient, not libtiff's float of it), in IFD0 and in the EXIF directory; the float-exact rationals libtiff writes read as their shortest decimal, as before")
    func rationalsReadExactly() throws {
        let folder = try TemporaryFolder()
        let decoded = try Self.tinyFileWithIFD0Tags(folder, "ifd0.tif", [
            HandmadeTIFF.rational(33434, 1, 79), HandmadeTIFF.rational(33437, 18, 10), HandmadeTIFF.long(34855, [100])])
        #expect(decoded.exposure.exposureTimeSeconds == 1.0 / 79 && decoded.exposure.fNumber == 1.8, "\(decoded.exposure)")
        // The writer's own file (libtiff stores 0.01 as the float's quotient), then 1/79 patched in.
        let exif = folder.file("exif.tif")
        var written = try Self.fileWithEXIF(at: exif).bytes
        #expect(try TIFFReader.read(path: exif).exposure.exposureTimeSeconds == 0.01)
        #expect(TIFFBytes.setEXIFRational(&written, tag: 33434, 1, 79))
        try Data(written).write(to: URL(fileURLWithPath: exif))
        #expect(try TIFFReader.read(path: exif).exposure.exposureTimeSeconds == 1.0 / 79)
    }

    @Test("a directory entry's values fit in its field by count, and a damaged BigTIFF count (2^63) does not overflow (it trapped)")
    func entryValuesFitWithoutOverflow() {
        #expect(TIFFRawDirectory.fitsInEntry(valueSize: 2, count: 2, fieldSize: 4))
        #expect(!TIFFRawDirectory.fitsInEntry(valueSize: 2, count: 3, fieldSize: 4))
        #expect(TIFFRawDirectory.fitsInEntry(valueSize: 8, count: 1, fieldSize: 8) && !TIFFRawDirectory.fitsInEntry(valueSize: 8, count: 1, fieldSize: 4))
        #expect(!TIFFRawDirectory.fitsInEntry(valueSize: 2, count: 0x8000_0000_0000_0000, fieldSize: 8))
        #expect(!TIFFRawDirectory.fitsInEntry(valueSize: 8, count: .max, fieldSize: 8))
    }

    @Test("a SensitivityType of another type holding NaN or a huge value (a DOUBLE in IFD0) is no type: nothing assumed, no trap")
    func sensitivityTypeOfAnotherType() throws {
        let folder = try TemporaryFolder()
        for (k, value) in [Double.nan, 1e300, 2.5, 2].enumerated() {
            let decoded = try Self.tinyFileWithIFD0Tags(folder, "st\(k).tif", [
                HandmadeTIFF.rational(33434, 1, 125), HandmadeTIFF.rational(33437, 4, 1), HandmadeTIFF.double(34864, value),
                HandmadeTIFF.long(34866, [400])])
            // Only the whole number 2 designates RecommendedExposureIndex.
            #expect(decoded.exposure.isoSpeed == (value == 2 ? 400 : nil), "\(value): \(decoded.exposure)")
        }
    }

    /// An exposure tag stored twice in one directory with different values (a hand-edited or damaged
    /// file): libtiff keeps the last entry without a word, so the exposure used depended on the
    /// entries' order (a probe: 1/80 then 1/100 s read 0.01 s, the other order 0.0125 s, and fused).
    /// Neither is used, and the note says why; the same value twice is no ambiguity.
    @Test("an exposure tag stored twice with different values is used neither way, and said; twice the same value is used")
    func duplicateExposureTags() throws {
        let folder = try TemporaryFolder()
        for (first, second) in [(80, 100), (100, 80)] {
            let decoded = try Self.tinyFileWithIFD0Tags(folder, "dup\(first).tif", [
                HandmadeTIFF.rational(33434, 1, UInt32(first)), HandmadeTIFF.rational(33434, 1, UInt32(second)),
                HandmadeTIFF.rational(33437, 4, 1), HandmadeTIFF.long(34855, [100])])
            #expect(decoded.exposure.exposureTimeSeconds == nil, "\(decoded.exposure)")
            #expect(decoded.exposure.fNumber == 4 && decoded.exposure.isoSpeed == 100)
            #expect(decoded.exposure.notes.contains { $0.contains("ExposureTime appears 2 times in IFD0 with different values") },
                    "\(decoded.exposure.notes)")
        }
        let same = try Self.tinyFileWithIFD0Tags(folder, "same.tif", [
            HandmadeTIFF.rational(33434, 1, 80), HandmadeTIFF.rational(33434, 1, 80),
            HandmadeTIFF.rational(33437, 4, 1), HandmadeTIFF.long(34855, [100])])
        #expect(same.exposure.exposureTimeSeconds == 1.0 / 80 && same.exposure.notes.isEmpty, "\(same.exposure)")
    }

    @Test("IFD0 tags of other TIFF types are read: RATIONAL, DOUBLE, LONG")
    func ifd0OtherTypes() throws {
        let folder = try TemporaryFolder()
        let decoded = try Self.tinyFileWithIFD0Tags(folder, "types.tif", [
            HandmadeTIFF.rational(33434, 1, 125), HandmadeTIFF.double(33437, 5.6), HandmadeTIFF.long(34855, [3200])])
        #expect(decoded.image.samples == [1, 2, 3, 4, 5, 6])
        Self.expectClose(decoded.exposure.exposureTimeSeconds, 1.0 / 125)
        #expect(decoded.exposure.fNumber == 5.6)
        #expect(decoded.exposure.isoSpeed == 3200)
    }

    /// An 8-bit RGB file with exposure 0.01 s, f/4, ISO 100 in its EXIF directory (written first,
    /// right after the 8-byte header) at `path`: the image and the file's bytes, for a test to damage.
    static func fileWithEXIF(at path: String) throws -> (image: PlanarImage, bytes: [UInt8]) {
        let image = TestImages.image(channels: 3, type: .uint8)
        try TIFFWriter.write(image, to: path, options: TIFFWriteOptions(
            sampleType: .uint8, exposure: ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 4, isoSpeed: 100)))
        return (image, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// `fileWithEXIF`'s file with its EXIF directory's entry `entry` (which must be `tag`, of TIFF
    /// type `from`) given type `to`, read back.
    static func fileWithEXIFEntryRetyped(entry: Int, tag: UInt16, from: UInt8, to: UInt8,
                                         sourceLocation: SourceLocation = #_sourceLocation) throws -> DecodedTIFF {
        let folder = try TemporaryFolder()
        let path = folder.file("retyped.tif")
        var bytes = try fileWithEXIF(at: path).bytes
        let at = 10 + 12 * entry  // the directory at offset 8: its count, then 12-byte entries
        #expect(Array(bytes[at..<(at + 4)]) == [UInt8(tag & 0xFF), UInt8(tag >> 8), from, 0],
                "tag \(tag) of type \(from) expected at offset \(at)", sourceLocation: sourceLocation)
        bytes[at + 2] = to
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try TIFFReader.read(path: path)
    }

    @Test("a damaged EXIF directory is a warning, not an error")
    func damagedEXIF() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("damaged-exif.tif")
        // Wreck the EXIF directory's entry count.
        let written = try Self.fileWithEXIF(at: path)
        var bytes = written.bytes
        #expect(Array(bytes[8..<10]) == [3, 0], "three EXIF entries expected at offset 8")
        bytes[8] = 0xFF
        bytes[9] = 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.image == written.image)
        #expect(decoded.exposure.settings == nil)
        #expect(decoded.warnings.contains { $0.contains("EXIF directory") }, "\(decoded.warnings)")
        // Also a note on the exposure, so that a refusal says the directory is unreadable, not the tags missing.
        #expect(decoded.exposure.notes.contains { $0.contains("EXIF directory at offset 8 could not be read") }, "\(decoded.exposure.notes)")
    }

    @Test("ISO 65535 in IFD0 beside an EXIF directory that cannot be read: IFD0's values are used, the 65535 note and the unreadable directory both said")
    func iso65535InIFD0WithUnreadableEXIF() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("ifd0-65535-bad-exif.tif")
        let tif = try #require(TIFFOpen(path, "w"))
        Self.setIFD0Exposure(tif, seconds: 1.0 / 30, fNumber: 4, iso: 65535)
        Self.finishTinyImage(tif, exifOffset: 1 << 30)  // far beyond the file's end
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.exposure.isoSpeed == 65535 && decoded.exposure.fNumber == 4)
        let notes = decoded.exposure.notes
        #expect(notes.contains { $0.contains("65535 or more") } && notes.contains { $0.contains("could not be read") }, "\(notes)")
    }

    @Test("an exposure tag stored with a type libtiff refuses reads as absent, and libtiff's reason is kept in the notes")
    func wrongTypeExposureTag() throws {
        // The EXIF directory's first entry is ExposureTime (33434), RATIONAL (5): made ASCII (2).
        let decoded = try Self.fileWithEXIFEntryRetyped(entry: 0, tag: 33434, from: 5, to: 2)
        #expect(decoded.exposure.exposureTimeSeconds == nil && decoded.exposure.fNumber == 4 && decoded.exposure.isoSpeed == 100)
        #expect(decoded.exposure.notes.contains { $0.contains("ExposureTime") && $0.contains("libtiff") }, "\(decoded.exposure.notes)")
    }

    @Test("an EXIF exposure tag of another numeric type than EXIF 2.3 gives it (ISO as LONG) is read from its entry, as in IFD0, and its type said")
    func otherNumericTypeInEXIF() throws {
        // The EXIF directory's third entry is PhotographicSensitivity (34855), SHORT (3), its value
        // left-justified in the field: as LONG (4) the same bytes hold the same 100.
        let decoded = try Self.fileWithEXIFEntryRetyped(entry: 2, tag: 34855, from: 3, to: 4)
        #expect(decoded.exposure.settings == ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 4, isoSpeed: 100))
        let notes = decoded.exposure.notes
        #expect(notes == ["ISOSpeedRatings in the EXIF directory is stored as LONG (EXIF 2.3 gives it SHORT): its value 100 is used"],
                "\(notes)")
    }

    @Test("an exposure rational with a zero denominator (1/0) has no value: absent, and the note says how it is stored")
    func zeroDenominator() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("one-over-zero.tif")
        var bytes = try Self.fileWithEXIF(at: path).bytes
        #expect(TIFFBytes.setEXIFRational(&bytes, tag: 33434, 1, 0))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.exposure.exposureTimeSeconds == nil && decoded.exposure.fNumber == 4)
        #expect(decoded.exposure.notes.contains("ExposureTime in the EXIF directory is stored as 1/0, which has no value (a zero denominator)"),
                "\(decoded.exposure.notes)")
        let ifd0 = try Self.tinyFileWithIFD0Tags(folder, "ifd0.tif", [
            HandmadeTIFF.rational(33434, 1, 0), HandmadeTIFF.rational(33437, 4, 1), HandmadeTIFF.short(34855, [100])])
        #expect(ifd0.exposure.exposureTimeSeconds == nil
                && ifd0.exposure.notes.contains("ExposureTime in IFD0 is stored as 1/0, which has no value (a zero denominator)"),
                "\(ifd0.exposure)")
    }

    @Test("partial exposure gives no settings and names what is missing")
    func partialExposure() {
        let fields = ExposureFields(exposureTimeSeconds: 0.01, isoSpeed: 100)
        #expect(fields.settings == nil)
        #expect(fields.missingTagNames == ["FNumber"])
        let complete = ExposureFields(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 100)
        #expect(complete.settings == ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 100))
        #expect(ExposureFields().missingTagNames == ["ExposureTime", "FNumber", "PhotographicSensitivity"])
    }

    @Test("invalid exposure is refused before writing")
    func invalidExposureRefused() throws {
        let folder = try TemporaryFolder()
        let image = TestImages.image(channels: 1, type: .uint8)
        for exposure in [ExposureSettings(exposureTimeSeconds: 0, fNumber: 2, isoSpeed: 100),
                         ExposureSettings(exposureTimeSeconds: 0.01, fNumber: .nan, isoSpeed: 100),
                         ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 0.4),
                         ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 2, isoSpeed: 5e9)] {
            #expect {
                try TIFFWriter.write(image, to: folder.file("e.tif"),
                                     options: TIFFWriteOptions(sampleType: .uint8, exposure: exposure))
            } throws: { error in
                guard case TIFFError.writeFailed = error else { return false }
                return true
            }
        }
        #expect(try folder.contents().isEmpty)
    }
}

@Suite("TIFF files of several images")
struct TIFFImageCountTests {
    @Test("a file of two images reads the first and counts both; a file of one counts one")
    func twoImages() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("two.tif")
        let tif = try #require(TIFFOpen(path, "w"))
        for first: UInt8 in [1, 101] {
            #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), 4) == 1)
            #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), 2) == 1)
            #expect(cc_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), 8) == 1)
            #expect(cc_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_MINISBLACK)) == 1)
            #expect(cc_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), 2) == 1)
            var pixels: [UInt8] = (0..<8).map { first + $0 }
            #expect(TIFFWriteEncodedStrip(tif, 0, &pixels, 8) == 8)
            #expect(TIFFWriteDirectory(tif) == 1)
        }
        TIFFClose(tif)
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.imageCount == 2 && decoded.image.samples == [1, 2, 3, 4, 5, 6, 7, 8])
        let single = folder.file("one.tif")
        // (Its EXIF directory is no image: it hangs off IFD0's tag, not the chain.)
        try TIFFWriter.write(TestImages.image(channels: 3, type: .uint16), to: single, options: TIFFWriteOptions(
            sampleType: .uint16, exposure: ExposureSettings(exposureTimeSeconds: 0.01, fNumber: 4, isoSpeed: 100)))
        #expect(try TIFFReader.read(path: single).imageCount == 1)
    }
}
