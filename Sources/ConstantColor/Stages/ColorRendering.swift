/// The RGB encoding of the rendered output.
public enum OutputPrimaries: String, Sendable, CaseIterable, Codable {
    /// Display P3 primaries, D65 white (default).
    case displayP3 = "p3"
    /// sRGB / Rec. 709 primaries, D65 white.
    case sRGB = "srgb"

    /// The color space.
    public var space: RGBColorSpace { self == .displayP3 ? .displayP3 : .sRGB }
}

/// The space of the linear (measurement) output.
public enum LinearOutputSpace: String, Sendable, CaseIterable, Codable {
    /// Linear RGB in the output primaries.
    case rgb
    /// CIE XYZ, D65 white at Y = 1.
    case xyz
}

/// Stage 5 of SPEC: from normalized camera RGB to linear output color.
///
/// `xyzD65 = M · diag(1/w) · cameraRGB` (white balance to the flash, then the calibrated matrix;
/// a perfect white lit by the flash gets the D65 white), then `RGB = XYZ→RGB(primaries) · xyzD65`,
/// all multiplied by one global exposure `scale`.
public struct ColorRendering: Sendable {
    /// Camera RGB (normalized units) to XYZ D65 (white-balanced by the flash white), before `scale`.
    public let cameraToXYZ: Matrix3
    /// XYZ D65 to linear output RGB.
    public let xyzToOutputRGB: Matrix3
    /// The global exposure applied to every pixel (output units per normalized unit).
    public let scale: Double
    /// The output primaries.
    public let primaries: OutputPrimaries

    /// The white-balanced pipeline of a flash profile; `scale` is chosen by the caller
    /// (see `automaticScale`).
    public init(flash: FlashProfile, primaries: OutputPrimaries, scale: Double) {
        let w = flash.whiteCameraRGB
        cameraToXYZ = flash.matrixToXYZD65 * Matrix3.diagonal(SIMD3(1 / w.x, 1 / w.y, 1 / w.z))
        xyzToOutputRGB = primaries.space.xyzToRGB
        self.scale = scale
        self.primaries = primaries
    }

    /// Creates a rendering with an explicit camera-to-XYZ matrix (e.g. gray-world balanced).
    public init(cameraToXYZ: Matrix3, primaries: OutputPrimaries, scale: Double) {
        self.cameraToXYZ = cameraToXYZ
        xyzToOutputRGB = primaries.space.xyzToRGB
        self.scale = scale
        self.primaries = primaries
    }

    /// The same rendering with another exposure.
    public func withScale(_ s: Double) -> ColorRendering {
        ColorRendering(cameraToXYZ: cameraToXYZ, primaries: primaries, scale: s)
    }

    /// The percentile of scene luminance that `automaticScale` maps to `automaticTarget`.
    public static let automaticPercentile = 0.99
    /// Output luminance given to that percentile (leaves room for the tone curve's shoulder).
    public static let automaticTarget = 0.9

    /// A global exposure that maps the 99th percentile of luminance `Y` over the usable pixels
    /// (`flags[i] == 0`, e.g. `PixelFlag`s or clipping marks; all pixels when nil) to 0.9.
    /// Returns 1 when there is no signal.
    public static func automaticScale(cameraToXYZ: Matrix3, image: PlanarImage, flags: [UInt8]? = nil) -> Double {
        automaticScaleIfSignal(cameraToXYZ: cameraToXYZ, image: image, flags: flags) ?? 1
    }

    /// `automaticScale`, or nil when the image has no signal to expose by: fewer than 16 sampled
    /// usable pixels of positive luminance.
    public static func automaticScaleIfSignal(cameraToXYZ: Matrix3, image: PlanarImage, flags: [UInt8]? = nil) -> Double? {
        let n = image.pixelCount
        let row = cameraToXYZ.rows[1].map { Float($0) }
        let (r0, r1, r2) = (row[0], row[1], row[2])
        // Subsample for speed: at most ~1 M samples on a regular grid (its rows in parallel bands).
        let step = max(1, Int((Double(n) / 1_000_000).squareRoot()))
        let w = image.width, gridRows = (image.height + step - 1) / step
        var values: [Float] = image.samples.withUnsafeBufferPointer { sBuffer in
            (flags ?? []).withUnsafeBufferPointer { fBuffer in
                let inputs = UncheckedSendableBox((sBuffer, flags == nil ? nil : fBuffer))
                return collectInRowBands(rowCount: gridRows) { (rows: Range<Int>, values: inout [Float]) in
                    let (s, u) = inputs.value
                    values.reserveCapacity(rows.count * (w / step + 1))
                    for gy in rows {
                        let y = gy * step
                        for x in stride(from: 0, to: w, by: step) {
                            let i = y * w + x
                            if let u, u[i] != 0 { continue }
                            let yv = r0 * s[i] + r1 * s[n + i] + r2 * s[2 * n + i]
                            if yv.isFinite && yv > 0 { values.append(yv) }
                        }
                    }
                }
            }
        }
        guard values.count >= 16 else { return nil }
        let k = min(values.count - 1, Int(Double(values.count) * automaticPercentile))
        let p = values.withUnsafeMutableBufferPointer { $0.partitionAtMedian(k) }
        return p > 0 ? automaticTarget / Double(p) : nil
    }

    /// The 3×3 matrix from camera RGB to the linear output, scale included.
    public func matrix(to space: LinearOutputSpace) -> Matrix3 {
        let toXYZ = cameraToXYZ * Matrix3.diagonal(SIMD3(repeating: scale))
        return space == .xyz ? toXYZ : xyzToOutputRGB * toXYZ
    }

    /// Applies `matrix(to:)` to every pixel of a 3-plane camera-RGB image (into `storage` when it
    /// is large enough: a buffer nothing reads any more).
    public func linearOutput(_ camera: PlanarImage, space: LinearOutputSpace = .rgb,
                             reusing storage: consuming [Float] = []) -> PlanarImage {
        Self.apply(matrix(to: space), to: camera, reusing: storage)
    }

    /// Multiplies every pixel of a 3-plane image by `matrix`, in parallel row bands, into a new
    /// image (in `storage` when it is large enough: a buffer nothing reads any more).
    public static func apply(_ matrix: Matrix3, to image: PlanarImage, reusing storage: consuming [Float] = []) -> PlanarImage {
        precondition(image.channelCount == 3)
        let n = image.pixelCount, w = image.width
        let m = matrix.floats
        // Every sample is written below: no zero fill.
        var out = PlanarImage(width: image.width, height: image.height, channelCount: 3, reusing: consume storage)
        image.samples.withUnsafeBufferPointer { sBuffer in
            out.samples.withUnsafeMutableBufferPointer { oBuffer in
                let src = UncheckedSendableBox(sBuffer)
                let o = SharedMutableBuffer(oBuffer)
                forEachRowBand(rowCount: image.height) { rows in
                    let s = src.value
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                        let r = s[i], g = s[n + i], b = s[2 * n + i]
                        o[i] = m[0] * r + m[1] * g + m[2] * b
                        o[n + i] = m[3] * r + m[4] * g + m[5] * b
                        o[2 * n + i] = m[6] * r + m[7] * g + m[8] * b
                    }
                }
            }
        }
        return out
    }
}
