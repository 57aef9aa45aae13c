/// How the noise of neighbouring pixels is correlated, per channel (red, green, blue).
///
/// A raw frame's pixels have independent noise, but a demosaiced frame's do not: each missing
/// sample is interpolated from its neighbours' (a raw developer's denoising widens this further).
/// The noise model's `σ²` is then the mean variance of one pixel, and the variance of an average
/// over `N` pixels is not `σ²/N` but larger. Two numbers describe what the pipeline averages:
/// - `blockFactor`: `Var(mean of a 2 × 2 block) · 4 / σ²` (the noise reduction's blocks);
/// - `areaFactor`: `lim Var(mean of k × k) · k² / σ²`, the sum of the noise's autocorrelation over
///   all lags (the "noise-equivalent area" in pixels; Dainty & Shaw 1974, "Image Science", §8).
///
/// Both are 1 for independent pixels. Bilinear demosaicing of an RGGB mosaic gives 2.78 and 7.11
/// (red, blue) and 1.90 and 3.2 (green), each in units of that channel's own mean pixel variance.
/// `calibrate chart` measures them on the chart's patches (and dark frame), relative to the noise
/// model's variance, and extrapolates the area factor as 2 S₄ − S₂ (6.6 and 3.1 here).
public struct NoiseCorrelation: Sendable, Equatable {
    /// `Var(2 × 2 mean) · 4 / σ²` per channel.
    public var blockFactor: SIMD3<Double>
    /// `Var(k × k mean) · k² / σ²` for large `k`, per channel.
    public var areaFactor: SIMD3<Double>

    /// Creates a correlation description.
    public init(blockFactor: SIMD3<Double>, areaFactor: SIMD3<Double>) {
        self.blockFactor = blockFactor; self.areaFactor = areaFactor
    }

    /// Independent pixels (raw data; the synthesizer's frames unless demosaiced).
    public static let independent = NoiseCorrelation(blockFactor: SIMD3(repeating: 1), areaFactor: SIMD3(repeating: 1))

}
