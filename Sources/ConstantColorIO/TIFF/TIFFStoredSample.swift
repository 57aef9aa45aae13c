import ConstantColor
import Foundation

/// A sample type as stored in a TIFF file that the reader converts to `Float`.
protocol TIFFDecodedSample {
    /// The sample as a `Float` data number (integers exactly, floats unchanged).
    var floatValue: Float { get }
}

/// A sample type the writer stores too: also converted from `Float`.
protocol TIFFStoredSample: TIFFDecodedSample {
    /// The stored sample nearest to `value`: integers are clamped to the type's range and
    /// rounded to nearest, ties to even (IEEE 754 roundTiesToEven); floats are stored unchanged.
    /// `value` must not be NaN.
    init(roundingAndClamping value: Float)
}

/// 2^23: adding it to a float in [0, 2^23) leaves the value rounded to an integer (ties to even,
/// the default IEEE 754 rounding) in the low mantissa bits; unlike `UInt16(_: Float)` this has
/// no range trap, so the conversion loops vectorize.
@usableFromInline let roundingMagic: Float = 0x1p23

extension UInt8: TIFFStoredSample {
    @inline(__always) var floatValue: Float { Float(self) }
    @inline(__always) init(roundingAndClamping value: Float) {
        let clamped = Swift.min(Swift.max(value, 0), 255)
        self = UInt8(truncatingIfNeeded: (clamped + roundingMagic).bitPattern)
    }
}

extension UInt16: TIFFStoredSample {
    @inline(__always) var floatValue: Float { Float(self) }
    @inline(__always) init(roundingAndClamping value: Float) {
        let clamped = Swift.min(Swift.max(value, 0), 65535)
        self = UInt16(truncatingIfNeeded: (clamped + roundingMagic).bitPattern)
    }
}

extension Float: TIFFStoredSample {
    @inline(__always) var floatValue: Float { self }
    @inline(__always) init(roundingAndClamping value: Float) { self = value }
}

/// A 16-bit IEEE 754 binary16 ("half") sample, as raw developers write linear float TIFFs
/// (darktable's and RawTherapee's 16-bit float export; SampleFormat 3, BitsPerSample 16), read by
/// its bits: every binary16 value is a binary32 value, so the conversion is exact (IEEE
/// 754-2008 §3.6: 1 sign bit, 5 exponent bits with bias 15, 10 fraction bits). Swift's `Float16`
/// is not available on every platform the package builds for (macOS on x86-64), hence the bits.
struct BinaryFloat16: TIFFDecodedSample {
    /// The stored bits.
    var bits: UInt16

    /// The value as `Float`, exactly, without a branch (so that the decoder's loops vectorize): the
    /// exponent and fraction bits moved to binary32's places read as a binary32 of exponent bias
    /// 127, and multiplied by 2¹¹² (127 − 15) that is the value — for normal numbers a change of
    /// exponent, for zeros and subnormals (exponent 0: fraction × 2⁻²⁴) a binary32 subnormal
    /// scaled into the normal range, exact either way; infinities and NaNs (exponent 31) keep
    /// their fraction under binary32's all-ones exponent (a NaN stays a NaN).
    @inline(__always) var floatValue: Float {
        let h = UInt32(bits)
        let magnitudeBits = (h & 0x7FFF) << 13
        let finite = (Float(bitPattern: magnitudeBits) * 0x1p112).bitPattern
        let special = 0x7F80_0000 | (magnitudeBits & 0x007F_E000)
        return Float(bitPattern: (h & 0x8000) << 16 | (h & 0x7C00 == 0x7C00 ? special : finite))
    }
}

/// Finds the first non-finite sample of a planar image in raster order (row, then column, then
/// channel), scanning row bands in parallel. Returns nil when every sample is finite.
func firstNonFiniteSample(_ samples: UnsafeBufferPointer<Float>, width: Int, height: Int,
                          channelCount: Int) -> (x: Int, y: Int, channel: Int)? {
    scanFloatSamples(samples, width: width, height: height, channelCount: channelCount).firstNonFinite
}

/// The first non-finite sample of a planar image in raster order (row, then column, then channel;
/// nil when every sample is finite) and, when there is none, the largest sample: one pass over
/// the samples in parallel row bands (the reader's checks of a float file; a serial `max()` over
/// a 12 MP frame's 36 million samples took longer than decoding them).
///
/// A float is NaN or infinite exactly when its exponent bits are all ones (IEEE 754-2008 §3.4);
/// the scan ORs a per-sample flag over each row, which vectorizes, and only locates the pixel in
/// a row that has one. `largest` is −∞ for an empty image and meaningless when a non-finite
/// sample was found.
func scanFloatSamples(_ samples: UnsafeBufferPointer<Float>, width: Int, height: Int,
                      channelCount: Int) -> (firstNonFinite: (x: Int, y: Int, channel: Int)?, largest: Float) {
    let plane = width * height
    let base = UncheckedSendableBox(samples)
    let found = FirstFinding<(x: Int, y: Int, channel: Int)>()
    var rowLargest = [Float](repeating: -.infinity, count: height)
    rowLargest.withUnsafeMutableBufferPointer { largestBuffer in
        let largestOut = SharedMutableBuffer(largestBuffer)
        forEachRowBand(rowCount: height, minimumRowsPerBand: max(16, (1 << 18) / max(1, width * channelCount))) { rows in
            let p = base.value.baseAddress!
            for y in rows {
                var rowHit: (x: Int, channel: Int)?
                var top = SIMD8<Float>(repeating: -.infinity), tail = -Float.infinity
                for c in 0..<channelCount {
                    let row = UnsafeRawPointer(p + c * plane + y * width).assumingMemoryBound(to: UInt32.self)
                    var flags: UInt32 = 0
                    for x in 0..<width {
                        flags |= (row[x] & 0x7F80_0000) &+ 0x0080_0000
                    }
                    let floats = p + c * plane + y * width
                    guard flags & 0x8000_0000 != 0 else {
                        // All finite: the row's largest, eight lanes at a time.
                        var x = 0
                        while x + 8 <= width {
                            let v = UnsafeRawPointer(floats + x).loadUnaligned(as: SIMD8<Float>.self)
                            top = top.replacingLanes(with: v, where: v .> top)
                            x += 8
                        }
                        while x < width { tail = Swift.max(tail, floats[x]); x += 1 }
                        continue
                    }
                    for x in 0..<width where !floats[x].isFinite {
                        if rowHit == nil || x < rowHit!.x { rowHit = (x, c) }
                        break
                    }
                }
                if let hit = rowHit {
                    found.record(order: y, (hit.x, y, hit.channel))
                    return
                }
                largestOut[y] = Swift.max(top.max(), tail)
            }
        }
    }
    return (found.value, rowLargest.max() ?? -.infinity)
}

/// Keeps the finding with the lowest order among those recorded by parallel row bands.
///
/// Invariant for `@unchecked Sendable`: `order` and `stored` are only touched under `lock`.
final class FirstFinding<Value>: @unchecked Sendable {
    private let lock = NSLockBox()
    private var order = Int.max
    private var stored: Value?

    /// Records `value` if `order` is lower than any recorded so far.
    func record(order: Int, _ value: Value) {
        lock.withLock {
            if order < self.order {
                self.order = order
                stored = value
            }
        }
    }

    /// The recorded value with the lowest order.
    var value: Value? { lock.withLock { stored } }
}

/// A lock (Foundation's `NSLock`) with a closure API.
struct NSLockBox: @unchecked Sendable {
    private let lock = NSLock()
    /// Runs `body` while holding the lock.
    func withLock<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
