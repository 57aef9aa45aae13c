import ConstantColor

/// The pixels of a patch's sampled square: half-open index ranges of columns and rows.
public struct PatchSquare: Sendable, Equatable {
    /// Columns i with pixel centers i + 0.5 in [cx − h, cx + h).
    public var columns: Range<Int>
    /// Rows j with pixel centers j + 0.5 in [cy − h, cy + h).
    public var rows: Range<Int>

    /// The square of side 2h around `center` in SPEC 4.3 coordinates (pixel (i, j) covers
    /// [i, i+1) × [j, j+1)): the pixels whose centers lie inside it.
    public init(center: SIMD2<Double>, halfSize: Double) {
        func range(_ c: Double) -> Range<Int> {
            let lo = Int((c - halfSize - 0.5).rounded(.up)), hi = Int((c + halfSize - 0.5).rounded(.up))
            return lo..<max(lo, hi)
        }
        columns = range(center.x); rows = range(center.y)
    }

    /// Number of pixels in the square.
    public var pixelCount: Int { columns.count * rows.count }

    /// Whether the whole square of side 2h lies inside a `width` × `height` frame.
    public static func fits(center: SIMD2<Double>, halfSize: Double, width: Int, height: Int) -> Bool {
        center.x - halfSize >= 0 && center.y - halfSize >= 0
            && center.x + halfSize <= Double(width) && center.y + halfSize <= Double(height)
    }
}

/// A patch's robust color: per-channel median of its square over the usable (unclipped) pixels.
public struct PatchSample: Sendable, Equatable {
    /// Per-channel median over the usable pixels (NaN for a channel with none).
    public var median: SIMD3<Double>
    /// Usable pixels.
    public var usableCount: Int
    /// Pixels in the square.
    public var pixelCount: Int
    /// Fraction of the square's pixels that are clipped.
    public var clippedFraction: Double { pixelCount == 0 ? 1 : 1 - Double(usableCount) / Double(pixelCount) }
}

/// Why a chart could not be sampled; every message names the patch and the file.
public enum PatchSamplingError: Error, Equatable, CustomStringConvertible {
    /// The patch's square does not lie inside the image.
    case outsideImage(file: String, patch: String, width: Int, height: Int)
    /// More than half of one patch's pixels are clipped.
    case mostlyClipped(file: String, patch: String, clippedPercent: Int)
    /// More than half of the patches are mostly clipped.
    case mostPatchesClipped(file: String, clipped: Int, total: Int, first: String)

    public var description: String {
        switch self {
        case .outsideImage(let f, let p, let w, let h):
            return "\(f): patch '\(p)': its square lies outside the \(w)x\(h) image (check the chart description's center and halfSize)"
        case .mostlyClipped(let f, let p, let c):
            return "\(f): patch '\(p)' is mostly clipped (\(c) % of its pixels at the white level); shoot with less exposure"
        case .mostPatchesClipped(let f, let n, let t, let first):
            return "\(f): \(n) of \(t) patches are mostly clipped (first: '\(first)'); the capture is overexposed, shoot with less exposure"
        }
    }
}

/// Sampling of chart patches (SPEC 5: "each patch's color is the median of its central square").
public enum PatchSampling {
    /// Median of `values` (the mean of the two middle values for an even count); sorts in place.
    /// NaN when empty.
    public static func median<T: BinaryFloatingPoint>(_ values: inout [T]) -> Double {
        guard !values.isEmpty else { return .nan }
        values.sort()
        let n = values.count
        return n % 2 == 1 ? Double(values[n / 2]) : (Double(values[n / 2 - 1]) + Double(values[n / 2])) / 2
    }

    /// Per-channel medians of `image` (first three planes, or the single plane repeated) over a
    /// square, skipping pixels with `clipped[y·width + x] != 0` when a mask is given.
    public static func sample(_ image: PlanarImage, square: PatchSquare, clipped: [UInt8]? = nil) -> PatchSample {
        var buffer: [Float] = []
        buffer.reserveCapacity(square.pixelCount)
        var out = SIMD3<Double>(repeating: .nan)
        var usable = 0
        let w = image.width
        for c in 0..<3 {
            let plane = min(c, image.channelCount - 1)
            buffer.removeAll(keepingCapacity: true)
            for y in square.rows {
                for x in square.columns where clipped == nil || clipped![y * w + x] == 0 {
                    buffer.append(image[x, y, plane])
                }
            }
            usable = buffer.count
            out[c] = median(&buffer)
        }
        return PatchSample(median: out, usableCount: usable, pixelCount: square.pixelCount)
    }

    /// Samples every patch of `chart` in `image`.
    ///
    /// - Throws: `.outsideImage` for the first patch whose square leaves the image; with a clip
    ///   mask, `.mostPatchesClipped` when more than half of the patches have more than half of
    ///   their pixels clipped, else `.mostlyClipped` for the first such patch.
    public static func sample(_ image: PlanarImage, chart: ChartDescription, clipped: [UInt8]? = nil,
                              file: String) throws(PatchSamplingError) -> [PatchSample] {
        for p in chart.patches where !PatchSquare.fits(center: p.center, halfSize: p.halfSize, width: image.width, height: image.height) {
            throw .outsideImage(file: file, patch: p.name, width: image.width, height: image.height)
        }
        let samples = chart.patches.map { sample(image, square: PatchSquare(center: $0.center, halfSize: $0.halfSize), clipped: clipped) }
        let bad = samples.indices.filter { samples[$0].clippedFraction > 0.5 }
        if let first = bad.first {
            if 2 * bad.count > samples.count {
                throw .mostPatchesClipped(file: file, clipped: bad.count, total: samples.count, first: chart.patches[first].name)
            }
            throw .mostlyClipped(file: file, patch: chart.patches[first].name,
                                 clippedPercent: Int((100 * samples[first].clippedFraction).rounded()))
        }
        return samples
    }
}
