/// The fallback of SPEC 2.8 and the reference of SPEC 5's variance reduction: the ambient frame
/// rendered as a normal photo, white-balanced by the gray-world assumption (Buchsbaum 1980: the
/// scene average is achromatic), through the flash profile's matrix, with automatic exposure.
public enum AmbientPhotoRendering {
    /// Camera RGB → XYZ D65 for a frame balanced by gray world: the channel means over unclipped
    /// pixels are made equal, then the flash profile's matrix (which maps balanced RGB 1,1,1 to
    /// the D65 white) is applied.
    public static func grayWorldCameraToXYZ(_ frame: LinearFrame, flash: FlashProfile) -> Matrix3 {
        let n = frame.image.pixelCount
        var sums = SIMD3<Double>(0, 0, 0)
        var count = 0
        frame.image.samples.withUnsafeBufferPointer { s in
            for i in 0..<n where frame.clipped[i] == 0 {
                sums += SIMD3(Double(s[i]), Double(s[n + i]), Double(s[2 * n + i]))
                count += 1
            }
        }
        guard count > 0, sums.x > 0, sums.y > 0, sums.z > 0 else { return flash.matrixToXYZD65 }
        let means = sums / Double(count)
        // Balance so that the mean becomes neutral at the green mean's level.
        let gains = SIMD3(means.y / means.x, 1, means.y / means.z)
        return flash.matrixToXYZD65 * Matrix3.diagonal(gains)
    }

    /// The linear rendering (output primaries, automatic exposure over unclipped pixels).
    public static func render(_ frame: LinearFrame, flash: FlashProfile, primaries: OutputPrimaries) -> (image: PlanarImage, rendering: ColorRendering) {
        let toXYZ = grayWorldCameraToXYZ(frame, flash: flash)
        let scale = ColorRendering.automaticScale(cameraToXYZ: toXYZ, image: frame.image, flags: frame.clipped)
        let rendering = ColorRendering(cameraToXYZ: toXYZ, primaries: primaries, scale: scale)
        return (rendering.linearOutput(frame.image), rendering)
    }
}
