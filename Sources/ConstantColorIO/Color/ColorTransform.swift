import CLCMS2
import ConstantColor

/// A Little CMS transform from an RGB ICC profile to the D50 profile connection space.
///
/// Two transforms are built once: double precision for single colours
/// (`TYPE_RGB_DBL` → `TYPE_XYZ_DBL` / `TYPE_Lab_DBL`) and single precision for planar images
/// (`TYPE_RGB_FLT` planar → `TYPE_XYZ_FLT` / `TYPE_Lab_FLT` planar), both with the relative
/// colorimetric intent and `cmsFLAGS_NOCACHE`. Little CMS evaluates its pipelines in single
/// precision internally (`cmsPipelineEvalFloat`), so even the double path carries rounding of
/// about 2^-24 of each value's magnitude (≈ 1e-5 on L*).
///
/// Thread safety: Little CMS keeps a one-pixel cache inside a transform, which makes
/// `cmsDoTransform` unsafe to call from several threads at once; with `cmsFLAGS_NOCACHE`
/// there is no cache and the transform is only read, so `convert` may be called from any
/// number of threads concurrently (and `convert(_:)` on an image runs row bands in parallel).
/// The handles are owned and deleted in `deinit`.
public final class ColorTransform: @unchecked Sendable {
    /// The profile connection space a transform produces.
    public enum Destination: Sendable, Equatable {
        /// CIE XYZ relative to the D50 PCS white (0.9642, 1, 0.8249), Y of white = 1
        /// (`cmsCreateXYZProfile`).
        case xyzD50
        /// CIE 1976 L*a*b* relative to D50, L* in 0...100 (`cmsCreateLab4Profile`).
        case labD50
    }

    /// What `convert` produces.
    public let destination: Destination
    private let context: LittleCMSContext
    private let pixelTransform: cmsHTRANSFORM
    private let planarTransform: cmsHTRANSFORM

    /// Builds the transforms from `source` (an RGB profile) to `destination`.
    ///
    /// - Throws: `.unsupportedProfile` when `source` is not RGB; `.littleCMS` when Little CMS
    ///   cannot build the transform (for example a profile without the tags a transform needs).
    public init(from source: ICCProfile, to destination: Destination) throws(ColorManagementError) {
        guard source.isRGB else {
            throw .unsupportedProfile(source: source.source, function: "ColorTransform.init",
                                      reason: "colour space is \(source.colorSpaceSignature.trimmingSpaces), not RGB")
        }
        let context = source.context
        let pcs = try context.call(destination == .xyzD50 ? "cmsCreateXYZProfile" : "cmsCreateLab4Profile") { id in
            destination == .xyzD50 ? cmsCreateXYZProfileTHR(id) : cmsCreateLab4ProfileTHR(id, nil)
        }
        defer { cmsCloseProfile(pcs) }
        let flags = CLCMS2_FLAGS_NOCACHE
        let intent = CLCMS2_INTENT_RELATIVE_COLORIMETRIC
        let pixelOut = destination == .xyzD50 ? CLCMS2_TYPE_XYZ_DBL : CLCMS2_TYPE_Lab_DBL
        let planarOut = destination == .xyzD50 ? CLCMS2_TYPE_XYZ_FLT_PLANAR : CLCMS2_TYPE_Lab_FLT_PLANAR
        let pixel = try context.call("cmsCreateTransform") { id in
            cmsCreateTransformTHR(id, source.handle, CLCMS2_TYPE_RGB_DBL, pcs, pixelOut, intent, flags)
        }
        let planar: cmsHTRANSFORM
        do {
            planar = try context.call("cmsCreateTransform") { id in
                cmsCreateTransformTHR(id, source.handle, CLCMS2_TYPE_RGB_FLT_PLANAR, pcs, planarOut, intent, flags)
            }
        } catch {
            cmsDeleteTransform(pixel)
            throw error
        }
        self.destination = destination
        self.context = context
        self.pixelTransform = pixel
        self.planarTransform = planar
    }

    deinit {
        cmsDeleteTransform(pixelTransform)
        cmsDeleteTransform(planarTransform)
    }

    /// Converts one encoded RGB colour (each channel in 0...1) to XYZ (Y of white = 1) or
    /// L*a*b*, relative to D50 (double input and output; see the type's note on precision).
    public func convert(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        var input = (rgb.x, rgb.y, rgb.z)
        var output = (0.0, 0.0, 0.0)
        withUnsafePointer(to: &input) { i in
            withUnsafeMutablePointer(to: &output) { o in cmsDoTransform(pixelTransform, i, o, 1) }
        }
        return SIMD3(output.0, output.1, output.2)
    }

    /// Converts the first three planes of an encoded RGB image (0...1) to a three-plane image
    /// of XYZ or L*a*b* relative to D50, in single precision, row bands in parallel
    /// (`cmsDoTransformLineStride`).
    ///
    /// - Throws: `.invalidArgument` when the image has fewer than three planes.
    public func convert(_ image: PlanarImage) throws(ColorManagementError) -> PlanarImage {
        guard image.channelCount >= 3 else {
            throw .invalidArgument(function: "ColorTransform.convert",
                                   reason: "image has \(image.channelCount) planes, RGB needs 3")
        }
        var output = PlanarImage(width: image.width, height: image.height, channelCount: 3)
        let width = image.width, height = image.height
        guard image.pixelCount > 0 else { return output }
        let bytesPerLine = cmsUInt32Number(width * MemoryLayout<Float>.stride)
        let bytesPerPlane = cmsUInt32Number(image.pixelCount * MemoryLayout<Float>.stride)
        let transform = planarTransform
        image.samples.withUnsafeBufferPointer { input in
            output.samples.withUnsafeMutableBufferPointer { out in
                let source = input.baseAddress!
                let destination = SharedMutableBuffer(out)
                // Bands read and write disjoint rows (SharedMutableBuffer's invariant); the
                // transform has no cache (cmsFLAGS_NOCACHE), so concurrent calls are safe.
                forEachRowBand(rowCount: height) { rows in
                    let offset = rows.lowerBound * width
                    cmsDoTransformLineStride(transform, source + offset, destination.base + offset,
                                             cmsUInt32Number(width), cmsUInt32Number(rows.count),
                                             bytesPerLine, bytesPerLine, bytesPerPlane, bytesPerPlane)
                }
            }
        }
        return output
    }
}
