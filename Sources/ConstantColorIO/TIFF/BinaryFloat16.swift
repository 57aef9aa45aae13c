/// A 16-bit IEEE 754 binary16 ("half") sample, as raw developers write linear float TIFFs
/// (darktable's and RawTherapee's 16-bit float export; SampleFormat 3, BitsPerSample 16), read by
/// its bits: every binary16 value is a binary32 value, so the conversion is exact (IEEE
/// 754-2008 §3.6: 1 sign bit, 5 exponent bits with bias 15, 10 fraction bits). Swift's `Float16`
/// is not available on every platform the package builds for (macOS on x86-64), hence the bits.
struct BinaryFloat16: TIFFDecodedSample {
    /// The largest finite binary16 value, (2 − 2⁻¹⁰) × 2¹⁵; data numbers above it are stored as infinity.
    static let largestFinite: Float = 65504

    /// The stored bits.
    var bits: UInt16

    /// The value as `Float`, exactly, with selects rather than branches (so that the decoder's loops
    /// vectorize): normal numbers (exponent 1…30) are their exponent and fraction bits moved to
    /// binary32's places — a normal binary32 of exponent bias 127 — times 2¹¹² (127 − 15); zeros and
    /// subnormals (exponent 0) are fraction × 2⁻²⁴, exact in binary32 and touching no binary32
    /// subnormal (which flush-to-zero modes would lose); infinities and NaNs (exponent 31) keep
    /// their fraction under binary32's all-ones exponent (a NaN stays a NaN).
    @inline(__always) var floatValue: Float {
        let h = UInt32(bits)
        let exponent = h & 0x7C00, magnitudeBits = (h & 0x7FFF) << 13
        let normal = (Float(bitPattern: magnitudeBits) * 0x1p112).bitPattern
        let subnormal = (Float(h & 0x3FF) * 0x1p-24).bitPattern
        let special = 0x7F80_0000 | (magnitudeBits & 0x007F_E000)
        let magnitude = exponent == 0 ? subnormal : exponent == 0x7C00 ? special : normal
        return Float(bitPattern: (h & 0x8000) << 16 | magnitude)
    }
}
