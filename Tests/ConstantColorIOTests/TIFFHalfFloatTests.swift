import TestSupport
import ConstantColor
@testable import ConstantColorIO
import CTIFF
import Foundation
import Testing

/// 16-bit IEEE float ("half", binary16) samples, as raw developers export linear float TIFFs.
@Suite("TIFF reader: 16-bit float samples")
struct TIFFHalfFloatTests {
    /// Known answers of IEEE 754-2008 binary16 (§3.6: sign, 5 exponent bits biased by 15, 10
    /// fraction bits), worked by hand: zeros, the smallest and largest subnormals, the smallest
    /// normal, 1/3 rounded, the largest finite, infinities.
    static let knownAnswers: [(bits: UInt16, value: Float)] = [
        (0x0000, 0), (0x3C00, 1), (0x3800, 0.5), (0xC000, -2), (0x5640, 100),
        (0x0001, 0x1p-24), (0x03FF, 1023 * 0x1p-24), (0x0400, 0x1p-14),
        (0x3555, 0.333251953125), (0x7BFF, 65504), (0x7C00, .infinity), (0xFC00, -.infinity),
    ]

    @Test("binary16 bits convert to the exact Float: hand-worked values, the sign of zero, NaN stays NaN")
    func knownBits() {
        for (bits, value) in Self.knownAnswers {
            #expect(BinaryFloat16(bits: bits).floatValue == value, "0x\(String(bits, radix: 16))")
        }
        #expect(BinaryFloat16(bits: 0x8000).floatValue.bitPattern == (-Float(0)).bitPattern)
        for nan: UInt16 in [0x7E00, 0x7C01, 0xFE00, 0x7FFF] { #expect(BinaryFloat16(bits: nan).floatValue.isNaN) }
    }

    #if !(os(macOS) && arch(x86_64))
    @Test("all 65 536 bit patterns convert as the platform's Float16 does (bit for bit; NaNs as NaNs)")
    func everyBitPattern() {
        var mismatches = 0
        for b in 0...UInt16.max {
            let ours = BinaryFloat16(bits: b).floatValue, platform = Float(Float16(bitPattern: b))
            if platform.isNaN ? !ours.isNaN : ours.bitPattern != platform.bitPattern { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
    #endif

    /// An RGB file of 16-bit float samples (interleaved, native byte order) with `configure`
    /// setting further tags.
    static func writeHalfRGB(_ path: String, bits: [UInt16], mode: String = "w",
                             configure: (OpaquePointer) -> Void = { _ in }) -> Bool {
        var fields = RawTIFF.Fields()
        fields.samplesPerPixel = 3
        fields.photometric = UInt16(PHOTOMETRIC_RGB)
        fields.bitsPerSample = 16
        fields.sampleFormat = UInt16(SAMPLEFORMAT_IEEEFP)
        return RawTIFF.write(path, fields, data: RawTIFF.bytes(bits), mode: mode, configure: configure)
    }

    @Test("a 16-bit float RGB file reads to the exact values, little- and big-endian, plain and Deflate with the floating-point predictor",
          arguments: ["plain", "bigEndian", "deflatePredictor3"])
    func readsHalfFile(variant: String) throws {
        let folder = try TemporaryFolder()
        let w = TestImages.width, h = TestImages.height, n = w * h
        // Finite bit patterns of every kind (positive and negative, subnormal, normal), by a fixed rule.
        var bits = [UInt16](repeating: 0, count: 3 * n)
        var rng = SplitMix64(seed: 11)
        for i in bits.indices {
            var b = UInt16(truncatingIfNeeded: rng.next())
            if (b >> 10) & 0x1F == 31 { b &= 0xBFFF }  // exponent 31 (inf, NaN) → 15
            bits[i] = b
        }
        let path = folder.file("half-\(variant).tif")
        let written = Self.writeHalfRGB(path, bits: bits, mode: variant == "bigEndian" ? "wb" : "w") { tif in
            if variant == "deflatePredictor3" {
                _ = cc_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), UInt16(COMPRESSION_ADOBE_DEFLATE))
                _ = cc_tiff_set_u16(tif, UInt32(TIFFTAG_PREDICTOR), UInt16(PREDICTOR_FLOATINGPOINT))
            }
        }
        #expect(written)
        let decoded = try TIFFReader.read(path: path)
        #expect(decoded.isFloatingPoint && decoded.bitsPerSample == 16)
        #expect(decoded.maximumDataNumber == 65504)
        var expected = PlanarImage(width: w, height: h, channelCount: 3)
        for i in 0..<n {
            for c in 0..<3 { expected.samples[c * n + i] = BinaryFloat16(bits: bits[3 * i + c]).floatValue }
        }
        #expect(decoded.image == expected)
        #expect(decoded.largestSample == expected.samples.max())
    }

    @Test("the float scan's largest sample wherever it lies (every column of a 37-wide row, each channel: vector lanes and tail), negative images included")
    func scanFindsLargest() {
        let w = 37, h = 5, n = w * h
        for c in 0..<3 {
            for x in 0..<w {
                for offset: Float in [0, -1000] {
                    var samples = (0..<(3 * n)).map { Float($0 % 11) * 0.5 + offset }
                    samples[c * n + 3 * w + x] = 7 + offset
                    let scan = samples.withUnsafeBufferPointer { scanFloatSamples($0, width: w, height: h, channelCount: 3) }
                    #expect(scan.firstNonFinite == nil && scan.largest == 7 + offset, "c \(c) x \(x): \(scan.largest)")
                }
            }
        }
    }

    @Test("a half file's units are checked like a 32-bit float file's: data scaled 0…1 against a profile in data numbers, a white level above binary16's largest value 65504")
    func unitsWarnings() throws {
        let folder = try TemporaryFolder()
        let n = TestImages.width * TestImages.height
        var bits = [UInt16](repeating: 0x3800, count: 3 * n)  // 0.5
        bits[3 * (n / 2) + 1] = 0x3A00  // 0.75, the largest
        let path = folder.file("scaled.tif")
        #expect(Self.writeHalfRGB(path, bits: bits))
        let scaled = try InputFrame.load(path: path, role: .flash, exposureOverride: "1/60,2.8,100", linearizeICC: false,
                                         whiteLevel: (60000, "camera.json"))
        #expect(scaled.unitsWarnings.count == 1
                && scaled.unitsWarnings[0].contains("largest floating-point sample is 0.75, under 1 % of camera.json's white level 60000"),
                "\(scaled.unitsWarnings)")
        let high = try InputFrame.load(path: path, role: .flash, exposureOverride: "1/60,2.8,100", linearizeICC: false,
                                       whiteLevel: (65535, "camera.json"))
        #expect(high.unitsWarnings.contains { $0.contains("white level 65535.0 is above the largest value of \(path)'s 16-bit float samples (65504)") },
                "\(high.unitsWarnings)")
    }

    @Test("NaN and infinity in a 16-bit float file name the first bad pixel", arguments: [UInt16(0x7E00), 0x7C00, 0xFC00])
    func nonFiniteHalf(_ bad: UInt16) throws {
        let folder = try TemporaryFolder()
        let w = TestImages.width, h = TestImages.height
        var bits = [UInt16](repeating: 0x3C00, count: 3 * w * h)
        bits[(12 * w + 30) * 3 + 0] = bad   // later in raster order
        bits[(5 * w + 8) * 3 + 2] = bad     // the first one
        let path = folder.file("nonfinite-half.tif")
        #expect(Self.writeHalfRGB(path, bits: bits))
        #expect(readError(path) == .nonFinite(path: path, x: 8, y: 5, channel: 2))
    }
}
