/// Elementary functions on vectors of eight `Float`s in vector arithmetic. The standard library's
/// SIMD `squareRoot()` and `rounded(_:)` fall back to libm lane by lane (`sqrtf` with its errno
/// check, `floorf`) on the baseline x86-64 target, which made them the cost of the hot loops.
extension SIMD8 where Scalar == Float {
    /// `self` with the lanes where `mask` is true taken from `other`, as three bitwise operations on
    /// the mask's vector: the standard library's `replacing(with:where:)` is a loop over the lanes
    /// that the optimizer must put back together into one blend, and in the large kernels (the
    /// confidence pass's) it did not: the values feeding it were computed lane by lane (scalar
    /// Newton steps, a branch per lane). The same lanes, bit for bit, for masks whose lanes are all
    /// ones or all zeros — those of comparisons and their `.!`, `.&`, `.|` — where the standard
    /// library reads only each lane's sign bit.
    @inline(__always) @inlinable public func replacingLanes(with other: SIMD8<Float>, where mask: SIMDMask<SIMD8<Int32>>) -> SIMD8<Float> {
        typealias Bits = SIMDMask<SIMD8<Int32>>
        let kept = unsafeBitCast(self, to: Bits.self), taken = unsafeBitCast(other, to: Bits.self)
        return unsafeBitCast((kept .& .!mask) .| (taken .& mask), to: SIMD8<Float>.self)
    }

    /// `self` with the lanes where `mask` is true set to `value` (`replacingLanes(with:where:)`).
    @inline(__always) @inlinable public func replacingLanes(with value: Float, where mask: SIMDMask<SIMD8<Int32>>) -> SIMD8<Float> {
        replacingLanes(with: SIMD8(repeating: value), where: mask)
    }

    /// 1/√v for v > 0: the bit-trick first guess (error below 3.5 %) refined by `newtonSteps`
    /// Newton steps `y ← y·(3 − v·y²)/2` (two: below 5e-6; three: below 1e-6 for normal v). 0 gives
    /// a large finite value, not ∞.
    @inline(always) @inlinable public func fastInverseSquareRoot(newtonSteps: Int) -> SIMD8<Float> {
        let bits = unsafeBitCast(self, to: SIMD8<UInt32>.self)
        var y = unsafeBitCast(SIMD8<UInt32>(repeating: 0x5F37_59DF) &- (bits &>> 1), to: SIMD8<Float>.self)
        let half = 0.5 * self
        for _ in 0..<newtonSteps { y = y * (1.5 - half * y * y) }
        return y
    }

    /// 0 below `a`, 1 above `b`, `3t² − 2t³` of `t = (v − a)/(b − a)` between (the smoothstep); NaN → 0.
    @inline(always) @inlinable public func smoothstep(from a: Float, to b: Float) -> SIMD8<Float> {
        let zero = SIMD8<Float>(repeating: 0), one = SIMD8<Float>(repeating: 1)
        var t = (self - a) * (1 / (b - a))
        t = t.replacingLanes(with: zero, where: .!(t .> zero)).replacingLanes(with: one, where: t .> one)
        return t * t * (3 - 2 * t)
    }

    /// √v for finite v ≥ 0: v times the reciprocal square root after three Newton steps (relative
    /// error below 1e-6 for normal v; 0 gives 0; subnormal v, below 1.2e-38, are not refined to full
    /// precision).
    @inline(always) @inlinable public var fastSquareRoot: SIMD8<Float> {
        self * fastInverseSquareRoot(newtonSteps: 3)
    }

    /// ⌊v⌋ clamped to [0, `last`] for v below 2²³, by the 2²³ rounding trick: round(v − ½) is ⌊v⌋,
    /// or v − 1 at an exact integer v, where a bilinear fraction of 1 gives the same value (the
    /// standard library's SIMD rounding calls libm per lane). The lower node of a lookup cell.
    @inline(always) @inlinable public func clampedCell(last: SIMD8<Float>) -> SIMD8<Float> {
        let magic = SIMD8<Float>(repeating: 8_388_608)
        let rounded = (self - 0.5 + magic) - magic
        return rounded.replacingLanes(with: 0, where: rounded .< 0).replacingLanes(with: last, where: rounded .> last)
    }

    /// The lanes as integers, for integral values in [0, 2²³): the low bits of 2²³ + v, instead of
    /// a checked Float → Int conversion per lane.
    @inline(always) @inlinable public var exactIntegerLanes: SIMD8<Int32> {
        unsafeBitCast(self + SIMD8<Float>(repeating: 8_388_608), to: SIMD8<Int32>.self) &- 0x4B00_0000
    }

    /// atan(x) for any finite x: a degree-11 odd minimax polynomial on [−1, 1] (absolute error below
    /// 2e-5 rad), and ±π/2 − atan(1/x) beyond.
    @inline(always) @inlinable public var fastArctangent: SIMD8<Float> {
        let x = self
        let big = x.replacingLanes(with: -x, where: x .< 0) .> 1
        let y = x.replacingLanes(with: 1 / x, where: big)
        let y2 = y * y
        var p = SIMD8<Float>(repeating: -0.011_721_20)
        p = p * y2 + 0.052_653_32
        p = p * y2 - 0.116_432_87
        p = p * y2 + 0.193_543_46
        p = p * y2 - 0.332_623_47
        p = p * y2 + 0.999_977_26
        let r = p * y
        let halfPi = SIMD8<Float>(repeating: Float.pi / 2)
        return r.replacingLanes(with: halfPi.replacingLanes(with: -halfPi, where: x .< 0) - r, where: big)
    }

    /// 2^x for x ≤ 0 (clamped at −126): the integer part into the exponent bits, 2^f on [0, 1] by
    /// its Taylor series to degree 6 (relative error below 2e-5).
    @inline(always) @inlinable public var fastExp2: SIMD8<Float> {
        let v = self.replacingLanes(with: -126, where: self .< -126)
        // 1.5·2²³: for |v| < 2²² the sum lies in [2²³, 2²⁴), where the spacing of Floats is 1.
        let magic = SIMD8<Float>(repeating: 12_582_912)
        let n = ((v - 0.5) + magic) - magic  // ⌊v⌋ (or v − 1 at an integer: f = 1 is in range)
        let f = v - n
        var p = SIMD8<Float>(repeating: 1.540_353e-4)
        p = p * f + 1.333_355_8e-3
        p = p * f + 9.618_129e-3
        p = p * f + 5.550_411e-2
        p = p * f + 0.240_226_5
        p = p * f + 0.693_147_2
        p = p * f + 1
        // (n + 127) as the low bits of (n + 127 + 1.5·2²³), shifted into the exponent field.
        let biased = unsafeBitCast(n + 127 + magic, to: SIMD8<UInt32>.self) & SIMD8<UInt32>(repeating: 0xFF)
        return p * unsafeBitCast(biased &<< 23, to: SIMD8<Float>.self)
    }

    /// sin(x) for x in [0, π/3] by its Taylor series to degree 7 (error below 5e-6).
    @inline(always) @inlinable public var fastSine: SIMD8<Float> {
        let x2 = self * self
        var p: SIMD8<Float> = 1.0 / 120 - x2 * (1.0 / 5040)
        p = 1.0 / 6 - x2 * p
        return self * (1 - x2 * p)
    }
}

/// Lane reductions of an eight-lane mask, lane by lane. The standard library's `any(_:)` and
/// `all(_:)` are not inlined in a release build on Linux, nor are `SIMD8.lowHalf` and `highHalf`
/// (each was a call to a generic specialization): each call in the hot loop clobbers every vector
/// register (System V x86-64 saves none), so all of the kernel's live vectors were spilled and
/// reloaded around it. Element reads are inlined.
extension SIMDMask where Storage == SIMD8<Int32> {
    /// Whether any lane is true.
    @inline(always) @inlinable public var anyLane: Bool {
        let b = unsafeBitCast(self, to: SIMD8<Int32>.self)  // a true lane is all ones, a false one 0
        return ((b[0] | b[1]) | (b[2] | b[3]) | (b[4] | b[5]) | (b[6] | b[7])) != 0
    }

    /// Whether every lane is true.
    @inline(always) @inlinable public var allLanes: Bool {
        let b = unsafeBitCast(self, to: SIMD8<Int32>.self)
        return ((b[0] & b[1]) & (b[2] & b[3]) & (b[4] & b[5]) & (b[6] & b[7])) == -1
    }
}
