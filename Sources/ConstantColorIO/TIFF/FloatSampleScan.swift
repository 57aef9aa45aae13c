import ConstantColor

/// Finds the first non-finite sample of a planar image in raster order (row, then column, then
/// channel), scanning row bands in parallel. Returns nil when every sample is finite.
func firstNonFiniteSample(_ samples: UnsafeBufferPointer<Float>, width: Int, height: Int,
                          channelCount: Int) -> (x: Int, y: Int, channel: Int)? {
    scanFloatSamples(samples, width: width, height: height, channelCount: channelCount, findingLargest: false).firstNonFinite
}

/// The first non-finite sample of a planar image in raster order (row, then column, then channel;
/// nil when every sample is finite) and, with `findingLargest` and none found, the largest sample:
/// one pass over the samples in parallel row bands (the reader's checks of a float file; a serial
/// `max()` over a 12 MP frame's 36 million samples took longer than decoding them).
///
/// A float is NaN or infinite exactly when its exponent bits are all ones (IEEE 754-2008 §3.4);
/// the scan ORs a per-sample flag over each row, which vectorizes, and only locates the pixel in
/// a row that has one. `largest` is −∞ for an empty image or without `findingLargest`, and
/// meaningless when a non-finite sample was found.
func scanFloatSamples(_ samples: UnsafeBufferPointer<Float>, width: Int, height: Int, channelCount: Int,
                      findingLargest: Bool = true) -> (firstNonFinite: (x: Int, y: Int, channel: Int)?, largest: Float) {
    let plane = width * height
    let base = UncheckedSendableBox(samples)
    let found = FirstFinding<(x: Int, y: Int, channel: Int)>()
    var rowLargest = [Float](repeating: -.infinity, count: findingLargest ? height : 0)
    rowLargest.withUnsafeMutableBufferPointer { largestBuffer in
        let largestOut = SharedMutableBuffer(largestBuffer)
        forEachRowBand(rowCount: height, minimumRowsPerBand: max(16, (1 << 18) / max(1, width * channelCount))) { rows in
            let p = base.value.baseAddress!
            for y in rows {
                var rowHit: (x: Int, channel: Int)?
                var top = SIMD8<Float>(repeating: -.infinity), tail = -Float.infinity
                for c in 0..<channelCount {
                    let row = UnsafeRawPointer(p + c * plane + y * width).assumingMemoryBound(to: UInt32.self)
                    var flags: UInt32 = 0
                    for x in 0..<width {
                        flags |= (row[x] & 0x7F80_0000) &+ 0x0080_0000
                    }
                    let floats = p + c * plane + y * width
                    guard flags & 0x8000_0000 != 0 else {
                        guard findingLargest else { continue }
                        // All finite: the row's largest, eight lanes at a time.
                        var x = 0
                        while x + 8 <= width {
                            let v = UnsafeRawPointer(floats + x).loadUnaligned(as: SIMD8<Float>.self)
                            top = top.replacingLanes(with: v, where: v .> top)
                            x += 8
                        }
                        while x < width { tail = Swift.max(tail, floats[x]); x += 1 }
                        continue
                    }
                    for x in 0..<width where !floats[x].isFinite {
                        if rowHit == nil || x < rowHit!.x { rowHit = (x, c) }
                        break
                    }
                }
                if let hit = rowHit {
                    found.record(order: y, (hit.x, y, hit.channel))
                    return
                }
                if findingLargest { largestOut[y] = Swift.max(top.max(), tail) }
            }
        }
    }
    return (found.value, rowLargest.max() ?? -.infinity)
}
