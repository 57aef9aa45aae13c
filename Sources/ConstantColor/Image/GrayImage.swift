/// A single-channel `Float` image for analysis (registration features, local statistics).
public struct GrayImage: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Row-major samples.
    public var pixels: [Float]

    /// An image filled with `value`.
    public init(width: Int, height: Int, repeating value: Float = 0) {
        self.width = width; self.height = height
        pixels = [Float](repeating: value, count: width * height)
    }

    /// Wraps samples; `pixels.count == width * height`.
    public init(width: Int, height: Int, pixels: [Float]) {
        precondition(pixels.count == width * height)
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// Sample at integer position.
    @inlinable public subscript(x: Int, y: Int) -> Float { pixels[y * width + x] }

    /// Halves the size by averaging 2×2 blocks (odd last row/column dropped). A point at continuous
    /// coordinate `x` maps to `x / 2`.
    public func downsampled2x() -> GrayImage {
        pixels.withUnsafeBufferPointer { Self.downsampled2x($0, width: width, height: height) }
    }

    /// `downsampled2x` of a row-major plane given by pointer (e.g. one plane of a `PlanarImage`,
    /// without copying it into a `GrayImage` first).
    public static func downsampled2x(_ source: UnsafeBufferPointer<Float>, width sw: Int, height sh: Int) -> GrayImage {
        precondition(source.count >= sw * sh)
        let w = sw / 2, h = sh / 2
        var out = GrayImage(width: w, height: h)
        out.pixels.withUnsafeMutableBufferPointer { dstBuffer in
            let dst = SharedMutableBuffer(dstBuffer)
            let s = UncheckedSendableBox(source)
            forEachRowBand(rowCount: h, minimumRowsPerBand: 64) { rows in
                for y in rows {
                    let r0 = 2 * y * sw, r1 = r0 + sw
                    for x in 0..<w {
                        dst[y * w + x] = 0.25 * (s.value[r0 + 2 * x] + s.value[r0 + 2 * x + 1]
                                                 + s.value[r1 + 2 * x] + s.value[r1 + 2 * x + 1])
                    }
                }
            }
        }
        return out
    }

    /// `downsampled2x` applied twice, in one pass over the source (the same arithmetic: each output
    /// is the 2×2 mean of four 2×2 means), so that a large plane is read once and no half-size
    /// intermediate is written.
    public static func downsampled4x(_ source: UnsafeBufferPointer<Float>, width sw: Int, height sh: Int) -> GrayImage {
        precondition(source.count >= sw * sh)
        let w = sw / 2 / 2, h = sh / 2 / 2
        var out = GrayImage(width: w, height: h)
        out.pixels.withUnsafeMutableBufferPointer { dstBuffer in
            let dst = SharedMutableBuffer(dstBuffer)
            let s = UncheckedSendableBox(source)
            forEachRowBand(rowCount: h, minimumRowsPerBand: 32) { rows in
                let p = s.value.baseAddress!
                for y in rows {
                    let r0 = p + 4 * y * sw, r1 = r0 + sw, r2 = r1 + sw, r3 = r2 + sw
                    for x in 0..<w {
                        let c = 4 * x
                        let a = 0.25 * (r0[c] + r0[c + 1] + r1[c] + r1[c + 1])
                        let b = 0.25 * (r0[c + 2] + r0[c + 3] + r1[c + 2] + r1[c + 3])
                        let d = 0.25 * (r2[c] + r2[c + 1] + r3[c] + r3[c + 1])
                        let e = 0.25 * (r2[c + 2] + r2[c + 3] + r3[c + 2] + r3[c + 3])
                        dst[y * w + x] = 0.25 * (a + b + d + e)
                    }
                }
            }
        }
        return out
    }

    /// Mean over a (2r+1)² box at each pixel, edges handled by clamping the window to the image
    /// (the mean is over the pixels inside); `BoxFilter.mean`.
    public func boxMean(radius r: Int) -> GrayImage {
        GrayImage(width: width, height: height, pixels: BoxFilter.mean(pixels, width: width, height: height, radius: r))
    }

    /// Bilinear sample at continuous coordinates (pixel centers at half-integers); `nil` outside
    /// the area where all four neighbours exist.
    @inlinable public func bilinear(x: Float, y: Float) -> Float? {
        let fx = x - 0.5, fy = y - 0.5
        guard fx >= 0, fy >= 0, fx <= Float(width - 1), fy <= Float(height - 1) else { return nil }
        let x0 = min(Int(fx), width - 2), y0 = min(Int(fy), height - 2)
        let ax = fx - Float(x0), ay = fy - Float(y0)
        let i = y0 * width + x0
        let top = pixels[i] + ax * (pixels[i + 1] - pixels[i])
        let bottom = pixels[i + width] + ax * (pixels[i + width + 1] - pixels[i + width])
        return top + ay * (bottom - top)
    }
}
