import ConstantColor
import Testing

/// `FileSignature`: the formats' magic numbers, from their specifications.
@Suite("File signatures")
struct FileSignatureTests {
    @Test("known answers: PNG, JPEG, TIFF (both byte orders, BigTIFF), GIF, WebP, HEIF, PDF, ZIP, JSON (after a BOM and whitespace), empty; text and raw bytes are nil")
    func knownAnswers() {
        let cases: [([UInt8], String?)] = [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], "a PNG image"),
            ([0xFF, 0xD8, 0xFF, 0xE1, 0x12, 0x34], "a JPEG image"),
            ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], "a TIFF image"),
            ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], "a TIFF image"),
            ([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0], "a TIFF image"),
            (Array("GIF89a".utf8), "a GIF image"),
            (Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WEBPVP8 ".utf8), "a WebP image"),
            ([0, 0, 0, 24] + Array("ftypheic".utf8), "an ISO media file (HEIF/HEIC, AVIF or MP4)"),
            (Array("%PDF-1.7".utf8), "a PDF document"),
            ([0x50, 0x4B, 0x03, 0x04, 20, 0], "a ZIP archive"),
            ([0xEF, 0xBB, 0xBF, 0x20, 0x0A] + Array("{\"a\": 1}".utf8), "JSON text"),
            (Array("  [1, 2]".utf8), "JSON text"),
            ([], "an empty file"),
            (Array("hello world".utf8), nil),
            ([0x49, 0x49, 0x2A], nil),  // a TIFF header cut short
            ([0x00, 0x01, 0x02, 0x03], nil),
        ]
        for (bytes, kind) in cases { #expect(FileSignature.kind(of: bytes) == kind, "\(bytes)") }
    }
}
