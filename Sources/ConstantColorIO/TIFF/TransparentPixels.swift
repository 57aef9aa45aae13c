import Foundation

/// The pixels of a file whose unassociated alpha (ExtraSamples 2) is below full coverage (TIFF 6.0
/// section 18): how many, and the first in raster order. A camera frame holds a measurement in every
/// pixel; alignment and stitching tools mark the pixels they have no data for with alpha 0, and
/// feathered borders with alpha between.
public struct TransparentPixels: Sendable, Equatable {
    /// How many pixels have an alpha below the opaque value (or NaN).
    public var count: Int
    /// The first of them in raster order.
    public var firstX: Int, firstY: Int

    /// Creates a tally.
    public init(count: Int, firstX: Int, firstY: Int) {
        self.count = count; self.firstX = firstX; self.firstY = firstY
    }
}

/// Collects `TransparentPixels` from the decoder's parallel row bands: the count under a lock, the
/// first pixel in raster order by `FirstFinding`.
///
/// Invariant for `@unchecked Sendable`: `count` is only touched under `lock`.
final class TransparentPixelTally: @unchecked Sendable {
    private let lock = NSLockBox()
    private var count = 0
    private let first = FirstFinding<(x: Int, y: Int)>()
    /// The frame's width (raster order of a pixel: y · width + x).
    let width: Int

    init(width: Int) { self.width = width }

    /// Counts the pixels of a block of stored samples whose sample `sample` is not at least
    /// `opaque`: pixel `x` of block row `r` is at `source[r · rowStride + x · pixelStride]`, in the
    /// frame at (`x0 + x`, `y0 + r`).
    func scan<T: TIFFDecodedSample>(_ source: UnsafePointer<T>, rows: Int, columns: Int, rowStride: Int, pixelStride: Int,
                                    sample: Int, opaque: Float, x0: Int, y0: Int) {
        var n = 0, firstFound: (x: Int, y: Int)? = nil
        for r in 0..<rows {
            let s = source + r * rowStride + sample
            for x in 0..<columns where !(s[x * pixelStride].floatValue >= opaque) {
                n += 1
                if firstFound == nil { firstFound = (x0 + x, y0 + r) }
            }
        }
        guard n > 0, let found = firstFound else { return }
        lock.withLock { count += n }
        first.record(order: found.y * width + found.x, found)
    }

    /// The tally, nil where every pixel scanned is opaque.
    var result: TransparentPixels? {
        first.value.map { TransparentPixels(count: lock.withLock { count }, firstX: $0.x, firstY: $0.y) }
    }
}
