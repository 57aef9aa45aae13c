/// The median and the normal-consistent median absolute deviation (σ = 1.4826 · MAD, Hampel 1974):
/// a location and a standard deviation that a minority of outliers (an edge, a hot pixel, a square
/// with structure) does not move. Shared by the chart's uniformity and structure tests and the
/// flat field's robust trim.
enum RobustScale {
    /// The median of `values` and 1.4826 · the median of |value − median|. `scratch` is overwritten
    /// (a buffer reused across calls, so that a loop over cells allocates nothing); `values` is not
    /// changed. NaN for both when `values` is empty.
    static func medianAndSigma(_ values: [Double], scratch: inout [Double]) -> (median: Double, sigma: Double) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: values)
        let median = PatchSampling.median(&scratch)
        for k in scratch.indices { scratch[k] = abs(values[k] - median) }
        return (median, 1.4826 * PatchSampling.median(&scratch))
    }

    /// The same with a scratch buffer of its own.
    static func medianAndSigma(_ values: [Double]) -> (median: Double, sigma: Double) {
        var scratch: [Double] = []
        return medianAndSigma(values, scratch: &scratch)
    }
}
