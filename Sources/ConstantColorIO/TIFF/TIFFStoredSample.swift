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

    /// The value as `Float`, exactly: zeros and subnormals (exponent 0) are fraction × 2⁻²⁴, normal
    /// numbers move their exponent from bias 15 to bias 127 and their fraction to the top of the
    /// 23 bits, infinities and NaNs (exponent 31) keep their fraction (a NaN stays a NaN).
    @inline(__always) var floatValue: Float {
        let h = UInt32(bits)
        let sign = (h & 0x8000) << 16, exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF
        if exponent == 0 {
            let magnitude = Float(fraction) * 0x1p-24  // exact: fraction < 2¹⁰
            return Float(bitPattern: sign | magnitude.bitPattern)
        }
        if exponent == 31 { return Float(bitPattern: sign | 0x7F80_0000 | fraction << 13) }
        return Float(bitPattern: sign | (exponent + 112) << 23 | fraction << 13)
    }
}

/// Finds the first non-finite sample of a planar image in raster order (row, then column, then
/// channel), scanning row bands in parallel. Returns nil when every sample is finite.
///
/// A float is NaN or infinite exactly when its exponent bits are all ones (IEEE 754-2008 §3.4);
/// the scan ORs a per-sample flag over each row, which vectorizes, and only locates the pixel in
/// a row that has one.
func firstNonFiniteSample(_ samples: UnsafeBufferPointer<Float>, width: Int, height: Int,
                          channelCount: Int) -> (x: Int, y: Int, channel: Int)? {
    let plane = width * height
    let base = UncheckedSendableBox(samples)
    let found = FirstFinding<(x: Int, y: Int, channel: Int)>()
    forEachRowBand(rowCount: height, minimumRowsPerBand: max(16, (1 << 18) / max(1, width * channelCount))) { rows in
        let p = base.value.baseAddress!
        for y in rows {
            var rowHit: (x: Int, channel: Int)?
            for c in 0..<channelCount {
                let row = UnsafeRawPointer(p + c * plane + y * width).assumingMemoryBound(to: UInt32.self)
                var flags: UInt32 = 0
                for x in 0..<width {
                    flags |= (row[x] & 0x7F80_0000) &+ 0x0080_0000
                }
                guard flags & 0x8000_0000 != 0 else { continue }
                let floats = p + c * plane + y * width
                for x in 0..<width where !floats[x].isFinite {
                    if rowHit == nil || x < rowHit!.x { rowHit = (x, c) }
                    break
                }
            }
            if let hit = rowHit {
                found.record(order: y, (hit.x, y, hit.channel))
                return
            }
        }
    }
    return found.value
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
