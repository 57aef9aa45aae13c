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
    /// With a label map: the square's pixels that carry the patch's own material label (nil without one).
    public var ownLabelCount: Int? = nil
    /// With a label map: fewer than `PatchLabelMask.minimumOwnFraction` of the square's pixels carry the
    /// patch's own label (another material covers it). The median is then over the whole square (what
    /// covers it), and the sample must not be scored.
    public var occluded: Bool = false
    /// Fraction of the square's pixels carrying the patch's own label (nil without a label map).
    public var ownLabelFraction: Double? {
        ownLabelCount.map { pixelCount == 0 ? 0 : Double($0) / Double(pixelCount) }
    }
    /// Fraction of the sampled pixels (the own-label pixels with a label map, else the square's) that are clipped.
    public var clippedFraction: Double {
        let n = occluded ? pixelCount : (ownLabelCount ?? pixelCount)
        return n == 0 ? 1 : 1 - Double(usableCount) / Double(n)
    }
    /// More than half of the sampled pixels are clipped (an occluded sample is never): the median is
    /// then over what is left of the patch, not a measurement of it.
    public var mostlyClipped: Bool { PatchSampling.isMostlyClipped(clippedFraction: clippedFraction, occluded: occluded) }
}

/// What `PatchSampling.sample(_:chart:clipped:labels:mostlyClippedPatches:file:)` does with a patch
/// that is mostly clipped while most of the chart is not.
public enum MostlyClippedPatches: Sendable {
    /// Throw `PatchSamplingError.mostlyClipped` (`calibrate chart`: a profile fitted without a patch
    /// is another profile than the user asked for).
    case refused
    /// Return the sample flagged (`PatchSample.mostlyClipped`) for the caller to leave out and
    /// report (`validate`: one flash highlight on one patch of one condition does not void a set).
    case flagged
}

/// A material label map (one plane, same size as the sampled image) that restricts each patch's sample
/// to the pixels of its own material, so that an object lying over a patch is not taken for the patch.
public struct PatchLabelMask: Sendable {
    /// A patch with fewer own-label pixels than this fraction of its square is occluded.
    public static let minimumOwnFraction = 0.25
    /// The label map (label per pixel, stored as Float).
    public var map: PlanarImage
    /// Each patch's own material label, in chart order.
    public var labels: [Int]
    /// The label map's path, named in errors.
    public var file: String

    /// Creates a mask.
    public init(map: PlanarImage, labels: [Int], file: String) {
        self.map = map; self.labels = labels; self.file = file
    }

    /// The label `requiringAgreement` gives a pixel the two frames did not see alike: no label map
    /// holds it (8-bit labels), so it is no patch's and no mixed label's.
    public static let disagreementLabel: Float = -1

    /// This flash-frame mask with a pixel kept only where the ambient frame saw the same material
    /// all around its position there: the 3×3 ambient pixels about `ambientFromFlash`·(x + ½, y + ½)
    /// (pixel (i, j) covers [i, i+1) × [j, j+1)), the footprint of the bilinear resampling and of a
    /// demosaiced sample's neighbours. Elsewhere `disagreementLabel`: the fused output there subtracts
    /// another material's ambient light (an object that moved between the frames) and is no sample of
    /// the flash frame's material. Pixels whose footprint leaves the ambient frame get it too.
    /// `ambientFromFlash` is the true geometry (the scene's), so that a registration error of the
    /// pipeline is not forgiven.
    public func requiringAgreement(with ambient: PatchLabelMask, ambientFromFlash m: Matrix3) -> PatchLabelMask {
        let w = map.width, h = map.height, aw = ambient.map.width, ah = ambient.map.height
        var out = map
        for y in 0..<h {
            for x in 0..<w {
                let label = map[x, y, 0]
                let q = m * SIMD3(Double(x) + 0.5, Double(y) + 0.5, 1)
                let fx = (q.x / q.z).rounded(.down), fy = (q.y / q.z).rounded(.down)
                var same = q.z > 0 && fx >= 1 && fy >= 1 && fx < Double(aw - 1) && fy < Double(ah - 1)  // (false for NaN)
                if same {
                    let ax = Int(fx), ay = Int(fy)
                    for dy in -1...1 { for dx in -1...1 where ambient.map[ax + dx, ay + dy, 0] != label { same = false } }
                }
                if !same { out[x, y, 0] = Self.disagreementLabel }
            }
        }
        return PatchLabelMask(map: out, labels: labels, file: file)
    }
}

/// Why a chart could not be sampled; every message names the patch and the file.
public enum PatchSamplingError: Error, Equatable, CustomStringConvertible {
    /// The patch's square does not lie inside the image.
    case outsideImage(file: String, patch: String, width: Int, height: Int)
    /// The label map's size or patch count does not match the image or the chart.
    case labelMapMismatch(file: String, problem: String)
    /// More than half of one patch's pixels are clipped.
    case mostlyClipped(file: String, patch: String, clippedPercent: Int)
    /// More than half of the patches are mostly clipped.
    case mostPatchesClipped(file: String, clipped: Int, total: Int, first: String)
    /// More than half of the patches lie mostly where the frames disagree (`PixelFlag.framesDisagree`).
    case mostPatchesFramesDisagree(file: String, count: Int, total: Int, first: String)
    /// More than half of the patches are mostly clipped or where the frames disagree, together.
    case mostPatchesUnmeasured(file: String, count: Int, total: Int, first: String)
    /// No neutral patch is left to fix the exposure (all occluded or unmeasurable); `cause`: what the
    /// fusion measured that explains it (exposure tags far off), when it did.
    case noNeutralPatch(file: String, cause: String? = nil)

    public var description: String {
        switch self {
        case .outsideImage(let f, let p, let w, let h):
            return "\(f): patch '\(p)': its square lies outside the \(w)x\(h) image (check the chart description's center and halfSize)"
        case .labelMapMismatch(let f, let p):
            return "\(f): \(p)"
        case .mostlyClipped(let f, let p, let c):
            return "\(f): patch '\(p)' is mostly clipped (\(c) % of its pixels at the white level); shoot with less exposure"
        case .mostPatchesClipped(let f, let n, let t, let first):
            return "\(f): \(n) of \(t) patches are mostly clipped (first: '\(first)'), at the white level or far below black: the capture is overexposed (shoot with less exposure) or the camera profile's black and white levels are not this file's (its bit depth)"
        case .mostPatchesFramesDisagree(let f, let n, let t, let first):
            return "\(f): \(n) of \(t) patches lie mostly where the frames disagree (first: '\(first)'): something moved over the chart between the flash and the ambient frame (or the ambient light changed there), so the output there is the gap fill, not a measurement; shoot the pair with the chart and what lies over it still"
        case .mostPatchesUnmeasured(let f, let n, let t, let first):
            return "\(f): \(n) of \(t) patches are mostly clipped in a frame or where the frames disagree (first: '\(first)'), so the output there is the gap fill, not a measurement: shoot with less exposure, and with the chart and what lies over it still between the frames"
        case .noNeutralPatch(let f, let cause?):
            return "\(f): no neutral patch is visible and measurable, so the exposure of SPEC 5's accuracy cannot be fixed: \(cause)"
        case .noNeutralPatch(let f, nil):
            return "\(f): no neutral patch is visible and measurable (each occluded, mostly clipped in a frame, or rendered with no positive luminance: then check the flash profile's white and matrix), so the exposure of SPEC 5's accuracy cannot be fixed"
        }
    }
}

/// Sampling of chart patches (SPEC 5: "each patch's color is the median of its central square").
public enum PatchSampling {
    /// A patch sample with more than this fraction of its pixels clipped is mostly clipped.
    public static let mostlyClippedFraction = 0.5

    /// Whether a sample with `clippedFraction` of its pixels clipped is mostly clipped (an occluded
    /// one never is: it is not the patch's).
    public static func isMostlyClipped(clippedFraction: Double, occluded: Bool) -> Bool {
        !occluded && clippedFraction > mostlyClippedFraction
    }

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
        sample(image, square: square, clipped: clipped, keep: nil)
    }

    /// As `sample(_:square:clipped:)`, but with a label map only over the pixels whose label is
    /// `label`; when fewer than `PatchLabelMask.minimumOwnFraction` of the square's pixels carry it,
    /// the sample is `occluded` and its median is over the whole square.
    public static func sample(_ image: PlanarImage, square: PatchSquare, clipped: [UInt8]? = nil,
                              labels: PlanarImage, label: Int) -> PatchSample {
        var own = [Bool](repeating: false, count: square.pixelCount)
        var ownCount = 0, k = 0
        let target = Float(label)
        for y in square.rows {
            for x in square.columns {
                if labels[x, y, 0] == target { own[k] = true; ownCount += 1 }
                k += 1
            }
        }
        let occluded = Double(ownCount) < PatchLabelMask.minimumOwnFraction * Double(square.pixelCount)
        var s = sample(image, square: square, clipped: clipped, keep: occluded ? nil : own)
        s.ownLabelCount = ownCount
        s.occluded = occluded
        return s
    }

    /// The medians over the square's pixels that are unclipped and, when `keep` is given (one flag per
    /// pixel of the square, rows then columns), kept.
    static func sample(_ image: PlanarImage, square: PatchSquare, clipped: [UInt8]?, keep: [Bool]?) -> PatchSample {
        var buffer: [Float] = []
        buffer.reserveCapacity(square.pixelCount)
        var out = SIMD3<Double>(repeating: .nan)
        var usable = 0
        let w = image.width
        for c in 0..<3 {
            let plane = min(c, image.channelCount - 1)
            buffer.removeAll(keepingCapacity: true)
            var k = 0
            for y in square.rows {
                for x in square.columns {
                    defer { k += 1 }
                    if let keep, !keep[k] { continue }
                    if let clipped, clipped[y * w + x] != 0 { continue }
                    buffer.append(image[x, y, plane])
                }
            }
            usable = buffer.count
            out[c] = median(&buffer)
        }
        return PatchSample(median: out, usableCount: usable, pixelCount: square.pixelCount)
    }

    /// Samples every patch of `chart` in `image`; with `labels`, each patch only over its own
    /// material's pixels (occluded patches flagged, see `PatchLabelMask`).
    ///
    /// - Throws: `.outsideImage` for the first patch whose square leaves the image;
    ///   `.labelMapMismatch` when the label map's size or label count does not fit; with a clip
    ///   mask, `.mostPatchesClipped` when more than half of the patches are mostly clipped
    ///   (`PatchSample.mostlyClipped`; occluded patches are not checked), else, with
    ///   `mostlyClippedPatches` `.refused`, `.mostlyClipped` for the first such patch.
    public static func sample(_ image: PlanarImage, chart: ChartDescription, clipped: [UInt8]? = nil,
                              labels: PatchLabelMask? = nil, mostlyClippedPatches: MostlyClippedPatches = .refused,
                              file: String) throws(PatchSamplingError) -> [PatchSample] {
        for p in chart.patches where !PatchSquare.fits(center: p.center, halfSize: p.halfSize, width: image.width, height: image.height) {
            throw .outsideImage(file: file, patch: p.name, width: image.width, height: image.height)
        }
        if let labels {
            guard labels.map.width == image.width, labels.map.height == image.height else {
                throw .labelMapMismatch(file: labels.file, problem: "label map is \(labels.map.width)x\(labels.map.height), the image \(file) is \(image.width)x\(image.height)")
            }
            guard labels.labels.count == chart.patches.count else {
                throw .labelMapMismatch(file: labels.file, problem: "\(labels.labels.count) patch labels for \(chart.patches.count) patches")
            }
        }
        let samples = chart.patches.indices.map { i in
            let square = PatchSquare(center: chart.patches[i].center, halfSize: chart.patches[i].halfSize)
            guard let labels else { return sample(image, square: square, clipped: clipped) }
            return sample(image, square: square, clipped: clipped, labels: labels.map, label: labels.labels[i])
        }
        let bad = samples.indices.filter { samples[$0].mostlyClipped }
        if let first = bad.first {
            if 2 * bad.count > samples.count {
                throw .mostPatchesClipped(file: file, clipped: bad.count, total: samples.count, first: chart.patches[first].name)
            }
            guard mostlyClippedPatches == .refused else { return samples }
            throw .mostlyClipped(file: file, patch: chart.patches[first].name,
                                 clippedPercent: Int((100 * samples[first].clippedFraction).rounded()))
        }
        return samples
    }
}
