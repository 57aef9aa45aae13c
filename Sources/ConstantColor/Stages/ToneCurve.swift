#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one global tone curve and the pure power-law encoding of the rendered output (SPEC 2.5).
///
/// Tone: identity up to `knee`, then an exponential shoulder that approaches 1 with a continuous
/// slope: `t(x) = k + (1 − k)(1 − exp(−(x − k)/(1 − k)))` for `x > k`; negative values become 0.
/// Encoding: `V = t^(1/γ)`, γ = 2.2. The same curve is used for every pixel and channel, so
/// lightness order and ratios below the knee survive.
public struct ToneCurve: Sendable {
    /// Where the shoulder starts (linear output units).
    public let knee: Float
    /// The encoding gamma.
    public let gamma: Float
    /// Lookup table over `u = sqrt(x / domain)`, linearly interpolated; tabulating avoids a
    /// `pow` per sample (Halide camera_pipe's curve LUT).
    private let table: [Float]
    private let domain: Float
    private static let tableSize = 8192

    /// Builds the curve's table.
    public init(knee: Float = 0.8, gamma: Float = 2.2) {
        self.knee = knee
        self.gamma = gamma
        domain = 8
        var t = [Float](repeating: 0, count: Self.tableSize + 1)
        for i in 0...Self.tableSize {
            let u = Double(i) / Double(Self.tableSize)
            let x = u * u * Double(domain)
            t[i] = Float(pow(Self.tone(x, knee: Double(knee)), 1 / Double(gamma)))
        }
        table = t
    }

    /// The tone curve alone, exactly.
    public static func tone(_ x: Double, knee k: Double) -> Double {
        if !(x > 0) { return 0 }
        if x <= k { return x }
        return k + (1 - k) * (1 - exp(-(x - k) / (1 - k)))
    }

    /// Tone + encoding of one linear value, exact (reference for tests).
    public func encodeExactly(_ x: Float) -> Float {
        Float(pow(Self.tone(Double(x), knee: Double(knee)), 1 / Double(gamma)))
    }

    /// Tone + encoding of one linear value from the table, in [0, 1].
    @inlinable public func encode(_ x: Float) -> Float {
        guard x > 0 else { return 0 }
        return lookup(x)
    }

    @usableFromInline func lookup(_ x: Float) -> Float {
        let u = min(1, (x / domain).squareRoot()) * Float(Self.tableSize)
        let i = min(Self.tableSize - 1, Int(u))
        let f = u - Float(i)
        return table[i] + f * (table[i + 1] - table[i])
    }

    /// Calls `body` with the table, its domain and its size, for kernels that encode in their own loop
    /// (`code16(_:table:domain:)`).
    public func withTable<R>(_ body: (UnsafeBufferPointer<Float>, Float, Int) -> R) -> R {
        table.withUnsafeBufferPointer { body($0, domain, Self.tableSize) }
    }

    /// Tone + encoding of eight linear values as 16-bit code values, from the table given by
    /// `withTable`: 0…65535 as `Float`, rounded to nearest with ties to even (as the TIFF writer
    /// rounds); negatives and NaN give 0. Vector arithmetic throughout except the table reads
    /// (see `fastSquareRoot` for why not the standard library's SIMD functions).
    @inline(always) @inlinable
    public static func code16(_ x: SIMD8<Float>, table t: UnsafePointer<Float>, domain: Float, size: Int) -> SIMD8<Float> {
        let positive = x .> 0  // false for NaN
        let q = (x.replacingLanes(with: 0, where: .!positive) * (1 / domain)).replacingLanes(with: 1, where: x .> domain)
        let u = q.fastSquareRoot * Float(size)
        // Cell ⌊u⌋, clamped to the last cell.
        let cell = u.clampedCell(last: SIMD8<Float>(repeating: Float(size - 1)))
        let fraction = u - cell
        let k = cell.exactIntegerLanes
        let lo = SIMD8<Float>(t[Int(k[0])], t[Int(k[1])], t[Int(k[2])], t[Int(k[3])],
                              t[Int(k[4])], t[Int(k[5])], t[Int(k[6])], t[Int(k[7])])
        let hi = SIMD8<Float>(t[Int(k[0]) + 1], t[Int(k[1]) + 1], t[Int(k[2]) + 1], t[Int(k[3]) + 1],
                              t[Int(k[4]) + 1], t[Int(k[5]) + 1], t[Int(k[6]) + 1], t[Int(k[7]) + 1])
        let v = lo + fraction * (hi - lo)
        let magic = SIMD8<Float>(repeating: 8_388_608)  // round to nearest, ties to even
        return ((v * 65535 + magic) - magic).replacingLanes(with: 0, where: .!positive)
    }

    /// Encodes a linear image to 16-bit code values (0…65535 as `Float`, as `code16`), in parallel
    /// row bands.
    public func encode16(_ image: PlanarImage) -> PlanarImage {
        var out = PlanarImage(width: image.width, height: image.height, channelCount: image.channelCount, uninitialized: ())
        let w = image.width, planes = image.channelCount, n = image.pixelCount
        withTable { tBuffer, domain, size in
            image.samples.withUnsafeBufferPointer { sBuffer in
                out.samples.withUnsafeMutableBufferPointer { oBuffer in
                    let inputs = UncheckedSendableBox((tBuffer.baseAddress!, sBuffer.baseAddress!))
                    let o = SharedMutableBuffer(oBuffer)
                    forEachRowBand(rowCount: image.height) { rows in
                        let (t, s) = inputs.value
                        for c in 0..<planes {
                            var i = c * n + rows.lowerBound * w
                            let end = c * n + rows.upperBound * w
                            while i < end {
                                let count = min(8, end - i)
                                var x = SIMD8<Float>()
                                if count == 8 { x = UnsafeRawPointer(s + i).loadUnaligned(as: SIMD8<Float>.self) } else {
                                    for k in 0..<count { x[k] = s[i + k] }
                                }
                                let v = Self.code16(x, table: t, domain: domain, size: size)
                                if count == 8 { UnsafeMutableRawPointer(o.base + i).storeBytes(of: v, as: SIMD8<Float>.self) } else {
                                    for k in 0..<count { o[i + k] = v[k] }
                                }
                                i += count
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
