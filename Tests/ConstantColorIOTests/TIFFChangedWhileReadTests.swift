import ConstantColor
@testable import ConstantColorIO
import CTIFF
import Foundation
import Testing
import TestSupport

@Suite("TIFF reader: a file that changes while it is read")
struct TIFFChangedWhileReadTests {
    /// A 256 × 256 uncompressed 16-bit RGB file in strips of 4 rows (64 strips), its samples `offset` + a ramp.
    static func write(_ path: String, offset: Float) throws {
        var image = PlanarImage(width: 256, height: 256, channelCount: 3)
        for i in image.samples.indices { image.samples[i] = offset + Float(i % 4096) }
        var options = TIFFWriteOptions(sampleType: .uint16)
        options.rowsPerStrip = 4
        try TIFFWriter.write(image, to: path, options: options)
    }

    /// The frame's layout and an output buffer, and `decodeAll`'s failure with `minimumSamplesPerBand`.
    static func decode(_ handle: TIFFHandle, path: String, minimumSamplesPerBand: Int, identity: FileIdentity?) throws -> TIFFError? {
        let layout = try TIFFLayout(handle: handle, path: path, maximumPixelCount: 1 << 20)
        var samples = [Float](repeating: 0, count: layout.width * layout.height * layout.outputChannelCount)
        return samples.withUnsafeMutableBufferPointer { buffer in
            TIFFReader.decodeAll(handle: handle, layout: layout, path: path, output: SharedMutableBuffer(buffer),
                                 minimumSamplesPerBand: minimumSamplesPerBand, identity: identity)
        }
    }

    @Test("a file truncated after it was opened is a one-line error, not a crash (memory-mapped, its lost pages raised SIGBUS)")
    func truncatedAfterOpening() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("frame.tif")
        try Self.write(path, offset: 1000)
        let handle = try TIFFReader.openForReading(path)
        // Half the strips' data gone under the open handle (one band: the handle that was opened).
        #expect(truncate(path, 200_000) == 0)
        let failure = try Self.decode(handle, path: path, minimumSamplesPerBand: 1 << 30, identity: nil)
        #expect(failure != nil && failure!.description.contains("frame.tif") && !failure!.description.contains("\n"),
                "\(String(describing: failure))")
        // Read whole, after the truncation: refused too (the directory is read first).
        #expect(throws: TIFFError.self) { try TIFFReader.read(path: path) }
    }

    @Test("a file replaced by a rename while its bands are read is refused as changed (the bands mixed the two files' pixels, silently); one left alone reads")
    func replacedWhileRead() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("frame.tif"), other = folder.file("other.tif")
        try Self.write(path, offset: 1000)
        try Self.write(other, offset: 2000)
        let handle = try TIFFReader.openForReading(path)
        let identity = FileIdentity(descriptor: TIFFFileno(handle.tif))
        #expect(identity != nil && identity == FileIdentity(path: path))
        #expect(rename(other, path) == 0)
        // Several bands: each opens the path again, which now names the other file.
        let failure = try Self.decode(handle, path: path, minimumSamplesPerBand: 1, identity: identity)
        #expect(failure == .changedWhileRead(path: path), "\(String(describing: failure))")
        #expect(failure?.description.contains("changed while it was being read") == true)
        // Untouched, the same file reads in as many bands.
        try Self.write(other, offset: 3000)
        let fresh = try TIFFReader.openForReading(other)
        #expect(try Self.decode(fresh, path: other, minimumSamplesPerBand: 1, identity: FileIdentity(descriptor: TIFFFileno(fresh.tif))) == nil)
        #expect(try TIFFReader.read(path: other, minimumSamplesPerBand: 1).image.samples[0] == 3000)
    }
}
