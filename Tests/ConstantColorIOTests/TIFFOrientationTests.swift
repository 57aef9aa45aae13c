import Foundation
import Testing
import ConstantColor
@testable import ConstantColorIO

/// The Orientation tag (274, TIFF 6.0 section 8): kept through a write and read, and the map from
/// the image as a viewer shows it to the stored pixels.
@Suite("TIFF orientation")
struct TIFFOrientationTests {
    @Test("the writer stores the orientation it is given and the reader reports it, samples as stored; a value outside 1…8 is refused before any file is made")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        let image = TestImages.image(channels: 3, type: .float32, seed: 5)
        for value in 1...8 {
            let path = folder.file("o\(value).tif")
            try TIFFWriter.writeFloat(image, to: path, orientation: value)
            let decoded = try TIFFReader.read(path: path)
            #expect(decoded.orientation == value && decoded.image == image)
        }
        let bad = folder.file("bad.tif")
        #expect(throws: TIFFError.self) { try TIFFWriter.writeFloat(image, to: bad, orientation: 9) }
        #expect(!FileManager.default.fileExists(atPath: bad))
    }

    /// The stored 3 × 2 image `a b c / d e f` as TIFF 6.0 says a viewer shows it, for each value,
    /// written out by hand from the tag's words ("row 0 right, column 0 top": the stored first row
    /// is the right-hand column, read downward — a landscape sensor shown turned clockwise).
    static let shown: [Int: [String]] = [
        1: ["abc", "def"], 2: ["cba", "fed"], 3: ["fed", "cba"], 4: ["def", "abc"],
        5: ["ad", "be", "cf"], 6: ["da", "eb", "fc"], 7: ["fc", "eb", "da"], 8: ["cf", "be", "ad"],
    ]

    @Test("each orientation's shown pixels are the stored ones TIFF 6.0 puts there", arguments: 1...8)
    func storedPixel(_ value: Int) throws {
        let o = try #require(TIFFOrientation(value))
        let stored = ["abc", "def"].map { Array($0) }
        let rows = Self.shown[value]!.map { Array($0) }
        #expect(o.exchangesAxes == (value >= 5))
        for (v, row) in rows.enumerated() {
            for (u, expected) in row.enumerated() {
                let p = o.storedPixel(shownX: u, shownY: v, width: 3, height: 2)
                #expect(stored[p.y][p.x] == expected, "orientation \(value), shown (\(u), \(v))")
            }
        }
        #expect(TIFFOrientation(0) == nil && TIFFOrientation(9) == nil)
    }

    @Test("a rectangle of the image as shown covers exactly the stored rectangle it maps to", arguments: 1...8)
    func storedRectangle(_ value: Int) throws {
        let o = try #require(TIFFOrientation(value))
        let w = 7, h = 5
        let shownWidth = o.exchangesAxes ? h : w, shownHeight = o.exchangesAxes ? w : h
        let (x, y, rw, rh) = (1, 2, 3, 2)
        #expect(x + rw <= shownWidth && y + rh <= shownHeight)
        var covered = Set<Int>()
        for v in y..<(y + rh) { for u in x..<(x + rw) { let p = o.storedPixel(shownX: u, shownY: v, width: w, height: h); covered.insert(p.y * w + p.x) } }
        let r = o.storedRectangle(x: x, y: y, width: rw, height: rh, imageWidth: w, imageHeight: h)
        var rectangle = Set<Int>()
        for sy in r.y..<(r.y + r.height) { for sx in r.x..<(r.x + r.width) { rectangle.insert(sy * w + sx) } }
        #expect(covered == rectangle)
    }
}
