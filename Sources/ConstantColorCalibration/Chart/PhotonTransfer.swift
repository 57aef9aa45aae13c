import ConstantColor

/// The noise model from a chart capture by photon transfer (Janesick 2007, "Photon Transfer",
/// SPIE): for a Poisson–Gaussian sensor (Foi et al. 2008) each uniform patch and channel gives a
/// point (mean signal s, variance σ²) on the line σ² = a + b·s, with b = 1 / gain (e⁻/DN) and
/// a = read noise² (DN²) at the capture's ISO.
///
/// A patch is not perfectly uniform (flash fall-off, texture), so its variance is measured on the
/// differences of horizontally and vertically neighbouring pixels: for independent pixel noise
/// Var(p₁ − p₂) = 2σ², while a smooth trend only shifts the differences' mean. The differences are
/// trimmed at 4 robust standard deviations (1.4826 · MAD) first, so an edge or a hot pixel in the
/// square does not count; the variance of a normal variable trimmed at ±4σ is 0.99893 σ², which is
/// corrected for.
public enum PhotonTransfer {
    /// One point of the photon transfer curve.
    public struct Point: Sendable, Equatable {
        /// Mean black-subtracted signal, DN.
        public var meanDN: Double
        /// Noise variance, DN².
        public var varianceDN2: Double
        /// Pixel differences used.
        public var differenceCount: Int

        /// Creates a point.
        public init(meanDN: Double, varianceDN2: Double, differenceCount: Int) {
            self.meanDN = meanDN; self.varianceDN2 = varianceDN2; self.differenceCount = differenceCount
        }
    }

    /// The fitted line σ² = a + b·s at the capture's ISO.
    public struct Fit: Sendable, Equatable {
        /// Intercept a: read noise variance, DN².
        public var readVarianceDN2: Double
        /// Standard error of the intercept, DN² (from the weighted residuals). A flash-lit chart
        /// rarely has signals low enough to pin the read noise down: compare before trusting it.
        public var readVarianceStandardErrorDN2: Double
        /// Slope b: DN of variance per DN of signal (1 / gain).
        public var shotSlope: Double
        /// Standard error of the slope.
        public var shotSlopeStandardError: Double
        /// The points fitted.
        public var points: [Point]
        /// Whether the intercept was given (a dark frame's read variance) rather than fitted.
        public var interceptKnown: Bool = false

        /// The noise model at `referenceISO`, for a capture taken at `iso`
        /// (`NoiseModel`: at ISO i, k = i / referenceISO, a = (k · read)², b = k / gain).
        public func noiseModel(iso: Double, referenceISO: Double = 100) -> NoiseModel {
            let k = iso / referenceISO
            return NoiseModel(readNoiseDN: max(0, readVarianceDN2).squareRoot() / k,
                              gainElectronsPerDN: k / shotSlope, referenceISO: referenceISO)
        }
    }

    /// Variance of a normal variable trimmed at ±4σ, relative to σ²: 1 − 8φ(4)/(2Φ(4) − 1).
    static let trimmedVarianceFactor = 0.998_93

    /// The photon transfer point of one channel over one square of a raw frame (DN), or nil when
    /// fewer than 16 neighbouring pairs are usable.
    public static func point(raw: PlanarImage, channel: Int, square: PatchSquare, blackLevel: Double,
                             clipped: [UInt8]? = nil) -> Point? {
        let w = raw.width
        func usable(_ x: Int, _ y: Int) -> Bool { clipped == nil || clipped![y * w + x] == 0 }
        var sum = 0.0, count = 0
        var differences: [Double] = []
        differences.reserveCapacity(2 * square.pixelCount)
        for y in square.rows {
            for x in square.columns where usable(x, y) {
                let v = Double(raw[x, y, channel])
                sum += v; count += 1
                if x + 1 < square.columns.upperBound, usable(x + 1, y) { differences.append(Double(raw[x + 1, y, channel]) - v) }
                if y + 1 < square.rows.upperBound, usable(x, y + 1) { differences.append(Double(raw[x, y + 1, channel]) - v) }
            }
        }
        guard differences.count >= 16, count > 0 else { return nil }
        var sorted = differences
        let center = PatchSampling.median(&sorted)
        var deviations = differences.map { abs($0 - center) }
        let robustSigma = 1.4826 * PatchSampling.median(&deviations)
        let limit = 4 * max(robustSigma, 1e-9)
        var n = 0.0, mean = 0.0, m2 = 0.0
        for d in differences where abs(d - center) <= limit {
            n += 1
            let delta = d - mean
            mean += delta / n
            m2 += delta * (d - mean)
        }
        guard n >= 16 else { return nil }
        let varianceOfDifferences = m2 / (n - 1) / trimmedVarianceFactor
        return Point(meanDN: sum / Double(count) - blackLevel, varianceDN2: varianceOfDifferences / 2,
                     differenceCount: Int(n))
    }

    /// Fits σ² = a + b·s by weighted least squares with weights 1 / σ̂⁴ (the variance of a sample
    /// variance is ∝ σ⁴), iterated three times from an unweighted start; nil when the points do not
    /// span two distinct signal levels or the slope is not positive.
    public static func fit(_ points: [Point]) -> Fit? {
        guard points.count >= 2 else { return nil }
        var a = 0.0, b = 0.0, seA = Double.infinity, seB = Double.infinity
        for iteration in 0..<4 {
            var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
            for p in points {
                let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                let weight = Double(p.differenceCount) / (predicted * predicted)
                sw += weight; sx += weight * p.meanDN; sy += weight * p.varianceDN2
                sxx += weight * p.meanDN * p.meanDN; sxy += weight * p.meanDN * p.varianceDN2
            }
            let det = sw * sxx - sx * sx
            guard det > 0 else { return nil }
            b = (sw * sxy - sx * sy) / det
            a = (sy - b * sx) / sw
            if points.count > 2 {
                // Weighted residual variance scales the normal equations' inverse (Draper & Smith 1998, §9).
                var chi2 = 0.0
                for p in points {
                    let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                    let r = p.varianceDN2 - (a + b * p.meanDN)
                    chi2 += Double(p.differenceCount) / (predicted * predicted) * r * r
                }
                let s2 = chi2 / Double(points.count - 2)
                seA = (s2 * sxx / det).squareRoot(); seB = (s2 * sw / det).squareRoot()
            }
        }
        guard b > 0, b.isFinite, a.isFinite else { return nil }
        return Fit(readVarianceDN2: a, readVarianceStandardErrorDN2: seA, shotSlope: b, shotSlopeStandardError: seB, points: points)
    }

    /// Fits σ² = a + b·s with the intercept a known (the read variance measured on a dark frame,
    /// EMVA 1288 Release 4.0: the photon transfer slope is fitted to σ² − σ²_dark): only the
    /// slope b = ∑ w s (σ² − a) / ∑ w s², with weights n / σ̂⁴ iterated as in `fit(_:)`. The
    /// slope's standard error is from the weighted residuals, (χ² / (N − 1) / ∑ w s²)^½; the
    /// intercept's is the one given. Nil when no point has a positive signal or the slope is not
    /// positive.
    public static func fit(_ points: [Point], knownReadVarianceDN2 a: Double,
                           readVarianceStandardErrorDN2 seA: Double = 0) -> Fit? {
        guard !points.isEmpty, a >= 0, a.isFinite else { return nil }
        var b = 0.0, seB = Double.infinity
        for iteration in 0..<4 {
            var sxx = 0.0, sxy = 0.0
            for p in points {
                let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                let weight = Double(p.differenceCount) / (predicted * predicted)
                sxx += weight * p.meanDN * p.meanDN; sxy += weight * p.meanDN * (p.varianceDN2 - a)
            }
            guard sxx > 0 else { return nil }
            b = sxy / sxx
            if points.count > 1 {
                var chi2 = 0.0
                for p in points {
                    let predicted = iteration == 0 ? 1 : max(a + b * p.meanDN, 1e-6)
                    let r = p.varianceDN2 - (a + b * p.meanDN)
                    chi2 += Double(p.differenceCount) / (predicted * predicted) * r * r
                }
                seB = (chi2 / Double(points.count - 1) / sxx).squareRoot()
            }
        }
        guard b > 0, b.isFinite else { return nil }
        return Fit(readVarianceDN2: a, readVarianceStandardErrorDN2: seA, shotSlope: b, shotSlopeStandardError: seB,
                   points: points, interceptKnown: true)
    }
}
