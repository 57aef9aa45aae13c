/// Stage 6 of SPEC: how well the flash's light was measured at each pixel, in [0, 1] — computed in
/// the same pass that evaluates the noise-reduced estimate (`NoiseReduction`), because both need the
/// same per-pixel quantities. (`ColorimetricConfidence` adds the matrix's own error to it.)
///
/// `confidence = 1 / (1 + (σ/σ₀)²) · valid`, where σ is the standard deviation of the pixel's
/// rendered colour in ΔE00 chroma — CIEDE2000 without its lightness term (CIE 142-2001), the metric of
/// issue 7's honesty criterion, to first order at the pixel's colour (`ChromaDifferenceMetric`) —
/// propagated linearly through the white balance, the matrix and the CIE 1976 L*a*b* formulas
/// (CIE 15:2004 §8.2.1) from three independent sources:
/// - the independent noise of the filtered estimate (per channel, from the guided model's window
///   variances, or the raw noise model where the per-pixel check handed the pixel back);
/// - the flash guide's pixel noise `ā·δI`, one error shared by the channels;
/// - the error of an ambient-to-flash exposure ratio known only to a relative
///   `exposureRatioUncertainty` δ: the subtracted ambient `A = F − D` is off by `δ·A`, one error
///   common to the channels. It is what makes bright ambient light untrustworthy even where the
///   noise is averaged away;
/// - where the channels read the ratio apart (`AmbientRatioEstimate.ambientColourDeviation`: the
///   ambient light changed colour between the frames, or not every edge is the ambient light's), a
///   second error `ε_c·A_c` with each channel's signed relative deviation ε: a ratio too high in red
///   and too low in blue moves the colour, where one error of one sign in every channel mostly moves
///   the lightness, which the chroma metric leaves out.
/// Where the frames disagree (local motion, failed registration) `D` has structure the flash frame
/// does not explain; the model's misfit is part of its variance, so σ grows there too. Where the
/// per-pixel check rejects the model and hands the pixel its own value back, the disagreement stays
/// in σ, a fourth, correlated error (`handBackAmbiguity`). And where a
/// channel of the result is negative beyond two of its standard deviations (the flash frame darker
/// than the ambient: no light can do that), the shortfall is an error of at least that size.
/// Lightness is left out because the flash's fall-off and the subject's distance set it: the
/// constant-colour quantity is chroma and hue. A ΔE*ab σ overstated saturated colours' error several
/// times (S_C = 1 + 0.045 C* is 4.6 at C* = 80).
/// σ₀ = 3 gives 0.8 at σ = 1.5 (a 3-ΔE error then has about 1 % probability) and 0.5 at σ = 3.
/// `valid` is 0 where either frame is clipped (dilated by one pixel to cover the interpolation
/// footprint and blooming) or the ambient frame has no sample, else 1.
public enum Confidence {
    /// σ₀ of the noise term, in ΔE00 chroma.
    public static let noiseScaleDeltaE: Float = 3

    /// Where the per-pixel check rejects the model (by a residual ρ = D − model beyond 2–3 standard
    /// deviations), the pixel's own value is returned, but the data cannot say which of the two is
    /// right: a real small feature the windows average away, or an error the noise model does not
    /// describe in the pixel (a demosaicing fringe, an edge the registration or hand shake moved, a
    /// hot pixel). With equal odds and the pixel's value reported, the expected squared error is half
    /// the disagreement's: the residual vector (ρ_r, ρ_g, ρ_b), one error across the channels,
    /// enters the chroma σ² as `handBackAmbiguity`·|J·ρ|² (as the exposure ratio's error does). It is
    /// counted where noise cannot explain ρ: weight 0 at 3 standard deviations (a flat field's noise
    /// goes beyond that in 0.27 % of its pixels, and those are not ambiguous), 1 from 5 (smoothstep in
    /// z², per channel, on ρ). It is not part of the channels' independent variance, which the
    /// wide windows' interval test reads: a wider interval there would let the wide windows replace
    /// the pixel's own value, and a real small feature with it. Without it the returned value
    /// claimed only its noise: on the demosaiced hard set, pixels claiming σ 4–6 ΔE00 chroma were 8.3
    /// off (RMS), most of them within 3 px of material edges.
    static let handBackAmbiguity: Float = 0.5

    /// Default relative uncertainty of the ambient-to-flash exposure ratio taken from metadata:
    /// shutter times and gains of real cameras differ from their nominal values by a few percent
    /// (about 2 % each, issue 7), independently in each frame, and the ratio is made of four of them
    /// (`t_A·g_A / (t_F·g_F)`): √4 · 2 %.
    public static let defaultExposureRatioUncertainty: Float = 0.04

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
    /// frame `D` was made from. With `wide` models (the same frame size, wider windows in increasing
    /// order, on blocks of any size: `NoiseReduction.wideModels`), a pixel the model leaves unsure
    /// may take a wider support's value instead (`wideSupport`, `wideSupportSelection`). With
    /// `recordUncertainty`, the per-pixel variances are returned too. The map is written into `storage` when it is large enough (a
    /// buffer nothing reads any more, `PlanarImage.init(width:height:channelCount:reusing:)`).
    /// A channel whose `ambientColourDeviation` is not a number counts as deviating by 100 %: an
    /// estimate that failed says nothing about the subtracted light, which is then not trusted.
    public static func filterAndMap(estimate: inout DarkRoomEstimate, model: GuidedModel, wide: [GuidedModel] = [],
                                    flash: LinearFrame, rendering: ColorRendering,
                                    exposureRatioUncertainty: Float = defaultExposureRatioUncertainty,
                                    ambientColourDeviation: SIMD3<Float> = .zero,
                                    recordUncertainty: Bool = false,
                                    reusing storage: consuming [Float] = []) -> (confidence: PlanarImage, uncertainty: Uncertainty?) {
        filterAndMap(estimate: &estimate, model: model, wide: wide, flash: flash, rendering: rendering,
                     exposureRatioUncertainty: exposureRatioUncertainty, ambientColourDeviation: ambientColourDeviation,
                     recordUncertainty: recordUncertainty, reusing: storage, interpolatingWideEagerly: false)
    }

    /// The same; with `interpolatingWideEagerly`, every row of the wide models is interpolated
    /// whole before the row is evaluated, as before session 39 (the reference the on-request
    /// interpolation is tested against: the same bytes).
    static func filterAndMap(estimate: inout DarkRoomEstimate, model: GuidedModel, wide: [GuidedModel],
                             flash: LinearFrame, rendering: ColorRendering, exposureRatioUncertainty: Float,
                             ambientColourDeviation: SIMD3<Float>, recordUncertainty: Bool, reusing storage: consuming [Float],
                             interpolatingWideEagerly eager: Bool) -> (confidence: PlanarImage, uncertainty: Uncertainty?) {
        let w = estimate.difference.width, h = estimate.difference.height, n = w * h
        precondition(flash.image.pixelCount == n && model.width == w && model.height == h)
        precondition(wide.allSatisfy { $0.width == w && $0.height == h })
        let delta = exposureRatioUncertainty
        let xyz = rendering.matrix(to: .xyz), white = WhitePoint.d65XYZ
        // Rows of the camera→XYZ matrix divided by the white's X, Y, Z.
        let mx = SIMD3<Float>(xyz.rows[0].map { Float($0 / white.x) }),
            my = SIMD3<Float>(xyz.rows[1].map { Float($0) }),
            mz = SIMD3<Float>(xyz.rows[2].map { Float($0 / white.z) })
        let flashNoise = estimate.flashNoise, ambientNoise = estimate.ambientNoise
        let flags = estimate.flags  // shared, not copied: only `difference` is written below
        var out = PlanarImage(width: w, height: h, channelCount: 1, reusing: consume storage)
        let record = recordUncertainty
        var variance = PlanarImage(width: record ? w : 1, height: record ? h : 1, channelCount: 3)
        var gain = variance
        // Horizontal taps, once per model (w apiece: the model's, then the wide ones').
        let models = [model] + wide
        var x0 = [Int](repeating: 0, count: models.count * w), x1 = x0, tx = [Float](repeating: 0, count: models.count * w)
        for (m, geometry) in models.enumerated() {
            for x in 0..<w {
                (x0[m * w + x], x1[m * w + x], tx[m * w + x]) = GuidedModel.taps(x, subsampling: geometry.subsampling,
                                                                              count: geometry.lowWidth)
            }
        }
        let rowLength = models.map(\.lowWidth).max()!
        let deviation = ambientColourDeviation.replacing(with: 1, where: .!(ambientColourDeviation .== ambientColourDeviation))
        let constants = KernelConstants(mx: mx, my: my, mz: mz, delta: delta, colourDeviation: deviation,
                                        deviates: deviation != .zero, flashNoise: flashNoise, ambientNoise: ambientNoise)
        estimate.difference.samples.withUnsafeMutableBufferPointer { dBuffer in
        out.samples.withUnsafeMutableBufferPointer { oBuffer in
        variance.samples.withUnsafeMutableBufferPointer { vBuffer in
        gain.samples.withUnsafeMutableBufferPointer { gBuffer in
        flash.image.samples.withUnsafeBufferPointer { fBuffer in
        flags.withUnsafeBufferPointer { flBuffer in
        withPlanes(of: models[...]) { modelPlanes in
        x0.withUnsafeBufferPointer { x0Buffer in
        x1.withUnsafeBufferPointer { x1Buffer in
        tx.withUnsafeBufferPointer { txBuffer in
            let d = SharedMutableBuffer(dBuffer), o = SharedMutableBuffer(oBuffer)
            let vOut = SharedMutableBuffer(vBuffer), gOut = SharedMutableBuffer(gBuffer)
            let inputs = UncheckedSendableBox((fBuffer, flBuffer, modelPlanes, x0Buffer, x1Buffer, txBuffer))
            let wideCount = wide.count
            forEachRowBand(rowCount: h) { rows in
                let (f, flags, modelPlanes, x0, x1, tx) = inputs.value
                // Per band: the vertically interpolated model row, then per pixel ā, b̄, sd and the
                // overlap factor (10 rows of w, padded to a multiple of the vector width) and the
                // dilated invalid mask.
                let padded = (w + Lanes.scalarCount - 1) / Lanes.scalarCount * Lanes.scalarCount
                // Each model's vertically interpolated row (the wide ones' are read later, piece by piece).
                let rowPlanes = GuidedModel.evaluatedPlaneCount * rowLength
                let row = UnsafeMutablePointer<Float>.allocate(capacity: (1 + wideCount) * rowPlanes)
                // (The wide models' ten rows each, if any, follow the model's.)
                let coefficientRows = 10 * (1 + wideCount)
                let coefficients = UnsafeMutablePointer<Float>.allocate(capacity: coefficientRows * padded)
                coefficients.initialize(repeating: 0, count: coefficientRows * padded)
                let invalid = UnsafeMutablePointer<Float>.allocate(capacity: padded)
                invalid.initialize(repeating: 1, count: padded)
                let columnFlags = UnsafeMutablePointer<UInt8>.allocate(capacity: w)
                // Inputs and outputs of the partial vector at the row's end.
                let tailIn = UnsafeMutablePointer<Float>.allocate(capacity: 13 * Lanes.scalarCount)
                defer {
                    row.deallocate(); coefficients.deallocate(); invalid.deallocate(); columnFlags.deallocate()
                    tailIn.deallocate()
                }
                @inline(__always) func taps(_ m: Int) -> (UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>) {
                    (x0.baseAddress! + m * w, x1.baseAddress! + m * w, tx.baseAddress! + m * w)
                }
                for y in rows {
                    models[0].interpolateRow(y, planes: modelPlanes[0].baseAddress!, taps: taps(0), row: row,
                                             into: coefficients, stride: padded)
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
                    // The wide models' coefficients only where a pixel is unsure (`processRow` asks, left
                    // to right): on a well-exposed frame few are (on the bench pair this took about 3 %
                    // off the pass). The wide models' rows are interpolated vertically at the first request.
                    var wideRowsReady = false
                    if eager {
                        for m in 1..<models.count {
                            models[m].interpolateRow(y, planes: modelPlanes[m].baseAddress!, taps: taps(m), row: row + m * rowPlanes,
                                                     into: coefficients + 10 * m * padded, stride: padded)
                        }
                    }
                    processRow(width: w, flash: (fBase, fBase + n, fBase + 2 * n), coefficients: coefficients, stride: padded,
                               wideCount: wideCount, prepareWide: { pixels in
                        if eager { return w }
                        if !wideRowsReady {
                            for m in 1..<models.count {
                                models[m].verticalRow(y, into: row + m * rowPlanes, planes: modelPlanes[m].baseAddress!)
                            }
                            wideRowsReady = true
                        }
                        var written = w
                        for m in 1..<models.count {
                            written = min(written, models[m].interpolateColumns(pixels, row: row + m * rowPlanes, taps: taps(m),
                                                                                into: coefficients + 10 * m * padded, stride: padded))
                        }
                        return written
                    }, invalid: invalid, outputs: rowOutputs, constants, tail: tailIn)
                }
            }
        }}}}}}}}}}
        return (out, record ? Uncertainty(variance: variance, guideGain: gain) : nil)
    }

    /// `body` with the planes of each model in `models` as buffers (kept alive and unmoved during the call).
    static func withPlanes<R>(of models: ArraySlice<GuidedModel>, _ buffers: [UnsafeBufferPointer<Float>] = [],
                              _ body: ([UnsafeBufferPointer<Float>]) -> R) -> R {
        guard let first = models.first else { return body(buffers) }
        return first.planes.withUnsafeBufferPointer { withPlanes(of: models.dropFirst(), buffers + [$0], body) }
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
    /// (scratch for six input and ten output vectors). `coefficients` holds the row's ten
    /// interpolated model planes (ā, b̄, sd per channel, the overlap factor) `stride` apart and the
    /// `wideCount` wide models' ten each after them (from `coefficients + 10·stride`), which
    /// `prepareWide` writes on request: given columns from where the last request's writing ended,
    /// it returns where this one's ends (`GuidedModel.interpolateColumns`). Only the wide windows'
    /// kernels are a call (`wideSupport`).
    static func processRow(width w: Int, flash f: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
                           coefficients: UnsafePointer<Float>, stride padded: Int, wideCount: Int,
                           prepareWide: (Range<Int>) -> Int, invalid: UnsafePointer<Float>,
                           outputs: RowOutputs, _ constants: KernelConstants,
                           tail tailIn: UnsafeMutablePointer<Float>) {
        let d = outputs.value
        let lanes = Lanes.scalarCount
        // The wide coefficients are written up to here; requested `widePiece` columns at a time.
        var wideEnd = 0
        let widePiece = 64
        @inline(always) func load(_ p: UnsafePointer<Float>, _ x: Int) -> Lanes { Self.lanes(at: p + x) }
        @inline(always) func store(_ v: Lanes, _ p: UnsafeMutablePointer<Float>, _ x: Int) {
            let q = p + x
            q[0] = v[0]; q[1] = v[1]; q[2] = v[2]; q[3] = v[3]; q[4] = v[4]; q[5] = v[5]; q[6] = v[6]; q[7] = v[7]
        }
        // One vector at `x` of the given rows (the row itself, or the tail scratch at 0).
        @inline(always) func vector(_ x: Int, column: Int, flash f: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
                                    value d: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                    coefficients c: UnsafePointer<Float>, invalid: UnsafePointer<Float>,
                                    confidence: UnsafeMutablePointer<Float>,
                                    independent: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)?,
                                    guideGain: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)?) {
            let fv = (load(f.0, x), load(f.1, x), load(f.2, x)), dv = (load(d.0, x), load(d.1, x), load(d.2, x))
            let invalidV = load(invalid, x)
            var r = kernel(f: fv, d: dv, coefficients: c, stride: padded, at: x, invalid: invalidV, constants)
            // The wide windows where the intersection-of-confidence-intervals rule accepts them; only
            // vectors with a pixel short of `wideSupportSkipConfidence` try them, in a call of their own.
            // (Invalid pixels, and the padding past the row's end, have confidence 0 either way.)
            if wideCount > 0 && ((r.confidence .< Self.wideSupportSkipConfidence) .& (invalidV .== 0)).anyLane {
                if column + lanes > wideEnd {
                    wideEnd = prepareWide(max(column, wideEnd)..<min(w, column + widePiece))
                }
                r = wideSupport(r, f: fv, d: dv, coefficients: c + 10 * padded, count: wideCount, stride: padded, at: x,
                                invalid: invalidV, constants)
            }
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
            vector(x, column: x, flash: f, value: d, coefficients: coefficients, invalid: invalid, confidence: outputs.confidence,
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
        vector(0, column: full, flash: (UnsafePointer(slot(0)), UnsafePointer(slot(1)), UnsafePointer(slot(2))),
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

    /// The vector at `p`, element-wise: compiled to one unaligned vector move (`loadUnaligned` was
    /// left as a call in the large kernel functions).
    @inline(always) static func lanes(at p: UnsafePointer<Float>) -> Lanes {
        Lanes(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
    }

    /// The kernel's results for one vector: the filtered value, its independent variance and guide
    /// gain per channel, and the confidence.
    typealias KernelResult = (value: (Lanes, Lanes, Lanes), independent: (Lanes, Lanes, Lanes),
                              guideGain: (Lanes, Lanes, Lanes), confidence: Lanes)

    /// Γ of the intersection-of-confidence-intervals rule (`wideSupportSelection`).
    static let wideSupportThreshold: Float = 2

    /// Vectors whose every valid pixel has at least this confidence from the model's windows do not
    /// try the wide ones, nor a wider one once every valid pixel still climbing has it: their σ is
    /// below 1 ΔE00 chroma (about a just-noticeable difference), which more averaging would not
    /// change visibly, while each wide model evaluated costs as much as the model's kernel.
    static let wideSupportSkipConfidence: Float = 0.9

    /// The wide windows' result for one vector: each wide model in turn (`count` sets of ten
    /// coefficient rows from `c`, `stride` apart, in increasing size) evaluated and chosen or refused
    /// against the supports before it (`wideSupportSelection`), while a valid pixel whose intervals
    /// still intersect is short of `wideSupportSkipConfidence`. Not inlined: a second copy of the
    /// kernel in `processRow` made it several times slower to compile, and only vectors with an
    /// uncertain pixel get here.
    @inline(never)
    static func wideSupport(_ narrow: KernelResult, f: (Lanes, Lanes, Lanes), d: (Lanes, Lanes, Lanes),
                            coefficients c: UnsafePointer<Float>, count: Int, stride padded: Int, at x: Int, invalid: Lanes,
                            _ k: KernelConstants) -> KernelResult {
        var result = narrow, intervals = SupportIntervals(narrow)
        for s in 0..<count {
            let wide = kernel(f: f, d: d, coefficients: c + 10 * s * padded, stride: padded, at: x, invalid: invalid, k)
            result = wideSupportSelection(result, wide, intervals: &intervals)
            // On while a lane is open and short of `wideSupportSkipConfidence` (as for the first).
            guard (intervals.open .& (result.confidence .< wideSupportSkipConfidence) .& (invalid .== 0)).anyLane else { break }
        }
        return result
    }

    /// The intersection of the confidence intervals `value ± Γσ` (σ from the independent variance) of
    /// the supports tried so far, per channel, and the lanes where it is not empty.
    struct SupportIntervals {
        var low: (Lanes, Lanes, Lanes), high: (Lanes, Lanes, Lanes)
        var open: SIMDMask<SIMD8<Int32>>

        /// The intervals of one support (`Γ·√v` either side; a variance of 0 gives a point).
        static func bounds(_ r: KernelResult) -> (low: (Lanes, Lanes, Lanes), high: (Lanes, Lanes, Lanes)) {
            // √v = v·v^(−½) (0 for a variance of 0: the interval is then the value alone).
            @inline(always) func halfWidth(_ v: Lanes) -> Lanes { wideSupportThreshold * (v * v.fastInverseSquareRoot(newtonSteps: 2)) }
            let h = (halfWidth(r.independent.0), halfWidth(r.independent.1), halfWidth(r.independent.2))
            return ((r.value.0 - h.0, r.value.1 - h.1, r.value.2 - h.2), (r.value.0 + h.0, r.value.1 + h.1, r.value.2 + h.2))
        }

        /// The model windows' intervals, open in every lane.
        init(_ narrow: KernelResult) {
            (low, high) = Self.bounds(narrow)
            open = SIMDMask(repeating: true)
        }
    }

    /// Adaptive support by the intersection of confidence intervals (ICI; Goldenshluger & Nemirovski,
    /// Math. Methods Statist. 6(2), 1997; Katkovnik, IEEE TSP 47(9), 1999 — Lepski's method): a wider
    /// support's estimate is taken where it is the more certain one and, in every channel, its
    /// interval `±Γσ` meets the intersection of the smaller supports' intervals (`intervals`, which
    /// it then narrows; for the first wide support that is `|D_wide − D| ≤ Γ(σ + σ_wide)`). Where it
    /// does not, the lane is closed: no wider support is tried. In a flat region the estimates agree
    /// and the widest wins; near structure the flash frame does not explain, a wide support's bias
    /// moves its estimate outside the intersection and the smaller one stays (their own misfit is in
    /// their variance too).
    @inline(always)
    static func wideSupportSelection(_ current: KernelResult, _ wide: KernelResult, intervals: inout SupportIntervals) -> KernelResult {
        let (low, high) = SupportIntervals.bounds(wide)
        let meets = intervals.open
            .& (low.0 .<= intervals.high.0) .& (high.0 .>= intervals.low.0)
            .& (low.1 .<= intervals.high.1) .& (high.1 .>= intervals.low.1)
            .& (low.2 .<= intervals.high.2) .& (high.2 .>= intervals.low.2)
        intervals.open = meets
        guard meets.anyLane else { return current }
        // (The narrowing written out: the standard library's `pointwiseMax` and `pointwiseMin`, passed
        // as functions, were calls. They are `Float.maximum(a, b)` = a > b || b is NaN ? a : b and
        // `Float.minimum(a, b)` = a ≤ b || b is NaN ? a : b per lane; where `meets` holds, every bound
        // compared is a number, so keeping `a` unless b ≥ a (b < a) gives the same lanes.)
        @inline(always) func raised(_ a: Lanes, _ b: Lanes) -> Lanes { a.replacingLanes(with: b, where: meets .& (b .>= a)) }
        @inline(always) func lowered(_ a: Lanes, _ b: Lanes) -> Lanes { a.replacingLanes(with: b, where: meets .& (b .< a)) }
        intervals.low = (raised(intervals.low.0, low.0), raised(intervals.low.1, low.1), raised(intervals.low.2, low.2))
        intervals.high = (lowered(intervals.high.0, high.0), lowered(intervals.high.1, high.1), lowered(intervals.high.2, high.2))
        let take = meets .& (wide.confidence .> current.confidence)
        guard take.anyLane else { return current }
        @inline(always) func pick(_ n: Lanes, _ w: Lanes) -> Lanes { n.replacingLanes(with: w, where: take) }
        @inline(always) func pick(_ n: (Lanes, Lanes, Lanes), _ w: (Lanes, Lanes, Lanes)) -> (Lanes, Lanes, Lanes) {
            (pick(n.0, w.0), pick(n.1, w.1), pick(n.2, w.2))
        }
        return (pick(current.value, wide.value), pick(current.independent, wide.independent),
                pick(current.guideGain, wide.guideGain), pick(current.confidence, wide.confidence))
    }

    /// What the kernel needs besides the pixels.
    struct KernelConstants {
        /// Rows of the camera→XYZ matrix divided by the white's X, Y, Z.
        var mx: SIMD3<Float>, my: SIMD3<Float>, mz: SIMD3<Float>
        /// Relative uncertainty of the exposure ratio common to the channels, and each channel's signed
        /// relative deviation from it (zero where the channels agree), a second error.
        var delta: Float, colourDeviation: SIMD3<Float>
        /// Whether `colourDeviation` is not zero: only then does the kernel count it (set once, not
        /// compared per vector).
        var deviates: Bool
        /// Noise of the two frames (`D`'s variance; the flash's is also the guide's).
        var flashNoise: FrameNoise, ambientNoise: FrameNoise
    }

    /// The kernel on the vector at `x` of one model's ten interpolated coefficient rows (from `c`,
    /// `stride` apart: ā, b̄, sd per channel, the overlap factor).
    @inline(always)
    static func kernel(f: (Lanes, Lanes, Lanes), d: (Lanes, Lanes, Lanes), coefficients c: UnsafePointer<Float>,
                       stride padded: Int, at x: Int, invalid: Lanes, _ k: KernelConstants) -> KernelResult {
        @inline(always) func load(_ p: UnsafePointer<Float>) -> Lanes { Self.lanes(at: p + x) }
        return kernel(f: f, d: d,
                      a: (load(c), load(c + 3 * padded), load(c + 6 * padded)),
                      b: (load(c + padded), load(c + 4 * padded), load(c + 7 * padded)),
                      sd: (load(c + 2 * padded), load(c + 5 * padded), load(c + 8 * padded)),
                      overlap: load(c + 9 * padded), invalid: invalid, k)
    }

    /// One vector of pixels: the guided model evaluated and checked against each pixel's own value,
    /// the independent variance and guide gain of the result, and the confidence. `sd` is the bound
    /// for fully correlated windows, `overlap` the factor on its square (`WindowOverlap`).
    @inline(always)
    static func kernel(f: (Lanes, Lanes, Lanes), d: (Lanes, Lanes, Lanes), a: (Lanes, Lanes, Lanes),
                       b: (Lanes, Lanes, Lanes), sd: (Lanes, Lanes, Lanes), overlap: Lanes, invalid: Lanes, _ k: KernelConstants)
        -> KernelResult {
        let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
        let guide = f.0 + f.1 + f.2
        // The guide is the sum of three flash samples: three read variances, one shot term.
        let guideVariance = 3 * k.flashNoise.varianceOffset + k.flashNoise.varianceSlope * guide.replacingLanes(with: 0, where: guide .< 0)
        // One channel: the raw variance (as DarkRoomEstimate.variance), the model, the per-pixel check.
        @inline(always) func channel(_ f: Lanes, _ d: Lanes, _ a: Lanes, _ b: Lanes, _ sd: Lanes)
            -> (value: Lanes, independent: Lanes, gain: Lanes, handBack: Lanes) {
            let rawVariance = k.flashNoise.variance(f) + k.ambientNoise.variance(f - d)
            let q = a * guide + b
            let windowVariance = sd * sd * overlap
            let residual = d - q
            let z2 = residual * residual / (rawVariance + windowVariance + a * a * guideVariance)
            let beta = z2.smoothstep(from: 4, to: 9)
            let keep = 1 - beta
            // The disagreement of a handed-back pixel, weighted from 3 to 5 standard deviations of
            // noise (β is 1 there): `handBackAmbiguity`.
            let gamma = z2.smoothstep(from: 9, to: 25)
            return (q + beta * residual, keep * keep * windowVariance + beta * beta * rawVariance, keep * a, gamma * residual)
        }
        let r = channel(f.0, d.0, a.0, b.0, sd.0), g = channel(f.1, d.1, a.1, b.1, sd.1), bl = channel(f.2, d.2, a.2, b.2, sd.2)
        // CIELAB at the pixel's colour (CIE 15:2004): f(t) = t^(1/3) = t·(t^(−1/3))² and its slope
        // f'(t) = (t^(−1/3))²/3 above (6/29)³; 841/108·t + 4/29 and 841/108 below.
        @inline(always) func lightnessFunction(_ m: SIMD3<Float>) -> (value: Lanes, slope: Lanes) {
            let t = m.x * r.value + m.y * g.value + m.z * bl.value
            let t0: Float = 216.0 / 24389.0
            let above = t .> t0
            let c = inverseCubeRoot(t.replacingLanes(with: t0, where: .!above))
            let c2 = c * c
            return ((t * c2).replacingLanes(with: 841.0 / 108.0 * t + 4.0 / 29.0, where: .!above),
                    (c2 * (1.0 / 3)).replacingLanes(with: 841.0 / 108.0, where: .!above))
        }
        let fx = lightnessFunction(k.mx), fy = lightnessFunction(k.my), fz = lightnessFunction(k.mz)
        let gx = fx.slope, gy = fy.slope, gz = fz.slope
        // σ is measured in the criterion's metric: CIEDE2000 without its lightness term, to first
        // order at the pixel's a*, b* (ChromaDifferenceMetric).
        let metric = ChromaDifferenceMetric(a: 500 * (fx.value - fy.value), b: 200 * (fy.value - fz.value))
        // The Jacobian of a*, b* on camera RGB has column c = (500·(m_x,c·g_x − m_y,c·g_y),
        // 200·(m_y,c·g_y − m_z,c·g_z)). Independent errors: each channel's variance times its
        // column's squared length in the metric, one column at a time.
        @inline(always) func columnNorm2(_ c: Int) -> Lanes {
            let y = k.my[c] * gy
            return metric.squaredDifference(500 * (k.mx[c] * gx - y), 200 * (y - k.mz[c] * gz))
        }
        var total = r.independent * columnNorm2(0) + g.independent * columnNorm2(1) + bl.independent * columnNorm2(2)
        // Fully correlated errors e (the exposure ratio's δ·A, the guide's ā·δI): |J·e|² in the
        // metric, through the matrix rows' dot products with e (J is never formed: fewer live vectors).
        @inline(always) func correlated(_ e0: Lanes, _ e1: Lanes, _ e2: Lanes) -> Lanes {
            correlatedChromaError((e0, e1, e2), slopes: (gx, gy, gz), metric: metric, k)
        }
        let ambient = (f.0 - d.0, f.1 - d.1, f.2 - d.2)
        total += (k.delta * k.delta) * correlated(ambient.0, ambient.1, ambient.2)
        if k.deviates {
            let e = k.colourDeviation
            total += correlated(ambient.0 * e.x, ambient.1 * e.y, ambient.2 * e.z)
        }
        total += guideVariance * correlated(r.gain, g.gain, bl.gain)  // (σ_I·ā_c)-errors: σ_I² times the gains' norm
        // A handed-back pixel's disagreement with the model, one error across the channels (a fringe
        // moves chroma as a whole); only vectors with such a pixel pay for it.
        if ((r.handBack .!= zero) .| (g.handBack .!= zero) .| (bl.handBack .!= zero)).anyLane {
            total += handBackAmbiguity * correlated(r.handBack, g.handBack, bl.handBack)
        }
        // Light cannot be negative: a channel of the flash-only estimate further below zero than twice
        // its whole standard deviation (noise, exposure ratio, guide) is off by at least the rest (a
        // wrong ambient sample: local motion, misregistration, an ambient brighter than the flash
        // frame), counted as a correlated error; and where the three channels' sum is below −3σ
        // the pixel measured no flash light at all (a neutral shortfall moves no chroma): no information.
        // (Only vectors with a negative channel pay for it, in a call of its own.)
        var noLight = SIMDMask<SIMD8<Int32>>(repeating: false)
        if ((r.value .< zero) .| (g.value .< zero) .| (bl.value .< zero)).anyLane {
            let n = negativeLight(value: (r.value, g.value, bl.value), independent: (r.independent, g.independent, bl.independent),
                                  gain: (r.gain, g.gain, bl.gain), f: f, guideVariance: guideVariance, slopes: (gx, gy, gz),
                                  metric: metric, k)
            total += n.error
            noLight = n.noLight
        }
        let q2 = total * (1 / (noiseScaleDeltaE * noiseScaleDeltaE))
        var c = 1 / (1 + q2)
        c = c.replacingLanes(with: zero, where: .!(c .> zero)).replacingLanes(with: one, where: c .> one)  // NaN → 0
        c = c.replacingLanes(with: zero, where: (invalid .> 0) .| noLight)
        return ((r.value, g.value, bl.value), (r.independent, g.independent, bl.independent), (r.gain, g.gain, bl.gain), c)
    }

    /// The negative-light part of the kernel: a channel further below zero than twice its whole
    /// standard deviation (noise, exposure ratio, guide) is off by at least the rest, returned as the
    /// squared chroma error of that shortfall; `noLight` where the channels' sum is below −3σ.
    @inline(never)
    static func negativeLight(value v: (Lanes, Lanes, Lanes), independent: (Lanes, Lanes, Lanes), gain: (Lanes, Lanes, Lanes),
                              f: (Lanes, Lanes, Lanes), guideVariance: Lanes, slopes: (Lanes, Lanes, Lanes),
                              metric: ChromaDifferenceMetric, _ k: KernelConstants) -> (error: Lanes, noLight: SIMDMask<SIMD8<Int32>>) {
        let zero = Lanes(repeating: 0)
        // Each channel's relative variance of the subtracted ambient: the common δ² and its deviation ε_c².
        let relative = k.delta * k.delta + k.colourDeviation * k.colourDeviation
        @inline(always) func variance(_ v: Lanes, _ independent: Lanes, _ gain: Lanes, _ f: Lanes, _ relative: Float) -> Lanes {
            let a = f - v
            return independent + relative * a * a + gain * gain * guideVariance
        }
        let vr = variance(v.0, independent.0, gain.0, f.0, relative.x), vg = variance(v.1, independent.1, gain.1, f.1, relative.y),
            vb = variance(v.2, independent.2, gain.2, f.2, relative.z)
        @inline(always) func shortfall(_ v: Lanes, _ variance: Lanes) -> Lanes {
            let e = v + 2 * variance.squareRoot()
            return e.replacingLanes(with: zero, where: e .> zero)
        }
        let error = correlatedChromaError((shortfall(v.0, vr), shortfall(v.1, vg), shortfall(v.2, vb)),
                                          slopes: slopes, metric: metric, k)
        return (error, (v.0 + v.1 + v.2) .< -3 * (vr + vg + vb).squareRoot())
    }

    /// |J·e|² in the chroma metric of a fully correlated camera-RGB error `e`, through the matrix rows'
    /// dot products with `e` and the CIELAB slopes at the pixel (J is never formed: fewer live vectors).
    @inline(always)
    static func correlatedChromaError(_ e: (Lanes, Lanes, Lanes), slopes: (Lanes, Lanes, Lanes),
                                      metric: ChromaDifferenceMetric, _ k: KernelConstants) -> Lanes {
        let x = (k.mx.x * e.0 + k.mx.y * e.1 + k.mx.z * e.2) * slopes.0
        let y = (k.my.x * e.0 + k.my.y * e.1 + k.my.z * e.2) * slopes.1
        let z = (k.mz.x * e.0 + k.mz.y * e.1 + k.mz.z * e.2) * slopes.2
        return metric.squaredDifference(500 * (x - y), 200 * (y - z))
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
