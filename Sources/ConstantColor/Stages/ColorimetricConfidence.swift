/// Stage 6c: the colour confidence — the measurement confidence of `Confidence` with the flash
/// profile's colorimetric uncertainty (the 3×3 matrix's expected error at the pixel's colour,
/// `ColorimetricUncertainty`) counted in its σ.
///
/// The measurement confidence is `c_m = 1 / (1 + σ_m²/σ₀²)` (σ₀ = `Confidence.noiseScaleDeltaE`). With
/// the matrix's error as a fourth independent source, `σ² = σ_m² + σ_cal²`, and
/// `c = 1 / (1 + σ²/σ₀²) = c_m / (1 + c_m·σ_cal²/σ₀²)` — computed from `c_m` without σ_m, so a pixel the
/// measurement gave 0 (clipped, no ambient sample) stays 0. σ_cal² is the map's rms² (ΔE00², added
/// with factor 1, see `Confidence`), bilinear in the node variances at the flash-white-balanced camera
/// chromaticity of the pixel's noise-reduced dark-room value (after the flash's colour shading is
/// corrected, so that the balance is the local flash white's).
///
/// Why a separate map: the measurement confidence says whether the flash/no-flash capture worked
/// (SPEC 2.6: signal-to-noise, clipping, registration, motion). It drives the gap fill and the
/// decision, because neither can do anything about the matrix: the flash-frame rendering the gap fill
/// blends toward and the fallback photo go through the same matrix. The colour confidence says how
/// close a pixel is to its surface's true colour (issue 7's honesty), which on saturated surfaces the
/// camera's spectral sensitivities limit, whatever the capture.
public enum ColorimetricConfidence {
    /// The colour confidence: `measurement` with `lookup`'s σ_cal² counted, at the colours of
    /// `darkRoom` (normalized camera RGB, 3 planes, same size). A new plane (in `storage` when it is
    /// large enough: a buffer nothing reads any more); the inputs are unchanged.
    public static func apply(_ lookup: ColorimetricUncertainty.Lookup, darkRoom: PlanarImage,
                             measurement: PlanarImage, reusing storage: consuming [Float] = []) -> PlanarImage {
        let w = darkRoom.width, h = darkRoom.height, n = w * h
        precondition(darkRoom.channelCount == 3 && measurement.width == w && measurement.height == h
                     && measurement.channelCount == 1)
        var out = PlanarImage(width: w, height: h, channelCount: 1, reusing: consume storage)
        let inverseScale2 = 1 / (Confidence.noiseScaleDeltaE * Confidence.noiseScaleDeltaE)
        darkRoom.samples.withUnsafeBufferPointer { dBuffer in
        measurement.samples.withUnsafeBufferPointer { mBuffer in
        lookup.variance.withUnsafeBufferPointer { nodes in
        out.samples.withUnsafeMutableBufferPointer { oBuffer in
            let o = SharedMutableBuffer(oBuffer)
            let grid = Grid(nodes: nodes.baseAddress!, size: lookup.gridSize, inverseWhite: lookup.inverseWhite)
            let inputs = UncheckedSendableBox((dBuffer.baseAddress!, mBuffer.baseAddress!, grid))
            forEachRowBand(rowCount: h) { rows in
                let (d, m, grid) = inputs.value
                let start = rows.lowerBound * w, end = rows.upperBound * w
                var i = start
                // Eight pixels at a time, then the band's tail through a zero-padded vector.
                while i < end {
                    let count = min(Lanes.scalarCount, end - i)
                    @inline(always) func load(_ p: UnsafePointer<Float>) -> Lanes {
                        if count == Lanes.scalarCount { return UnsafeRawPointer(p + i).loadUnaligned(as: Lanes.self) }
                        var v = Lanes(repeating: 0)
                        for k in 0..<count { v[k] = p[i + k] }
                        return v
                    }
                    let c = load(m)
                    let variance = grid.variance(load(d), load(d + n), load(d + 2 * n))
                    let result = c / (1 + c * variance * inverseScale2)
                    if count == Lanes.scalarCount {
                        UnsafeMutableRawPointer(o.base + i).storeBytes(of: result, as: Lanes.self)
                    } else {
                        for k in 0..<count { o[i + k] = result[k] }
                    }
                    i += count
                }
            }
        }}}}
        return out
    }

    /// The vector of pixels worked on at once.
    typealias Lanes = SIMD8<Float>

    /// A colorimetric uncertainty grid ready for vector lookup.
    struct Grid {
        /// rms² per node (ΔE00²), `size`², `u` fastest.
        var nodes: UnsafePointer<Float>
        /// Nodes per axis.
        var size: Int
        /// 1 / flash white per channel.
        var inverseWhite: SIMD3<Float>

        /// σ_cal² at the pixels' colours (camera RGB `r, g, b`): bilinear in the node variances at
        /// u = r'/(r'+g'+b'), v = b'/(r'+g'+b') of the balanced RGB, clamped to [0, 1]²; a
        /// non-positive sum (no colour) looks up the flash white.
        @inline(always) func variance(_ r: Lanes, _ g: Lanes, _ b: Lanes) -> Lanes {
            let br = r * inverseWhite.x, bg = g * inverseWhite.y, bb = b * inverseWhite.z
            let sum = br + bg + bb
            let third = Lanes(repeating: 1.0 / 3), zero = Lanes(repeating: 0)
            let coloured = sum .> 0
            let n = Float(size - 1)
            let scale = n / sum
            // Node coordinates, clamped to [0, n]; NaN (no colour) → the white's.
            var gu = (br * scale).replacingLanes(with: third * n, where: .!coloured)
            var gv = (bb * scale).replacingLanes(with: third * n, where: .!coloured)
            let top = Lanes(repeating: n)
            gu = gu.replacingLanes(with: zero, where: .!(gu .> zero)).replacingLanes(with: top, where: gu .> top)
            gv = gv.replacingLanes(with: zero, where: .!(gv .> zero)).replacingLanes(with: top, where: gv .> top)
            // Lower node of each pixel's cell, clamped to the last cell.
            let lastCell = Lanes(repeating: n - 1)
            let fu = gu.clampedCell(last: lastCell), fv = gv.clampedCell(last: lastCell)
            let tu = gu - fu, tv = gv - fv
            let k = (fv * Float(size) + fu).exactIntegerLanes  // exact: below 2²³
            let p0 = nodes + Int(k[0]), p1 = nodes + Int(k[1]), p2 = nodes + Int(k[2]), p3 = nodes + Int(k[3]),
                p4 = nodes + Int(k[4]), p5 = nodes + Int(k[5]), p6 = nodes + Int(k[6]), p7 = nodes + Int(k[7])
            // Node reads per lane, gathered into vectors by initializer (not lane by lane).
            @inline(always) func gather(_ offset: Int) -> Lanes {
                Lanes(p0[offset], p1[offset], p2[offset], p3[offset], p4[offset], p5[offset], p6[offset], p7[offset])
            }
            let v00 = gather(0), v10 = gather(1), v01 = gather(size), v11 = gather(size + 1)
            let upper = v00 + tu * (v10 - v00), lower = v01 + tu * (v11 - v01)
            return upper + tv * (lower - upper)
        }
    }
}
