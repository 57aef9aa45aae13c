/// Stage 7 of SPEC: where confidence is low, blend toward the flash frame rendered with the same
/// white balance, matrix and exposure level, so that the output has neither noise nor odd colors
/// there. The linear measurement output is not gap-filled: its low-confidence pixels are what the
/// confidence map says they are.
public enum GapFill {
    /// Confidence at and above which a pixel is entirely the dark-room estimate.
    public static let fullWeightConfidence: Float = 0.5

    /// Blend weight of the dark-room estimate for a confidence (smoothstep from 0 to
    /// `fullWeightConfidence`).
    @inlinable public static func weight(confidence c: Float) -> Float {
        let t = min(1, max(0, c / fullWeightConfidence))
        return t * t * (3 - 2 * t)
    }

    /// The rendered output in one pass: the dark-room estimate and the flash frame (both camera RGB)
    /// through their matrices to linear output RGB, blended with weight `weight(confidence:)` for the
    /// dark-room rendering, then the global tone curve and γ to 16-bit code values (0…65535 as `Float`).
    /// The result takes the dark-room image's buffer (pixel by pixel, each read before it is
    /// written), so a caller that hands over its only reference allocates nothing.
    /// - Precondition: the three images have the same size (3, 3 and 1 channels).
    public static func render16(darkRoom: consuming PlanarImage, flashFrame: PlanarImage, confidence: PlanarImage,
                                darkRoomMatrix: Matrix3, flashMatrix: Matrix3, curve: ToneCurve) -> PlanarImage {
        precondition(darkRoom.pixelCount == flashFrame.pixelCount && confidence.pixelCount == darkRoom.pixelCount)
        let n = darkRoom.pixelCount, w = darkRoom.width
        let md = darkRoomMatrix.floats, mf = flashMatrix.floats
        let dRows = (SIMD3(md[0], md[1], md[2]), SIMD3(md[3], md[4], md[5]), SIMD3(md[6], md[7], md[8]))
        let fRows = (SIMD3(mf[0], mf[1], mf[2]), SIMD3(mf[3], mf[4], mf[5]), SIMD3(mf[6], mf[7], mf[8]))
        let height = darkRoom.height
        var out = darkRoom
        curve.withTable { tBuffer, domain, size in
        flashFrame.samples.withUnsafeBufferPointer { fBuffer in
        confidence.samples.withUnsafeBufferPointer { cBuffer in
        out.samples.withUnsafeMutableBufferPointer { oBuffer in
            let inputs = UncheckedSendableBox((tBuffer, UnsafePointer(oBuffer.baseAddress!), fBuffer.baseAddress!, cBuffer.baseAddress!))
            let o = SharedMutableBuffer(oBuffer)
            typealias Lanes = SIMD8<Float>
            let lanes = Lanes.scalarCount
            forEachRowBand(rowCount: height) { rows in
                let (t, d, f, c) = inputs.value
                @inline(always) func code(_ x: Lanes) -> Lanes {
                    ToneCurve.code16(x, table: t.baseAddress!, domain: domain, size: size)
                }
                var i = rows.lowerBound * w
                let end = rows.upperBound * w
                while i < end {
                    let count = min(lanes, end - i)
                    @inline(always) func load(_ p: UnsafePointer<Float>) -> Lanes {
                        if count == lanes { return UnsafeRawPointer(p + i).loadUnaligned(as: Lanes.self) }
                        var v = Lanes()
                        for k in 0..<count { v[k] = p[i + k] }
                        return v
                    }
                    let dr = load(d), dg = load(d + n), db = load(d + 2 * n)
                    let fr = load(f), fg = load(f + n), fb = load(f + 2 * n)
                    // Blend weight, as `weight(confidence:)`.
                    let a = load(c).smoothstep(from: 0, to: fullWeightConfidence)
                    @inline(always) func mix(_ row: SIMD3<Float>, _ frow: SIMD3<Float>) -> Lanes {
                        let dark = row.x * dr + row.y * dg + row.z * db
                        let flash = frow.x * fr + frow.y * fg + frow.z * fb
                        return a * dark + (1 - a) * flash
                    }
                    let r = code(mix(dRows.0, fRows.0)), g = code(mix(dRows.1, fRows.1)), b = code(mix(dRows.2, fRows.2))
                    if count == lanes {
                        UnsafeMutableRawPointer(o.base + i).storeBytes(of: r, as: Lanes.self)
                        UnsafeMutableRawPointer(o.base + n + i).storeBytes(of: g, as: Lanes.self)
                        UnsafeMutableRawPointer(o.base + 2 * n + i).storeBytes(of: b, as: Lanes.self)
                    } else {
                        for k in 0..<count {
                            o[i + k] = r[k]; o[n + i + k] = g[k]; o[2 * n + i + k] = b[k]
                        }
                    }
                    i += count
                }
            }
        }}}}
        return out
    }

    /// The exposure that makes the flash frame's rendering as bright as the dark-room rendering
    /// where the estimate is trusted: the median of `Y_D / Y_F` over pixels with confidence ≥ 0.5
    /// (all of them up to 500 000 pixels, else whole rows at a regular step).
    public static func matchingScale(darkRoomCamera: PlanarImage, flashCamera: PlanarImage,
                                     confidence: PlanarImage, cameraToXYZ: Matrix3) -> Double {
        let n = darkRoomCamera.pixelCount
        let row = cameraToXYZ.rows[1].map(Float.init)
        let (r0, r1, r2) = (row[0], row[1], row[2])
        // About 500 000 samples as whole rows at a regular row step (contiguous reads: a strided
        // pick of single pixels touched a new cache line in each of seven planes per sample).
        let w = darkRoomCamera.width, h = darkRoomCamera.height
        let rowStep = max(1, h / max(1, (500_000 + w - 1) / max(1, w)))
        var ratios: [Float] = darkRoomCamera.samples.withUnsafeBufferPointer { dBuffer in
        flashCamera.samples.withUnsafeBufferPointer { fBuffer in
        confidence.samples.withUnsafeBufferPointer { cBuffer in
            let inputs = UncheckedSendableBox((dBuffer, fBuffer, cBuffer))
            return collectInRowBands(rowCount: (h + rowStep - 1) / rowStep) { (sampledRows: Range<Int>, ratios: inout [Float]) in
                let (d, f, c) = inputs.value
                for sampledRow in sampledRows {
                    for i in (sampledRow * rowStep * w)..<(sampledRow * rowStep * w + w) {
                        guard c[i] >= 0.5 else { continue }
                        let yd = r0 * d[i] + r1 * d[n + i] + r2 * d[2 * n + i]
                        let yf = r0 * f[i] + r1 * f[n + i] + r2 * f[2 * n + i]
                        if yf > 0 && yd > 0 { ratios.append(yd / yf) }
                    }
                }
            }
        }}}
        guard !ratios.isEmpty else { return 1 }
        let k = ratios.count / 2
        return Double(ratios.withUnsafeMutableBufferPointer { $0.partitionAtMedian(k) })
    }
}
