/// Per-pixel noise of a normalized frame as the affine function `σ² = varianceOffset + varianceSlope · v`
/// of its own normalized value `v` (Poisson–Gaussian model of `NoiseModel` divided by the exposure scale²).
public struct FrameNoise: Sendable, Equatable {
    /// Read-noise variance in normalized units².
    public var varianceOffset: Float
    /// Shot-noise variance per unit of normalized signal.
    public var varianceSlope: Float
    /// `NoiseCorrelation.blockFactor` (red, green, blue): what a 2 × 2 mean's variance is, in units of
    /// one pixel's variance / 4.
    public var blockFactor: SIMD3<Float>
    /// `NoiseCorrelation.areaFactor`: the same for large averages.
    public var areaFactor: SIMD3<Float>

    /// The noise of a frame taken with `exposure` on a camera with `noise`.
    public init(noise: NoiseModel, exposure: ExposureSettings) {
        let scale = exposure.radiometricScale
        let c = noise.coefficients(iso: exposure.isoSpeed)
        // s_DN = v·scale, σ²_DN = a + b·s_DN, σ²_v = σ²_DN / scale² = a/scale² + (b/scale)·v.
        self.init(varianceOffset: Float(c.readVarianceDN2 / (scale * scale)), varianceSlope: Float(c.shotDNPerDN / scale),
                  correlation: noise.correlation)
    }

    /// Creates the model from its two coefficients and the spatial correlation (independent pixels by default).
    public init(varianceOffset: Float, varianceSlope: Float, correlation: NoiseCorrelation = .independent) {
        self.varianceOffset = varianceOffset
        self.varianceSlope = varianceSlope
        blockFactor = SIMD3<Float>(correlation.blockFactor)
        areaFactor = SIMD3<Float>(correlation.areaFactor)
    }

    /// Whether the pixels' noise is independent (both factors 1).
    public var isIndependent: Bool { blockFactor == SIMD3(repeating: 1) && areaFactor == SIMD3(repeating: 1) }

    /// `Var(k × k mean)·k²/σ²` per channel for a block of side `k` pixels: 1 for one pixel, then
    /// `A − 2(A − B)/k` (the first-order form `S_k = A − M/k` through the 2 × 2 factor B and the area
    /// factor A = 2 S₄ − S₂; exact at k = 2 and 4, a few % low beyond for bilinear demosaicing).
    public func blockVarianceFactor(side k: Int) -> SIMD3<Float> {
        guard k > 1 else { return SIMD3(repeating: 1) }
        return areaFactor - 2 * (areaFactor - blockFactor) / Float(k)
    }

    /// Variance of a sample whose normalized value is `v` (negative values count as zero signal).
    @inlinable public func variance(_ v: Float) -> Float {
        varianceOffset + varianceSlope * max(0, v)
    }

    /// The same for eight samples (the SIMD kernels' vector).
    @inline(__always) @inlinable public func variance(_ v: SIMD8<Float>) -> SIMD8<Float> {
        varianceOffset + varianceSlope * v.replacingLanes(with: 0, where: v .< 0)
    }
}

/// A frame in linear, exposure-normalized camera RGB with its clipping mask and noise model.
///
/// Values are `(DN − black) / (t · ISO/100 / N²)` (SPEC 2.2), so that two frames of the same
/// light give the same values whatever their exposure.
public struct LinearFrame: Sendable {
    /// Normalized camera RGB, 3 planes.
    public var image: PlanarImage
    /// Non-zero where any channel was at or near the white level (bit `clippedAtWhite`) or far
    /// below the black level (bit `belowFloor`; `ExposureNormalization.floorReadNoiseDeviations`,
    /// `floorRangeFraction`), else 0; row-major, one byte a pixel. (The report's `clippedFraction`
    /// counts both ends.)
    public var clipped: [UInt8]
    /// `clipped` bit of a pixel with a channel at or near the white level.
    public static let clippedAtWhite: UInt8 = 1
    /// `clipped` bit of a pixel with a channel far below the black level.
    public static let belowFloor: UInt8 = 2
    /// The per-pixel noise model in normalized units.
    public var noise: FrameNoise
    /// The exposure the frame was taken with.
    public var exposure: ExposureSettings
    /// Channels whose samples pile up at one value below the clipping level (`SaturationPlateau`):
    /// the data saturate there, and their pixels are flagged `clippedAtWhite` as well.
    public var saturationPlateaus: [SaturationPlateau] = []
    /// Pixels with a sample that is not a number (NaN) in the raw frame: flagged `belowFloor` (no
    /// information) and taken at the floor, so that they do not spread. `FusionPipeline.run` refuses
    /// such a frame (`FusionError.notANumber`), as the TIFF reader refuses such a file.
    public var notANumberCount = 0
    /// Fraction of pixels flagged as clipped (at either end).
    public var clippedFraction: Double {
        guard !clipped.isEmpty else { return 0 }
        return Double(countBytes(clipped, withAnyBitOf: 0xFF)) / Double(clipped.count)
    }
    /// Fraction of pixels with a channel far below the black level (no measurement: the data's
    /// black level is not the profile's, e.g. already subtracted by a raw converter).
    public var belowFloorFraction: Double {
        guard !clipped.isEmpty else { return 0 }
        return Double(countBytes(clipped, withAnyBitOf: Self.belowFloor)) / Double(clipped.count)
    }

    /// Wraps already-normalized data.
    public init(image: PlanarImage, clipped: [UInt8], noise: FrameNoise, exposure: ExposureSettings) {
        precondition(clipped.count == image.pixelCount)
        self.image = image; self.clipped = clipped; self.noise = noise; self.exposure = exposure
    }
}

/// Stage 2 of SPEC: black level, clipping flags (white level, and far below black) and exposure
/// normalization.
public enum ExposureNormalization {
    /// Fraction of the black-to-white range above which a sample counts as clipped ("at or near the
    /// white level"): raw clipping is often a little below the nominal white level.
    public static let clippingFraction: Double = 0.98
    /// A sample more than this many read-noise standard deviations (and 1 DN) below the black level
    /// is not a measurement: Gaussian read noise reaches it once in 10⁹ samples, so the data's black
    /// level is not the profile's (black already subtracted, 8-bit data read with a 16-bit profile)
    /// or the sensor's floor cut it. Such pixels are flagged like clipped ones (no information).
    public static let floorReadNoiseDeviations: Double = 6
    /// The floor is also at least this fraction of the black-to-white range below black, so that a
    /// profile whose read noise is underestimated (e.g. written without a dark frame, near 0) does
    /// not flag a real sensor's ordinary noise.
    public static let floorRangeFraction: Double = 0.001

    /// Normalizes a decoded frame in data numbers (3 planes) with the camera's levels and noise.
    /// Samples above the white level are taken at the white level first: a sensor reports nothing
    /// beyond its saturation, so a floating-point file's 1e30 must weigh no more than its white in
    /// the registration or the gap fill (a review's float frames with a patch at 3e38 registered to
    /// the identity with an infinite residual). Samples below the floor (flagged `belowFloor`) are
    /// taken at the floor likewise: a float file's no-data value −3.4e38 in one pixel made the
    /// noise reduction's moments infinite and blacked out the block around it.
    /// The samples are rewritten in place when the caller hands over the only reference to them
    /// (`consuming`; a shared buffer is copied first, as any mutation of a shared array is).
    public static func normalize(raw: consuming PlanarImage, exposure: ExposureSettings, camera: CameraProfile) -> LinearFrame {
        precondition(raw.channelCount == 3, "camera RGB has 3 channels")
        let black = Float(camera.blackLevel), white = Float(camera.whiteLevel)
        let clipDN = Float(camera.blackLevel + clippingFraction * (camera.whiteLevel - camera.blackLevel))
        let readNoiseDN = camera.noise.coefficients(iso: exposure.isoSpeed).readVarianceDN2.squareRoot()
        let floorDN = Float(camera.blackLevel - max(floorReadNoiseDeviations * readNoiseDN + 1,
                                                    floorRangeFraction * (camera.whiteLevel - camera.blackLevel)))
        let inverseScale = Float(1 / exposure.radiometricScale)
        let n = raw.pixelCount
        let width = raw.width
        let height = raw.height
        var out = raw
        var clipped: [UInt8] = uninitializedLargeArray(count: n)
        // Per row band, each channel's largest sample below the clipping level and how many equal it
        // (`SaturationPlateau`), taken in the same pass.
        // (And per band how many pixels hold a sample that is not a number.)
        let tops: [(SaturationPlateau.Top, Int)] = out.samples.withUnsafeMutableBufferPointer { dstBuffer in
            clipped.withUnsafeMutableBufferPointer { clipBuffer in
                let dst = SharedMutableBuffer(dstBuffer)
                let clip = SharedMutableBuffer(clipBuffer)
                return collectInRowBands(rowCount: height) { rows, part in
                    let end = rows.upperBound * width
                    var i = rows.lowerBound * width
                    // Eight pixels at a time, then the rest one by one.
                    typealias V = SIMD8<Float>
                    @inline(__always) func load(_ k: Int) -> V { UnsafeRawPointer(dst.base + k).loadUnaligned(as: V.self) }
                    @inline(__always) func store(_ v: V, _ k: Int) { UnsafeMutableRawPointer(dst.base + k).storeBytes(of: v, as: V.self) }
                    let top = V(repeating: white), bottom = V(repeating: floorDN)
                    // Each channel's lanes' largest sample below the clipping level, and its count.
                    var largest = (V(repeating: -.infinity), V(repeating: -.infinity), V(repeating: -.infinity))
                    var counts = (SIMD8<Int32>(), SIMD8<Int32>(), SIMD8<Int32>())
                    var notANumber = SIMD8<Int32>()
                    @inline(__always) func track(_ v: V, _ m: inout V, _ count: inout SIMD8<Int32>) {
                        let below = v.replacingLanes(with: -.infinity, where: v .>= clipDN)
                        let greater = below .> m
                        let bits = unsafeBitCast(greater, to: SIMD8<Int32>.self)
                        count = (count & ~bits) &+ (unsafeBitCast(greater .| (below .== m), to: SIMD8<Int32>.self) & 1)
                        m = m.replacingLanes(with: below, where: greater)
                    }
                    while i + 8 <= end {
                        let r = load(i), g = load(n + i), b = load(2 * n + i)
                        track(r, &largest.0, &counts.0); track(g, &largest.1, &counts.1); track(b, &largest.2, &counts.2)
                        let high = (r .>= clipDN) .| (g .>= clipDN) .| (b .>= clipDN)
                        // A sample that is not a number holds no measurement: taken as below the floor.
                        let nan = (r .!= r) .| (g .!= g) .| (b .!= b)
                        notANumber &+= unsafeBitCast(nan, to: SIMD8<Int32>.self) & 1
                        let low = (r .< floorDN) .| (g .< floorDN) .| (b .< floorDN) .| nan
                        // (A lane of a mask is all ones or zero: its low bits are the flags.)
                        let bytes = SIMD8<UInt8>(truncatingIfNeeded: (unsafeBitCast(high, to: SIMD8<Int32>.self) & Int32(LinearFrame.clippedAtWhite))
                                                 | (unsafeBitCast(low, to: SIMD8<Int32>.self) & Int32(LinearFrame.belowFloor)))
                        UnsafeMutableRawPointer(clip.base + i).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
                        store((r.replacingLanes(with: top, where: r .> top).replacingLanes(with: bottom, where: .!(r .>= bottom)) - black) * inverseScale, i)
                        store((g.replacingLanes(with: top, where: g .> top).replacingLanes(with: bottom, where: .!(g .>= bottom)) - black) * inverseScale, n + i)
                        store((b.replacingLanes(with: top, where: b .> top).replacingLanes(with: bottom, where: .!(b .>= bottom)) - black) * inverseScale, 2 * n + i)
                        i += 8
                    }
                    var bandTop = SaturationPlateau.Top()
                    for (c, lanes) in [(largest.0, counts.0), (largest.1, counts.1), (largest.2, counts.2)].enumerated() {
                        (bandTop.value[c], bandTop.count[c]) = SaturationPlateau.Top.reduced(values: lanes.0, counts: lanes.1)
                    }
                    @inline(__always) func track(_ c: Int, _ v: Float) {
                        guard v < clipDN && v >= bandTop.value[c] else { return }
                        bandTop.count[c] = v == bandTop.value[c] ? bandTop.count[c] + 1 : 1
                        bandTop.value[c] = v
                    }
                    var bandNotANumber = Int(notANumber.wrappedSum())
                    while i < end {
                        let r = dst[i], g = dst[n + i], b = dst[2 * n + i]
                        track(0, r); track(1, g); track(2, b)
                        let nan = r.isNaN || g.isNaN || b.isNaN
                        if nan { bandNotANumber += 1 }
                        clip[i] = ((r >= clipDN || g >= clipDN || b >= clipDN) ? LinearFrame.clippedAtWhite : 0)
                            | ((r < floorDN || g < floorDN || b < floorDN || nan) ? LinearFrame.belowFloor : 0)
                        // (A sample that is not ≥ the floor, NaN included, is taken at the floor.)
                        @inline(__always) func clamped(_ v: Float) -> Float { v >= floorDN ? min(v, white) : floorDN }
                        dst[i] = (clamped(r) - black) * inverseScale
                        dst[n + i] = (clamped(g) - black) * inverseScale
                        dst[2 * n + i] = (clamped(b) - black) * inverseScale
                        i += 1
                    }
                    part.append((bandTop, bandNotANumber))
                }
            }
        }
        // Channels saturating below the clipping level: their pixels flagged as clipped too.
        let top = tops.reduce(SaturationPlateau.Top()) { $0.merged($1.0) }
        let binWidth = Float((camera.whiteLevel - camera.blackLevel) / SaturationPlateau.binsPerRange) * inverseScale
        var plateaus: [SaturationPlateau] = []
        for c in 0..<3 where top.count[c] >= SaturationPlateau.minimumCount && top.value[c] >= floorDN {
            // The level normalized as its samples were (the clamps leave it as it is).
            let level = (top.value[c] - black) * inverseScale
            out.samples.withUnsafeBufferPointer { samples in
                let plane = UnsafeBufferPointer(rebasing: samples[(c * n)..<((c + 1) * n)])
                guard SaturationPlateau.isPlateau(plane: plane, level: level, count: top.count[c], binWidth: binWidth) else { return }
                plateaus.append(SaturationPlateau(channel: c, levelDN: Double(top.value[c]), pixelCount: top.count[c],
                                                  fraction: Double(top.count[c]) / Double(max(1, n))))
                for i in 0..<n where plane[i] >= level { clipped[i] |= LinearFrame.clippedAtWhite }
            }
        }
        var frame = LinearFrame(image: out, clipped: clipped,
                                noise: FrameNoise(noise: camera.noise, exposure: exposure), exposure: exposure)
        frame.saturationPlateaus = plateaus
        frame.notANumberCount = tops.reduce(0) { $0 + $1.1 }
        return frame
    }
}
