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
