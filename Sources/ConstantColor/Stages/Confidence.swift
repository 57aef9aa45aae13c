/// Stage 6 of SPEC: how far each pixel's color can be trusted, in [0, 1] — computed in the same
/// pass that evaluates the noise-reduced estimate (`NoiseReduction`), because both need the same
/// per-pixel quantities.
///
/// `confidence = 1 / (1 + (σ/σ₀)²) · valid`, where σ is the standard deviation of the pixel's
/// rendered color in CIELAB units, propagated linearly through the white balance, the matrix and the
/// CIE 1976 L*a*b* formulas (CIE 15:2004 §8.2.1) from three independent sources:
/// - the independent noise of the filtered estimate (per channel, from the guided model's window
///   variances, or the raw noise model where the per-pixel check handed the pixel back);
/// - the flash guide's pixel noise `ā·δI`, one error shared by the channels;
/// - the error of an ambient-to-flash exposure ratio known only to a relative
///   `exposureRatioUncertainty` δ: the subtracted ambient `A = F − D` is off by `δ·A`. It is what makes
///   bright ambient light untrustworthy even where the noise is averaged away.
/// Where the frames disagree (local motion, failed registration) `D` has structure the flash frame
/// does not explain; the model's misfit is part of its variance, so σ grows there too.
/// With a flash profile's `ColorimetricUncertainty`, a fourth, independent source: the 3×3 matrix's
/// own error at the pixel's colour, σ_cal² = rms² looked up (bilinearly, in rms²) at the flash-white-
/// balanced camera chromaticity of the pixel's filtered value. It is stored in ΔE00 and added with a
/// factor 1 (1 ΔE00 = 1 σ unit): σ₀ is set against the 3-ΔE00 honesty criterion of SPEC, and converting
/// to ΔE*ab (× S_C = 1 + 0.045 C*, CIE 142-2001) would count the chroma error the criterion discounts.
/// σ₀ = 3 gives 0.8 at σ = 1.5 (a 3-ΔE error then has about 1 % probability) and 0.5 at σ = 3.
/// `valid` is 0 where either frame is clipped (dilated by one pixel to cover the interpolation
/// footprint and blooming) or the ambient frame has no sample, else 1.
public enum Confidence {
    /// σ₀ of the noise term, in CIELAB units.
    public static let noiseScaleDeltaE: Float = 3

    /// Default relative uncertainty of the ambient-to-flash exposure ratio taken from metadata:
    /// shutter times and gains of real cameras differ from their nominal values by a few percent.
    public static let defaultExposureRatioUncertainty: Float = 0.02

    /// Per-pixel uncertainty planes of the filtered estimate, for measurement and tests.
    public struct Uncertainty: Sendable {
        /// Independent noise variance of each channel of the filtered `D`, 3 planes.
        public var variance: PlanarImage
        /// Gain `ā_c` with which the flash guide's pixel noise `δ(F_r + F_g + F_b)` enters each channel.
        public var guideGain: PlanarImage
    }

    /// Replaces `estimate.difference` by its noise-reduced value (the guided `model`, checked pixel
    /// by pixel against the unfiltered value: where they differ by more than 2 — fully by 3 —
    /// standard deviations the model missed that pixel and the unfiltered value takes over) and
    /// returns the confidence map, one plane in flash-frame geometry. `flash` is the normalized flash
    /// frame `D` was made from. With `recordUncertainty`, the per-pixel variances are returned too.
    public static func filterAndMap(estimate: inout DarkRoomEstimate, model: GuidedModel, flash: LinearFrame,
                                    rendering: ColorRendering,
                                    exposureRatioUncertainty: Float = defaultExposureRatioUncertainty,
                                    colorimetricUncertainty: ColorimetricUncertainty.Lookup? = nil,
                                    recordUncertainty: Bool = false) -> (confidence: PlanarImage, uncertainty: Uncertainty?) {
        let w = estimate.difference.width, h = estimate.difference.height, n = w * h
        precondition(flash.image.pixelCount == n && model.width == w && model.height == h)
        let delta = exposureRatioUncertainty
        let xyz = rendering.matrix(to: .xyz), white = WhitePoint.d65XYZ
        // Rows of the camera→XYZ matrix divided by the white's X, Y, Z.
        let mx = SIMD3<Float>(xyz.rows[0].map { Float($0 / white.x) }),
            my = SIMD3<Float>(xyz.rows[1].map { Float($0) }),
            mz = SIMD3<Float>(xyz.rows[2].map { Float($0 / white.z) })
        let flashNoise = estimate.flashNoise, ambientNoise = estimate.ambientNoise
        let flags = estimate.flags  // shared, not copied: only `difference` is written below
        var out = PlanarImage(width: w, height: h, channelCount: 1, uninitialized: ())
        let record = recordUncertainty
        var variance = PlanarImage(width: record ? w : 1, height: record ? h : 1, channelCount: 3)
        var gain = variance
        // Horizontal taps, once.
        let lw = model.lowWidth
        var x0 = [Int](repeating: 0, count: w), x1 = x0, tx = [Float](repeating: 0, count: w)
        for x in 0..<w { (x0[x], x1[x], tx[x]) = GuidedModel.taps(x, subsampling: model.subsampling, count: lw) }
        let constants = KernelConstants(mx: mx, my: my, mz: mz, delta: delta, flashNoise: flashNoise,
                                        ambientNoise: ambientNoise)
        estimate.difference.samples.withUnsafeMutableBufferPointer { dBuffer in
        out.samples.withUnsafeMutableBufferPointer { oBuffer in
        variance.samples.withUnsafeMutableBufferPointer { vBuffer in
        gain.samples.withUnsafeMutableBufferPointer { gBuffer in
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
        flags.withUnsafeBufferPointer { flBuffer in
        model.planes.withUnsafeBufferPointer { mBuffer in
        x0.withUnsafeBufferPointer { x0Buffer in
        x1.withUnsafeBufferPointer { x1Buffer in
        tx.withUnsafeBufferPointer { txBuffer in
        (colorimetricUncertainty?.variance ?? []).withUnsafeBufferPointer { calBuffer in
            let d = SharedMutableBuffer(dBuffer), o = SharedMutableBuffer(oBuffer)
            let vOut = SharedMutableBuffer(vBuffer), gOut = SharedMutableBuffer(gBuffer)
            let calibration = CalibrationGrid(nodes: colorimetricUncertainty == nil ? nil : calBuffer.baseAddress, size: colorimetricUncertainty?.gridSize ?? 0,
                                              inverseWhite: colorimetricUncertainty?.inverseWhite ?? SIMD3(1, 1, 1))
            let inputs = UncheckedSendableBox((fBuffer, flBuffer, mBuffer, x0Buffer, x1Buffer, txBuffer, calibration))
            forEachRowBand(rowCount: h) { rows in
                let (f, flags, planes, x0, x1, tx, calibration) = inputs.value
                // Per band: the vertically interpolated model row, then per pixel ā, b̄, sd (9 rows of w,
                // padded to a multiple of the vector width) and the dilated invalid mask.
                let padded = (w + Lanes.scalarCount - 1) / Lanes.scalarCount * Lanes.scalarCount
                let row = UnsafeMutablePointer<Float>.allocate(capacity: 10 * lw)
                let coefficients = UnsafeMutablePointer<Float>.allocate(capacity: 9 * padded)
                coefficients.initialize(repeating: 0, count: 9 * padded)
                let invalid = UnsafeMutablePointer<Float>.allocate(capacity: padded)
                invalid.initialize(repeating: 1, count: padded)
                let columnFlags = UnsafeMutablePointer<UInt8>.allocate(capacity: w)
                // Inputs and outputs of the partial vector at the row's end.
                let tailIn = UnsafeMutablePointer<Float>.allocate(capacity: 13 * Lanes.scalarCount)
                defer {
                    row.deallocate(); coefficients.deallocate(); invalid.deallocate(); columnFlags.deallocate()
                    tailIn.deallocate()
                }
                for y in rows {
                    model.verticalRow(y, into: row, planes: planes.baseAddress!)
                    // Horizontal interpolation and normalization by the interpolated weight. With 2×2
                    // blocks, pixel 2k takes ¼ of sample k−1 and ¾ of k, pixel 2k+1 ¾ of k and ¼ of k+1
                    // (GuidedModel.taps): sixteen pixels from three shifted loads of eight samples.
                    var vectorPixels = 0..<0
                    if model.subsampling == 2 && lw >= 10 {
                        let kEnd = 1 + (lw - 2) / 8 * 8
                        @inline(__always) func interpolated(_ j: Int, _ k: Int) -> SIMD16<Float> {
                            let p = UnsafeRawPointer(row + j * lw + k)
                            let before = p.advanced(by: -4).loadUnaligned(as: SIMD8<Float>.self)
                            let at = p.loadUnaligned(as: SIMD8<Float>.self)
                            let after = p.advanced(by: 4).loadUnaligned(as: SIMD8<Float>.self)
                            var v = SIMD16<Float>()
                            v.evenHalf = 0.25 * before + 0.75 * at
                            v.oddHalf = 0.75 * at + 0.25 * after
                            return v
                        }
                        for k in stride(from: 1, to: kEnd, by: 8) {
                            let inverseWeight = 1 / interpolated(9, k)
                            for j in 0..<9 {
                                UnsafeMutableRawPointer(coefficients + j * padded + 2 * k)
                                    .storeBytes(of: interpolated(j, k) * inverseWeight, as: SIMD16<Float>.self)
                            }
                        }
                        vectorPixels = 2..<(2 * kEnd)
                    }
                    // The pixels the vector loop did not cover (the row's ends, or all of it).
                    @inline(__always) func scalarPixels(_ pixels: Range<Int>) {
                        for x in pixels {
                            let l0 = x0[x], l1 = x1[x], t = tx[x]
                            @inline(__always) func sample(_ j: Int) -> Float {
                                let a = row[j * lw + l0]
                                return a + t * (row[j * lw + l1] - a)
                            }
                            let inverseWeight = 1 / sample(9)
                            for j in 0..<9 { coefficients[j * padded + x] = sample(j) * inverseWeight }
                        }
                    }
                    scalarPixels(0..<vectorPixels.lowerBound)
                    scalarPixels(vectorPixels.upperBound..<w)
                    // Clipped or no ambient sample within one pixel: no information.
                    // (The 3×3 OR as a vertical OR of three rows, then a horizontal one of three columns;
                    // through shifted pointers, so that the loops have no index arithmetic to check.)
                    let yUp = max(0, y - 1) * w, yDown = min(h - 1, y + 1) * w, yRow = y * w
                    let up = flags.baseAddress! + yUp, middle = flags.baseAddress! + yRow, down = flags.baseAddress! + yDown
                    for x in 0..<w { columnFlags[x] = up[x] | middle[x] | down[x] }
                    invalid[0] = (columnFlags[0] | columnFlags[min(1, w - 1)]) != 0 ? 1 : 0
                    if w > 2 {
                        let left = UnsafePointer(columnFlags), centre = left + 1, right = left + 2, target = invalid + 1
                        for x in 0..<(w - 2) { target[x] = (left[x] | centre[x] | right[x]) != 0 ? 1 : 0 }
                    }
                    invalid[w - 1] = (columnFlags[max(0, w - 2)] | columnFlags[w - 1]) != 0 ? 1 : 0
                    let rowOutputs = RowOutputs(value: (d.base + yRow, d.base + n + yRow, d.base + 2 * n + yRow),
                                                confidence: o.base + yRow,
                                                independent: record ? (vOut.base + yRow, vOut.base + n + yRow, vOut.base + 2 * n + yRow) : nil,
                                                guideGain: record ? (gOut.base + yRow, gOut.base + n + yRow, gOut.base + 2 * n + yRow) : nil)
                    let fBase = f.baseAddress! + yRow
                    processRow(width: w, flash: (fBase, fBase + n, fBase + 2 * n), coefficients: coefficients, stride: padded,
                               invalid: invalid, outputs: rowOutputs, constants, calibration: calibration, tail: tailIn)
                }
            }
        }}}}}}}}}}}
        return (out, record ? Uncertainty(variance: variance, guideGain: gain) : nil)
    }

    /// Where one row's results go: the filtered value (which replaces `D` in place, read before it
    /// is written), the confidence, and optionally the recorded uncertainty planes.
    struct RowOutputs {
        var value: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)
        var confidence: UnsafeMutablePointer<Float>
        var independent: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)?
        var guideGain: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)?
    }

    /// The kernel over one row, eight pixels at a time, in one loop with nothing called: the kernel
    /// and the colorimetric lookup are inlined (`@inline(always)`), since a call clobbers every
    /// vector register and the kernel's many live vectors were spilled around each one. Full vectors
    /// read and write the row in place; the partial vector at the row's end goes through `tail`
    /// (scratch for six input and ten output vectors). `coefficients` holds the row's nine
    /// interpolated model planes (ā, b̄, sd per channel) `stride` apart.
    static func processRow(width w: Int, flash f: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
                           coefficients: UnsafePointer<Float>, stride padded: Int, invalid: UnsafePointer<Float>,
                           outputs: RowOutputs, _ constants: KernelConstants, calibration: CalibrationGrid,
                           tail tailIn: UnsafeMutablePointer<Float>) {
        let d = outputs.value
        let lanes = Lanes.scalarCount
        // Element-wise: compiled to one unaligned vector move (`loadUnaligned`/`storeBytes` were
        // left as calls in this large function).
        @inline(always) func load(_ p: UnsafePointer<Float>, _ x: Int) -> Lanes {
            let q = p + x
            return Lanes(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7])
        }
        @inline(always) func store(_ v: Lanes, _ p: UnsafeMutablePointer<Float>, _ x: Int) {
            let q = p + x
            q[0] = v[0]; q[1] = v[1]; q[2] = v[2]; q[3] = v[3]; q[4] = v[4]; q[5] = v[5]; q[6] = v[6]; q[7] = v[7]
        }
        // One vector at `x` of the given rows (the row itself, or the tail scratch at 0).
        @inline(always) func vector(_ x: Int, flash f: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
                                    value d: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                    coefficients c: UnsafePointer<Float>, invalid: UnsafePointer<Float>,
                                    confidence: UnsafeMutablePointer<Float>,
                                    independent: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)?,
                                    guideGain: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)?) {
            let r = kernel(f: (load(f.0, x), load(f.1, x), load(f.2, x)),
                           d: (load(d.0, x), load(d.1, x), load(d.2, x)),
                           a: (load(c, x), load(c + 3 * padded, x), load(c + 6 * padded, x)),
                           b: (load(c + padded, x), load(c + 4 * padded, x), load(c + 7 * padded, x)),
                           sd: (load(c + 2 * padded, x), load(c + 5 * padded, x), load(c + 8 * padded, x)),
                           invalid: load(invalid, x), constants, calibration: calibration)
            store(r.value.0, d.0, x); store(r.value.1, d.1, x); store(r.value.2, d.2, x)
            store(r.confidence, confidence, x)
            if let v = independent {
                store(r.independent.0, v.0, x); store(r.independent.1, v.1, x); store(r.independent.2, v.2, x)
            }
            if let g = guideGain {
                store(r.guideGain.0, g.0, x); store(r.guideGain.1, g.1, x); store(r.guideGain.2, g.2, x)
            }
        }
        let full = w / lanes * lanes
        var x = 0
        while x < full {
            vector(x, flash: f, value: d, coefficients: coefficients, invalid: invalid, confidence: outputs.confidence,
                   independent: outputs.independent, guideGain: outputs.guideGain)
            x += lanes
        }
        guard full < w else { return }
        // The partial vector: inputs copied into scratch (zeros beyond the row), results copied out.
        // The coefficients and `invalid` are padded to whole vectors already.
        let count = w - full
        let s = tailIn
        @inline(__always) func slot(_ k: Int) -> UnsafeMutablePointer<Float> { s + k * lanes }
        for k in 0..<lanes {
            let inside = k < count
            slot(0)[k] = inside ? f.0[full + k] : 0; slot(1)[k] = inside ? f.1[full + k] : 0
            slot(2)[k] = inside ? f.2[full + k] : 0; slot(3)[k] = inside ? d.0[full + k] : 0
            slot(4)[k] = inside ? d.1[full + k] : 0; slot(5)[k] = inside ? d.2[full + k] : 0
        }
        vector(0, flash: (UnsafePointer(slot(0)), UnsafePointer(slot(1)), UnsafePointer(slot(2))),
               value: (slot(3), slot(4), slot(5)), coefficients: coefficients + full, invalid: invalid + full,
               confidence: slot(6), independent: (slot(7), slot(8), slot(9)), guideGain: (slot(10), slot(11), slot(12)))
        for k in 0..<count {
            d.0[full + k] = slot(3)[k]; d.1[full + k] = slot(4)[k]; d.2[full + k] = slot(5)[k]
            outputs.confidence[full + k] = slot(6)[k]
            if let v = outputs.independent { v.0[full + k] = slot(7)[k]; v.1[full + k] = slot(8)[k]; v.2[full + k] = slot(9)[k] }
            if let g = outputs.guideGain { g.0[full + k] = slot(10)[k]; g.1[full + k] = slot(11)[k]; g.2[full + k] = slot(12)[k] }
        }
    }

    /// The vector of pixels the kernel works on at once.
    typealias Lanes = SIMD8<Float>

    /// What the kernel needs besides the pixels.
    struct KernelConstants {
        /// Rows of the camera→XYZ matrix divided by the white's X, Y, Z.
        var mx: SIMD3<Float>, my: SIMD3<Float>, mz: SIMD3<Float>
        /// Relative uncertainty of the exposure ratio.
        var delta: Float
        /// Noise of the two frames (`D`'s variance; the flash's is also the guide's).
        var flashNoise: FrameNoise, ambientNoise: FrameNoise
    }

    /// A colorimetric uncertainty grid in the kernel: node variances (ΔE00²), nil base when absent.
    struct CalibrationGrid {
        /// rms² per node, `size`², `u` fastest; nil: no calibration term.
        var nodes: UnsafePointer<Float>?
        /// Nodes per axis.
        var size: Int
        /// 1 / flash white per channel.
        var inverseWhite: SIMD3<Float>

        /// σ_cal² at the pixels' colours (camera RGB `r, g, b`): bilinear in the node variances at
        /// u = r'/(r'+g'+b'), v = b'/(r'+g'+b') of the balanced RGB, clamped to [0, 1]²; a
        /// non-positive sum (no colour) looks up the flash white.
        @inline(always) func variance(_ r: Lanes, _ g: Lanes, _ b: Lanes) -> Lanes {
            guard let grid = nodes else { return Lanes(repeating: 0) }
            let br = r * inverseWhite.x, bg = g * inverseWhite.y, bb = b * inverseWhite.z
            let sum = br + bg + bb
            let third = Lanes(repeating: 1.0 / 3), zero = Lanes(repeating: 0)
            let coloured = sum .> 0
            let n = Float(size - 1)
            let scale = n / sum
            // Node coordinates, clamped to [0, n]; NaN (no colour) → the white's.
            var gu = (br * scale).replacing(with: third * n, where: .!coloured)
            var gv = (bb * scale).replacing(with: third * n, where: .!coloured)
            let top = Lanes(repeating: n)
            gu = gu.replacing(with: zero, where: .!(gu .> zero)).replacing(with: top, where: gu .> top)
            gv = gv.replacing(with: zero, where: .!(gv .> zero)).replacing(with: top, where: gv .> top)
            // Lower node of each pixel's cell, as Floats, by the 2²³ rounding trick (the standard
            // library's SIMD rounding calls libm per lane): round(g − ½) is ⌊g⌋, or g − 1 at an exact
            // node with fraction 1 (the same interpolated value); clamped to the last cell.
            let magic = Lanes(repeating: 8_388_608), lastCell = Lanes(repeating: n - 1)
            @inline(always) func cell(_ g: Lanes) -> Lanes {
                let c = (g - 0.5 + magic) - magic
                return c.replacing(with: zero, where: c .< zero).replacing(with: lastCell, where: c .> lastCell)
            }
            let fu = cell(gu), fv = cell(gv)
            let tu = gu - fu, tv = gv - fv
            let index = fv * Float(size) + fu  // exact: below 2²³
            // As integers by the same trick (the bits of 2²³ + index), not by a checked conversion per lane.
            let k = unsafeBitCast(index + magic, to: SIMD8<Int32>.self) &- 0x4B00_0000
            let p0 = grid + Int(k[0]), p1 = grid + Int(k[1]), p2 = grid + Int(k[2]), p3 = grid + Int(k[3]),
                p4 = grid + Int(k[4]), p5 = grid + Int(k[5]), p6 = grid + Int(k[6]), p7 = grid + Int(k[7])
            // Node reads per lane, gathered into vectors by initializer (not lane by lane).
            @inline(always) func gather(_ offset: Int) -> Lanes {
                Lanes(p0[offset], p1[offset], p2[offset], p3[offset], p4[offset], p5[offset], p6[offset], p7[offset])
            }
            let v00 = gather(0), v10 = gather(1), v01 = gather(size), v11 = gather(size + 1)
            let upper = v00 + tu * (v10 - v00), lower = v01 + tu * (v11 - v01)
            return upper + tv * (lower - upper)
        }
    }

    /// One vector of pixels: the guided model evaluated and checked against each pixel's own value,
    /// the independent variance and guide gain of the result, and the confidence.
    @inline(always)
    static func kernel(f: (Lanes, Lanes, Lanes), d: (Lanes, Lanes, Lanes), a: (Lanes, Lanes, Lanes),
                       b: (Lanes, Lanes, Lanes), sd: (Lanes, Lanes, Lanes), invalid: Lanes, _ k: KernelConstants,
                       calibration: CalibrationGrid)
        -> (value: (Lanes, Lanes, Lanes), independent: (Lanes, Lanes, Lanes), guideGain: (Lanes, Lanes, Lanes), confidence: Lanes) {
        let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
        let guide = f.0 + f.1 + f.2
        // The guide is the sum of three flash samples: three read variances, one shot term.
        let guideVariance = 3 * k.flashNoise.varianceOffset + k.flashNoise.varianceSlope * guide.replacing(with: 0, where: guide .< 0)
        // One channel: the raw variance (as DarkRoomEstimate.variance), the model, the per-pixel check.
        @inline(always) func channel(_ f: Lanes, _ d: Lanes, _ a: Lanes, _ b: Lanes, _ sd: Lanes)
            -> (value: Lanes, independent: Lanes, gain: Lanes) {
            let rawVariance = k.flashNoise.variance(f) + k.ambientNoise.variance(f - d)
            let q = a * guide + b
            let windowVariance = sd * sd
            let residual = d - q
            let z2 = residual * residual / (rawVariance + windowVariance + a * a * guideVariance)
            var t = (z2 - 4) * (1.0 / 5)
            t = t.replacing(with: zero, where: .!(t .> zero)).replacing(with: one, where: t .> one)  // NaN → 0
            let beta = t * t * (3 - 2 * t)
            let keep = 1 - beta
            return (q + beta * residual, keep * keep * windowVariance + beta * beta * rawVariance, keep * a)
        }
        let r = channel(f.0, d.0, a.0, b.0, sd.0), g = channel(f.1, d.1, a.1, b.1, sd.1), bl = channel(f.2, d.2, a.2, b.2, sd.2)
        // CIELAB slopes at the pixel's colour (CIE 15:2004): f'(t) = 1/(3 t^(2/3)) = (t^(−1/3))²/3
        // above (6/29)³, 841/108 below.
        @inline(always) func slope(_ m: SIMD3<Float>) -> Lanes {
            let t = m.x * r.value + m.y * g.value + m.z * bl.value
            let t0: Float = 216.0 / 24389.0
            let above = t .> t0
            let c = inverseCubeRoot(t.replacing(with: t0, where: .!above))
            return (c * c * (1.0 / 3)).replacing(with: 841.0 / 108.0, where: .!above)
        }
        let gx = slope(k.mx), gy = slope(k.my), gz = slope(k.mz)
        // The Jacobian of L*, a*, b* on camera RGB has column c = (116·m_y,c·g_y,
        // 500·(m_x,c·g_x − m_y,c·g_y), 200·(m_y,c·g_y − m_z,c·g_z)). Independent errors: each
        // channel's variance times its column's squared norm, one column at a time.
        @inline(always) func columnNorm2(_ c: Int) -> Lanes {
            let y = k.my[c] * gy
            let l = 116 * y, a = 500 * (k.mx[c] * gx - y), b = 200 * (y - k.mz[c] * gz)
            return l * l + a * a + b * b
        }
        var total = r.independent * columnNorm2(0) + g.independent * columnNorm2(1) + bl.independent * columnNorm2(2)
        // Fully correlated errors e (the exposure ratio's δ·A, the guide's ā·δI): |J·e|², through
        // the matrix rows' dot products with e (J is never formed: fewer live vectors).
        @inline(always) func correlated(_ e0: Lanes, _ e1: Lanes, _ e2: Lanes) -> Lanes {
            let x = (k.mx.x * e0 + k.mx.y * e1 + k.mx.z * e2) * gx
            let y = (k.my.x * e0 + k.my.y * e1 + k.my.z * e2) * gy
            let z = (k.mz.x * e0 + k.mz.y * e1 + k.mz.z * e2) * gz
            let l = 116 * y, a = 500 * (x - y), b = 200 * (y - z)
            return l * l + a * a + b * b
        }
        total += (k.delta * k.delta) * correlated(f.0 - d.0, f.1 - d.1, f.2 - d.2)
        total += guideVariance * correlated(r.gain, g.gain, bl.gain)  // (σ_I·ā_c)-errors: σ_I² times the gains' norm
        // The matrix's own error at this colour (ΔE00², added as CIELAB σ² with factor 1).
        total += calibration.variance(r.value, g.value, bl.value)
        let q2 = total * (1 / (noiseScaleDeltaE * noiseScaleDeltaE))
        var c = 1 / (1 + q2)
        c = c.replacing(with: zero, where: .!(c .> zero)).replacing(with: one, where: c .> one)  // NaN → 0
        c = c.replacing(with: zero, where: invalid .> 0)
        return ((r.value, g.value, bl.value), (r.independent, g.independent, bl.independent), (r.gain, g.gain, bl.gain), c)
    }

    /// `t^(−1/3)` of positive finite values without a division: an exponent-thirding first guess
    /// (relative error below 10 %), then three Newton steps `y ← y·(4 − t·y³)/3` (quadratic: below
    /// 1e-6 relative). The slopes need no more, and libm's `cbrtf` and the divisions of a cube-root
    /// Newton step were the hot loop's cost.
    @inline(always) static func inverseCubeRoot(_ t: Lanes) -> Lanes {
        let bits = unsafeBitCast(t, to: SIMD8<UInt32>.self)
        // 1/∛ in the exponent: (3·127·2²³ − bits)/3 ≈ 0x54A2FA8C − bits/3.
        let guess: SIMD8<UInt32> = SIMD8<UInt32>(repeating: 0x54A2_FA8C) &- bits / SIMD8<UInt32>(repeating: 3)
        var y = unsafeBitCast(guess, to: Lanes.self)
        for _ in 0..<3 {
            let y3: Lanes = y * y * y
            y = y * (4 - t * y3) * (1.0 / 3)
        }
        return y
    }
}
