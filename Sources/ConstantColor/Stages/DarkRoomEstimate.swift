/// Per-pixel flags of the dark-room estimate (bits of a byte).
public enum PixelFlag {
    /// The flash frame is clipped here (any channel).
    public static let flashClipped: UInt8 = 1
    /// The registered ambient sample touches a clipped ambient pixel.
    public static let ambientClipped: UInt8 = 2
    /// The ambient frame has no sample here (outside it after registration).
    public static let noAmbientSample: UInt8 = 4
    /// The frames disagree here: something moved between them (`FrameDisagreement`).
    public static let framesDisagree: UInt8 = 8
}

/// Stage 4 of SPEC: the image the scene would give lit by the flash alone, `D = F − A`, with its
/// per-channel noise variance (flash and registered-ambient variances add; independent frames).
/// The variance is not stored: it is an affine function of `F` and `A = F − D` given by the two
/// frames' noise models (`variance(flash:difference:)`), evaluated where it is needed.
public struct DarkRoomEstimate: Sendable {
    /// `F − A` in normalized camera RGB, 3 planes, flash-frame geometry.
    public var difference: PlanarImage
    /// Noise of the flash frame.
    public var flashNoise: FrameNoise
    /// Noise of the ambient frame (its resampling's averaging is not credited: conservative).
    public var ambientNoise: FrameNoise
    /// `PixelFlag` bits per pixel.
    public var flags: [UInt8]

    /// Subtracts the ambient frame, resampled through `registration` (bilinear, pixel centers at
    /// half-integers), from the flash frame.
    /// - Precondition: the frames have the same size and 3 channels (`FusionPipeline.checkInputs`).
    public init(flash: LinearFrame, ambient: LinearFrame, registration: RegistrationResult) {
        let w = flash.image.width, h = flash.image.height, n = w * h
        precondition(ambient.image.width == w && ambient.image.height == h)
        var difference = PlanarImage(width: w, height: h, channelCount: 3, uninitialized: ())
        var flags: [UInt8] = uninitializedLargeArray(count: n)  // every pixel's flags are written below
        let hm = registration.ambientFromFlash
        let m = hm.m.map { $0 }
        let affine = m[6] == 0 && m[7] == 0 && m[8] == 1
        let fn = flash.noise, an = ambient.noise
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
        ambient.image.samples.withUnsafeBufferPointer { aBuffer in
        flash.clipped.withUnsafeBufferPointer { fcBuffer in
        ambient.clipped.withUnsafeBufferPointer { acBuffer in
        difference.samples.withUnsafeMutableBufferPointer { dBuffer in
        flags.withUnsafeMutableBufferPointer { flBuffer in
            let inputs = UncheckedSendableBox((fBuffer, aBuffer, fcBuffer, acBuffer))
            let d = SharedMutableBuffer(dBuffer)
            let fl = SharedMutableBuffer(flBuffer)
            let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
            forEachRowBand(rowCount: h) { rows in
                let (f, a, fc, ac) = inputs.value
                // (Index arithmetic wraps instead of trapping: every index is inside the frame by
                // construction, and the overflow checks were a third of this loop's instructions.)
                let n2 = 2 &* n
                /// One pixel: `fx, fy` the fractional ambient index of its centre (centre − ½).
                @inline(__always) func pixel(_ i: Int, _ fx: Float, _ fy: Float, inside: Bool) {
                    var flag: UInt8 = fc[i] != 0 ? PixelFlag.flashClipped : 0
                    var ar: Float = 0, ag: Float = 0, ab: Float = 0
                    if inside {
                        // fx, fy ≥ 0: truncation is the floor; the last column and row use the cell before.
                        let x0 = min(Int(fx), w - 2), y0 = min(Int(fy), h - 2)
                        let tx = fx - Float(x0), ty = fy - Float(y0)
                        let j = y0 &* w &+ x0
                        let w00 = (1 - tx) * (1 - ty), w10 = tx * (1 - ty), w01 = (1 - tx) * ty, w11 = tx * ty
                        ar = w00 * a[j] + w10 * a[j &+ 1] + w01 * a[j &+ w] + w11 * a[j &+ w &+ 1]
                        ag = w00 * a[n &+ j] + w10 * a[n &+ j &+ 1] + w01 * a[n &+ j &+ w] + w11 * a[n &+ j &+ w &+ 1]
                        ab = w00 * a[n2 &+ j] + w10 * a[n2 &+ j &+ 1] + w01 * a[n2 &+ j &+ w] + w11 * a[n2 &+ j &+ w &+ 1]
                        if (ac[j] | ac[j &+ 1] | ac[j &+ w] | ac[j &+ w &+ 1]) != 0 { flag |= PixelFlag.ambientClipped }
                    } else {
                        flag |= PixelFlag.noAmbientSample
                    }
                    d[i] = f[i] - ar; d[n &+ i] = f[n &+ i] - ag; d[n2 &+ i] = f[n2 &+ i] - ab
                    fl[i] = flag
                }
                let lastX = Float(w - 1), lastY = Float(h - 1)
                let lastCellX = SIMD8<Float>(repeating: Float(w - 2)), lastCellY = SIMD8<Float>(repeating: Float(h - 2))
                let laneOffsets = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
                /// Eight pixels inside the ambient frame whose bilinear cells are one row of eight
                /// consecutive cells (a small rotation: most chunks): the taps are contiguous vector
                /// loads. Returns false, having written nothing, for any other chunk.
                @inline(__always) func vectorChunk(_ i: Int, _ fx: SIMD8<Float>, _ fy: SIMD8<Float>) -> Bool {
                    // Cells ⌊f⌋ (f − 1 at an exact integer, with weight 1 on the second tap: the same value).
                    let cx = fx.clampedCell(last: lastCellX), cy = fy.clampedCell(last: lastCellY)
                    guard (cy .== cy[0]).allLanes, (cx .== cx[0] + laneOffsets).allLanes else { return false }
                    let tx = fx - cx, ty = fy - cy
                    let w00 = (1 - tx) * (1 - ty), w10 = tx * (1 - ty), w01 = (1 - tx) * ty, w11 = tx * ty
                    let j = Int(cy[0]) &* w &+ Int(cx[0])
                    @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
                        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
                    }
                    @inline(__always) func resampled(_ plane: Int) -> SIMD8<Float> {
                        let p = a.baseAddress! + (plane &+ j)
                        return w00 * load(p) + w10 * load(p + 1) + w01 * load(p + w) + w11 * load(p + w + 1)
                    }
                    @inline(__always) func store(_ v: SIMD8<Float>, _ plane: Int) {
                        UnsafeMutableRawPointer(d.base + (plane &+ i)).storeBytes(of: load(f.baseAddress! + (plane &+ i)) - v, as: SIMD8<Float>.self)
                    }
                    store(resampled(0), 0); store(resampled(n), n); store(resampled(n2), n2)
                    @inline(__always) func bytes(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt8> {
                        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)
                    }
                    let c = ac.baseAddress! + j
                    let ambientClipped = bytes(c) | bytes(c + 1) | bytes(c + w) | bytes(c + w + 1)
                    let none = SIMD8<UInt8>(repeating: 0)
                    let flags = none.replacing(with: PixelFlag.flashClipped, where: bytes(fc.baseAddress! + i) .!= none)
                        | none.replacing(with: PixelFlag.ambientClipped, where: ambientClipped .!= none)
                    UnsafeMutableRawPointer(fl.base + i).storeBytes(of: flags, as: SIMD8<UInt8>.self)
                    return true
                }
                for y in rows {
                    let py = Double(y) + 0.5
                    var x = 0
                    if affine {
                        // Eight pixels at a time: the position of the first in Double, the other seven
                        // as Float offsets (error ≤ 8·|m|·2⁻²⁴ px, far below the registration's).
                        let lane = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
                        let stepX = Float(m0) * lane, stepY = Float(m3) * lane
                        while x + 8 <= w {
                            let px = Double(x) + 0.5
                            let fx = Float(m0 * px + m1 * py + m2 - 0.5) + stepX
                            let fy = Float(m3 * px + m4 * py + m5 - 0.5) + stepY
                            let inside = (fx .>= 0) .& (fy .>= 0) .& (fx .<= lastX) .& (fy .<= lastY)
                            let allInside = inside.allLanes
                            if allInside, vectorChunk(y &* w &+ x, fx, fy) { x += 8; continue }
                            for k in 0..<8 {
                                pixel(y &* w &+ x &+ k, fx[k], fy[k], inside: allInside || inside[k])
                            }
                            x += 8
                        }
                    }
                    while x < w {
                        let px = Double(x) + 0.5
                        // Ambient position of this flash pixel's center, as a fractional index.
                        var ax = m0 * px + m1 * py + m2, ay = m3 * px + m4 * py + m5
                        if !affine {
                            let z = m6 * px + m7 * py + m8
                            ax /= z; ay /= z
                        }
                        let fx = ax - 0.5, fy = ay - 0.5
                        let inside = fx >= 0 && fy >= 0 && fx <= Double(w - 1) && fy <= Double(h - 1)
                        pixel(y * w + x, Float(fx), Float(fy), inside: inside)
                        x += 1
                    }
                }
            }
        }}}}}}
        self.difference = difference
        self.flags = flags
        flashNoise = fn
        ambientNoise = an
    }

    /// Subtracts `r·k_c·A_c` instead of `A` (stage 4a, `AmbientRatioEstimate`; `channelScale` k
    /// is 1 but for frames whose channels are on different scales), `r` one value per line along
    /// `readout` (`lineRatios`: per row r(y), or per column r(x)): with `A = F − D`,
    /// `F − r·A = r·D + (1 − r)·F`, without resampling the ambient frame again. The ambient noise
    /// model follows the scaled ambient at the lines' mean ratio r̄ (times the largest k):
    /// σ²(r̄·A) = r̄²·offset + r̄·slope·(r̄·A).
    public mutating func subtractAmbient(lineRatios: [Float], readout: ReadoutAxis = .rows,
                                         channelScale: SIMD3<Float> = SIMD3(1, 1, 1), flash: LinearFrame) {
        let w = difference.width, h = difference.height, n = w * h
        let lines = lineRatios.count
        precondition(lines == (readout == .rows ? h : w) && flash.image.pixelCount == n)
        // r·k_c per channel and line, once.
        let scaled = (0..<3).flatMap { c in lineRatios.map { $0 * channelScale[c] } }
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
        difference.samples.withUnsafeMutableBufferPointer { dBuffer in
        scaled.withUnsafeBufferPointer { ratioBuffer in
            let f = UncheckedSendableBox(fBuffer), ratios = UncheckedSendableBox(ratioBuffer)
            let d = SharedMutableBuffer(dBuffer)
            forEachRowBand(rowCount: h) { rows in
                for y in rows {
                    for c in 0..<3 {
                        let start = c * n + y * w, channelRatios = ratios.value.baseAddress! + c * lines
                        if readout == .rows {
                            let r = channelRatios[y], q = 1 - r
                            for i in start..<(start + w) { d[i] = r * d[i] + q * f.value[i] }
                        } else {
                            for x in 0..<w {
                                let r = channelRatios[x], i = start + x
                                d[i] = r * d[i] + (1 - r) * f.value[i]
                            }
                        }
                    }
                }
            }
        }}}
        let mean = lineRatios.reduce(0) { $0 + Double($1) } / Double(max(1, lineRatios.count)) * Double(channelScale.max())
        ambientNoise.varianceOffset *= Float(mean * mean)
        ambientNoise.varianceSlope *= Float(mean)
    }

    /// Noise variance of a channel of `D` whose flash value is `f` and difference `d`.
    @inlinable public func variance(flash f: Float, difference d: Float) -> Float {
        flashNoise.variance(f) + ambientNoise.variance(f - d)
    }

}
