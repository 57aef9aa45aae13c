import TestSupport
import ConstantColor
import ConstantColorIO
import CTIFF
import Foundation
import Testing

/// One file layout to write and read back.
struct TIFFLayoutCase: CustomTestStringConvertible, Sendable {
    var sampleType: TIFFWriteOptions.SampleType
    var channels: Int
    var planar: Bool
    var tiled: Bool
    var compression: TIFFWriteOptions.Compression
    var predictor: Bool

    var options: TIFFWriteOptions {
        TIFFWriteOptions(sampleType: sampleType, compression: compression, usePredictor: predictor,
                         planar: planar, tileSize: tiled ? 16 : nil, rowsPerStrip: tiled ? nil : 5)
    }

    var testDescription: String {
        "\(sampleType) ×\(channels) \(planar ? "planar" : "chunky") \(tiled ? "tiles16" : "strips5") "
            + "\(compression)\(predictor ? "" : " no-predictor")"
    }

    /// Every sample type × 1/3/4 channels × chunky/planar × strips/tiles × compression, with the
    /// predictor (the default); plus LZW and Deflate without it.
    static let all: [TIFFLayoutCase] = {
        var cases: [TIFFLayoutCase] = []
        for type in TIFFWriteOptions.SampleType.allCases {
            for channels in [1, 3, 4] {
                for planar in [false, true] where !(planar && channels == 1) {
                    for tiled in [false, true] {
                        for compression in TIFFWriteOptions.Compression.allCases {
                            cases.append(TIFFLayoutCase(sampleType: type, channels: channels, planar: planar,
                                                        tiled: tiled, compression: compression, predictor: true))
                        }
                        for compression in [TIFFWriteOptions.Compression.lzw, .deflate] {
                            cases.append(TIFFLayoutCase(sampleType: type, channels: channels, planar: planar,
                                                        tiled: tiled, compression: compression, predictor: false))
                        }
                    }
                }
            }
        }
        return cases
    }()
}

@Suite("TIFF write/read round trip")
struct TIFFRoundTripTests {
    @Test("every layout reads back exactly", arguments: TIFFLayoutCase.all)
    func roundTrip(_ layout: TIFFLayoutCase) throws {
        let folder = try TemporaryFolder()
        let path = folder.file("image.tif")
        var image = TestImages.image(channels: layout.channels, type: layout.sampleType,
                                     seed: UInt64(layout.channels * 31 + (layout.planar ? 7 : 0)))
        // A 4th channel is unassociated alpha: opaque (the largest code, 1 for floats) but for three
        // pixels — one in the first strip or tile, one further on, the last — whose coverage the
        // reader counts (TIFF 6.0 section 18).
        let n = image.pixelCount, w = image.width
        let opaque: Float = [.uint8: 255, .uint16: 65535, .float32: 1][layout.sampleType]!
        let clear = [2 * w + 5, 9 * w + 20, n - 1]
        if layout.channels == 4 {
            for i in 0..<n { image.samples[3 * n + i] = opaque }
            for (k, i) in clear.enumerated() { image.samples[3 * n + i] = [0, opaque / 2, opaque - 1][k] }
        }
        try TIFFWriter.write(image, to: path, options: layout.options)

        let expected = TestImages.withoutExtraChannels(image)
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.image == expected)
        #expect(decoded.bitsPerSample == [.uint8: 8, .uint16: 16, .float32: 32][layout.sampleType])
        #expect(decoded.isFloatingPoint == (layout.sampleType == .float32))
        // A float file's largest sample comes from the reader's finite check (37 columns: the
        // eight-lane loop and its tail).
        #expect(decoded.largestSample == (layout.sampleType == .float32 ? expected.samples.max() : nil))
        #expect(decoded.orientation == 1)
        #expect(decoded.iccProfile == nil)
        #expect(decoded.exposure == ExposureFields())

        // Several parallel bands, each with its own libtiff handle, give the same samples.
        let banded = try TIFFReader.read(path: path, minimumSamplesPerBand: 1)
        #expect(banded.image == expected)
        let coverage = layout.channels == 4 ? TransparentPixels(count: 3, firstX: 5, firstY: 2) : nil
        #expect(decoded.transparentPixels == coverage && banded.transparentPixels == coverage,
                "\(String(describing: decoded.transparentPixels)) / \(String(describing: banded.transparentPixels))")
    }

    @Test("integer output rounds to nearest (ties to even) and clamps")
    func roundingAndClamping() throws {
        let folder = try TemporaryFolder()
        let inputs: [Float] = [-3, 0.49, 0.5, 1.5, 2.5, 3.5, 254.5, 255.2, 300, 65534.4, 65534.5, 70_000, 1e30]
        let image = PlanarImage(width: inputs.count, height: 1, channelCount: 1, samples: inputs)

        let path16 = folder.file("sixteen.tif")
        try TIFFWriter.write(image, to: path16, options: TIFFWriteOptions(sampleType: .uint16))
        #expect(try TIFFReader.read(path: path16).image.samples
                == [0, 0, 0, 2, 2, 4, 254, 255, 300, 65534, 65534, 65535, 65535])

        let path8 = folder.file("eight.tif")
        try TIFFWriter.write(image, to: path8, options: TIFFWriteOptions(sampleType: .uint8))
        #expect(try TIFFReader.read(path: path8).image.samples
                == [0, 0, 0, 2, 2, 4, 254, 255, 255, 255, 255, 255, 255])
    }

    @Test("writeRGB16 and writeFloat convenience writers")
    func convenienceWriters() throws {
        let folder = try TemporaryFolder()
        let rgb = TestImages.image(channels: 3, type: .uint16, seed: 5)
        let icc: [UInt8] = Array(0..<200).map { UInt8($0) }
        let rgbPath = folder.file("rgb16.tif")
        try TIFFWriter.writeRGB16(rgb, to: rgbPath, iccProfile: icc)
        let decodedRGB = try TIFFReader.read(path: rgbPath)
        #expect(decodedRGB.image == rgb)
        #expect(decodedRGB.bitsPerSample == 16)
        #expect(decodedRGB.iccProfile == icc)

        for channels in [1, 3] {
            let values = TestImages.image(channels: channels, type: .float32, seed: 9)
            let floatPath = folder.file("float\(channels).tif")
            try TIFFWriter.writeFloat(values, to: floatPath, compression: .deflate)
            let decoded = try TIFFReader.read(path: floatPath)
            #expect(decoded.image == values)
            #expect(decoded.isFloatingPoint)
        }

        let gray = TestImages.image(channels: 1, type: .uint16)
        #expect(throws: TIFFError.self) { try TIFFWriter.writeRGB16(gray, to: folder.file("x.tif"), iccProfile: nil) }
        let four = TestImages.image(channels: 4, type: .float32)
        #expect(throws: TIFFError.self) { try TIFFWriter.writeFloat(four, to: folder.file("y.tif")) }
        #expect(try folder.contents() == ["float1.tif", "float3.tif", "rgb16.tif"])
    }

    @Test("ICC profile bytes and Software survive; RGBA drops alpha")
    func iccRoundTrip() throws {
        let folder = try TemporaryFolder()
        var rng = SplitMix64(state: 77)
        let icc = (0..<3001).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let image = TestImages.image(channels: 4, type: .uint8)
        let path = folder.file("icc.tif")
        try TIFFWriter.write(image, to: path, options: TIFFWriteOptions(
            sampleType: .uint8, compression: .lzw, iccProfile: icc, software: "constant-color tests"))
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.iccProfile == icc)
        #expect(decoded.image.channelCount == 3)
        #expect(decoded.image == TestImages.withoutExtraChannels(image))
    }

    @Test("big-endian and BigTIFF files read like little-endian classic ones", arguments: ["wb", "w8", "wb8"])
    func byteOrderAndBigTIFF(mode: String) throws {
        let folder = try TemporaryFolder()
        for type in [TIFFWriteOptions.SampleType.uint16, .float32] {
            let image = TestImages.image(channels: 3, type: type, seed: 21)
            var interleaved: [Float] = []
            for i in 0..<image.pixelCount {
                for c in 0..<3 { interleaved.append(image.samples[c * image.pixelCount + i]) }
            }
            var fields = RawTIFF.Fields()
            fields.samplesPerPixel = 3
            fields.photometric = UInt16(PHOTOMETRIC_RGB)
            let data: [UInt8]
            if type == .uint16 {
                fields.bitsPerSample = 16
                data = RawTIFF.bytes(interleaved.map { UInt16($0) })
            } else {
                fields.bitsPerSample = 32
                fields.sampleFormat = UInt16(SAMPLEFORMAT_IEEEFP)
                data = RawTIFF.bytes(interleaved)
            }
            let path = folder.file("\(mode)-\(type).tif")
            #expect(RawTIFF.write(path, fields, data: data, mode: mode))
            let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4))
            #expect(header == (mode.contains("b") ? [0x4D, 0x4D, 0, mode.contains("8") ? 43 : 42]
                                                  : [0x49, 0x49, 43, 0]))
            #expect(try TIFFReader.read(path: path).image == image)
        }
    }

    @Test("a file with many strips and tiles decodes in parallel bands identically")
    func largerBandedRead() throws {
        let folder = try TemporaryFolder()
        let image = TestImages.image(channels: 3, type: .uint16, seed: 3, width: 301, height: 257)
        for options in [TIFFWriteOptions(sampleType: .uint16, compression: .deflate, rowsPerStrip: 3),
                        TIFFWriteOptions(sampleType: .uint16, compression: .lzw, planar: true, tileSize: 32)] {
            let path = folder.file("large.tif")
            try TIFFWriter.write(image, to: path, options: options)
            #expect(try TIFFReader.read(path: path).image == image)
            #expect(try TIFFReader.read(path: path, minimumSamplesPerBand: 1).image == image)
        }
    }
}
