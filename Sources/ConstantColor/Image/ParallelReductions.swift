import Dispatch

/// Reductions over whole frames, in parallel row bands: the small serial loops after the big
/// passes (counting flags, sampling for a median) were a tenth of the pipeline's wall time at 12 MP.

/// Number of bytes of `bytes` that have any bit of `mask` set, eight bytes at a time in parallel bands.
package func countBytes(_ bytes: [UInt8], withAnyBitOf mask: UInt8) -> Int {
    let n = bytes.count
    guard n > 0 else { return 0 }
    let words = n / 8
    let chunk = 1 << 16
    var counts = [Int](repeating: 0, count: (words + chunk - 1) / chunk)
    bytes.withUnsafeBytes { raw in
        let base = UncheckedSendableBox(raw.baseAddress!)
        counts.withUnsafeMutableBufferPointer { countBuffer in
            let out = SharedMutableBuffer(countBuffer)
            forEachRowBand(rowCount: countBuffer.count, minimumRowsPerBand: 1) { chunks in
                let m = UInt64(mask) &* 0x0101_0101_0101_0101
                let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F, high: UInt64 = 0x8080_8080_8080_8080
                for c in chunks {
                    var count = 0
                    for k in (c * chunk)..<min(words, (c + 1) * chunk) {
                        let v = base.value.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self) & m
                        // The high bit of each byte of t is set where that byte of v is nonzero.
                        let t = (((v & low7) &+ low7) | v) & high
                        count += t.nonzeroBitCount
                    }
                    out[c] = count
                }
            }
        }
    }
    var total = counts.reduce(0, +)
    for i in (8 * words)..<n where bytes[i] & mask != 0 { total += 1 }
    return total
}

/// Runs `body` on row bands of `0..<rowCount` in parallel, each appending to its own array, and
/// returns the arrays joined in row order (the same result whatever the number of bands).
package func collectInRowBands<T>(rowCount: Int, _ body: (Range<Int>, inout [T]) -> Void) -> [T] {
    let bands = rowBands(rowCount: rowCount)
    var parts = [[T]](repeating: [], count: bands.count)
    parts.withUnsafeMutableBufferPointer { buffer in
        let out = SharedMutableBuffer(buffer)
        withoutActuallyEscaping(body) { body in
            let box = UncheckedSendableBox(body)
            DispatchQueue.concurrentPerform(iterations: bands.count) { band in
                var part: [T] = []
                box.value(bands[band], &part)
                out[band] = part
            }
        }
    }
    return parts.flatMap { $0 }
}
