import ConstantColor

/// Read noise and black level from a dark frame: the same camera at the same ISO with the lens
/// capped, so each sample is black level + read noise (EMVA 1288 Release 4.0: the dark
/// signal's temporal variance is the read noise variance).
///
/// With one frame the temporal noise is separated from fixed pattern and shading by the variance
/// of the differences of pixels `lag` apart in a row: for independent pixel noise
/// Var(p(x+lag, y) − p(x, y)) = 2σ², while a row offset or a smooth shading cancels in the difference
/// (Janesick 2007, "Photon Transfer": difference images remove fixed pattern noise). Not adjacent
/// pixels: a demosaiced frame's neighbours share their noise (`PhotonTransfer.blockGap`). The
/// differences are trimmed at 4 robust standard deviations (1.4826 · MAD) so hot pixels do not
/// count, and the variance is corrected for the trimming as in `PhotonTransfer`. Column-wise fixed
/// pattern, which does not cancel horizontally, would count as read noise.
public struct DarkFrame: Sendable, Equatable {
    /// The dark frame's level per channel, DN (the measured black level): the mean of the samples
    /// within ±6 read-noise σ of the channel's median, so hot pixels do not count.
    public var blackLevelPerChannelDN: SIMD3<Double>
    /// Temporal read noise per channel at the frame's ISO, DN (σ, not σ²).
    public var readNoisePerChannelDN: SIMD3<Double>
    /// Read noise variance pooled over the channels at the frame's ISO, DN².
    public var readVarianceDN2: Double
    /// Standard error of `readVarianceDN2`, DN²: ≈ σ² √(3 / n) for n differences (each shares a
    /// pixel with the differences `lag` before and after it: Var(d²) = 8σ⁴, Cov = 2σ⁴).
    public var readVarianceStandardErrorDN2: Double
    /// The ISO the frame was taken at.
    public var iso: Double
    /// Degrees of freedom of the trimmed differences (`PhotonTransfer.trimmedVariance`).
    public var differenceCount: Int
    /// Per channel, the photon transfer point of the frame's central square (at most 512 × 512) with
    /// its block variances: the read noise's spatial correlation, measured on far more blocks than a
    /// chart's patches hold (`PhotonTransfer.correlation`; a demosaiced dark frame carries the same
    /// interpolation as the capture).
    public var correlationPoints: [PhotonTransfer.Point]

    /// The measured black level: the mean over the channels, DN.
    public var blackLevelDN: Double { (blackLevelPerChannelDN.x + blackLevelPerChannelDN.y + blackLevelPerChannelDN.z) / 3 }
    /// Read noise at the frame's ISO, DN.
    public var readNoiseDN: Double { readVarianceDN2.squareRoot() }

    /// Read noise referred to `referenceISO` as `NoiseModel` scales it: at ISO i the read noise in
    /// DN is k · readNoiseDN with k = i / referenceISO.
    public func readNoiseDN(referenceISO: Double = 100) -> Double { readNoiseDN / (iso / referenceISO) }

    /// The read variance at another ISO (`NoiseModel.coefficients`), DN².
    public func readVarianceDN2(atISO other: Double) -> Double {
        NoiseModel(readNoiseDN: readNoiseDN(), gainElectronsPerDN: 1).coefficients(iso: other).readVarianceDN2
    }

    /// Samples more than this many frame standard deviations above `blackLevel` are "lit"; a
    /// dark frame with more than half its samples lit is refused.
    public static let litSigmas = 6.0
    /// Pixels between the two samples of a difference.
    public static let lag = PhotonTransfer.pixelDistance

    /// Measures a dark frame. Refused (`DarkFrameError`): another size than the capture's, more
    /// than half the samples above black + 6σ (a lit frame, or a wrong black level), or more than a
    /// quarter of them at the frame's minimum at or below the black level (noise clipped at 0).
    ///
    /// - Parameters:
    ///   - frame: the dark frame in DN, 3 planes.
    ///   - iso: its ISO (> 0; `ExposureSettings.validated()` guarantees it).
    ///   - blackLevel: the configured black level, DN (to check that the frame is dark).
    ///   - expectedWidth, expectedHeight: the capture's size; a dark frame must match it.
    ///   - file: the dark frame's path, for messages.
    public init(frame: PlanarImage, iso: Double, blackLevel: Double, expectedWidth: Int, expectedHeight: Int,
                file: String) throws(DarkFrameError) {
        guard frame.channelCount == 3 else { throw .notRGB(file: file, channels: frame.channelCount) }
        guard frame.width == expectedWidth, frame.height == expectedHeight else {
            throw .size(file: file, width: frame.width, height: frame.height, expectedWidth: expectedWidth, expectedHeight: expectedHeight)
        }
        let lag = Self.lag
        precondition(iso > 0 && frame.width > lag, "DarkFrame: ISO must be positive and the frame wider than \(lag) pixels")
        let w = frame.width, h = frame.height, plane = w * h
        var mean = SIMD3<Double>(0, 0, 0), variance = SIMD3<Double>(0, 0, 0)
        var pooledSum = 0.0, pooledCount = 0
        // By position in a 2 × 2 colour filter mosaic, each trimmed with its own limit (a demosaiced
        // frame's pixel variance depends on it; `PhotonTransfer.point`).
        var differences = [[Double]](repeating: [], count: 4)
        var levels = [Double](repeating: 0, count: plane)
        for c in 0..<3 {
            for p in 0..<4 { differences[p].removeAll(keepingCapacity: true) }
            frame.samples.withUnsafeBufferPointer { s in
                for y in 0..<h {
                    let row = c * plane + y * w
                    for x in lag..<w {
                        differences[(x & 1) + 2 * (y & 1)].append(Double(s[row + x]) - Double(s[row + x - lag]))
                    }
                }
                for i in 0..<plane { levels[i] = Double(s[c * plane + i]) }
            }
            let pooled = PhotonTransfer.pooledTrimmedVariance(differences.map { [$0] })
            let v = (pooled?.variance ?? 0) / 2, n = Double(pooled?.count ?? 0)
            variance[c] = v
            // Black level: the mean of the samples within ±6σ of the median (hot pixels excluded).
            let level = PatchSampling.median(&levels), band = 6 * max(v.squareRoot(), 1)
            var sum = 0.0, count = 0
            frame.samples.withUnsafeBufferPointer { s in
                for i in 0..<plane where abs(Double(s[c * plane + i]) - level) <= band { sum += Double(s[c * plane + i]); count += 1 }
            }
            mean[c] = count > 0 ? sum / Double(count) : level
            pooledSum += v * n; pooledCount += Int(n)
        }
        let pooled = pooledCount > 0 ? pooledSum / Double(pooledCount) : 0
        // A dark frame sits at the black level: most samples within a few σ of it.
        let sigma = max(pooled.squareRoot(), 1)
        let litThreshold = Float(blackLevel + Self.litSigmas * sigma)
        var lit = 0
        for v in frame.samples where v > litThreshold { lit += 1 }
        if 2 * lit > frame.samples.count {
            throw .notDark(file: file, litFraction: Double(lit) / Double(frame.samples.count),
                           thresholdDN: Double(litThreshold), blackLevel: blackLevel)
        }
        // Noise cut at the bottom (a developer that subtracted the black level and clipped at 0)
        // piles the samples up at the minimum; a Gaussian of σ ≥ 1 DN puts < 25 % on one value.
        let minimum = frame.samples.min() ?? 0
        var atMinimum = 0
        for v in frame.samples where v == minimum { atMinimum += 1 }
        if 4 * atMinimum > frame.samples.count && Double(minimum) <= blackLevel {
            throw .clipped(file: file, fraction: Double(atMinimum) / Double(frame.samples.count), minimumDN: Double(minimum))
        }
        blackLevelPerChannelDN = mean
        readNoisePerChannelDN = SIMD3(variance.x.squareRoot(), variance.y.squareRoot(), variance.z.squareRoot())
        readVarianceDN2 = pooled
        readVarianceStandardErrorDN2 = pooledCount > 0 ? pooled * (3 / Double(pooledCount)).squareRoot() : .infinity
        self.iso = iso
        differenceCount = pooledCount
        let side = Double(min(512, w, h)) / 2
        let center = PatchSquare(center: SIMD2(Double(w) / 2, Double(h) / 2), halfSize: side)
        correlationPoints = (0..<3).compactMap {
            PhotonTransfer.point(raw: frame, channel: $0, square: center, blackLevel: mean[$0])
        }
    }
}

/// Why a dark frame was refused; every message names the file.
public enum DarkFrameError: Error, Equatable, CustomStringConvertible {
    /// Not 3 channels.
    case notRGB(file: String, channels: Int)
    /// Its size differs from the capture's.
    case size(file: String, width: Int, height: Int, expectedWidth: Int, expectedHeight: Int)
    /// Most samples are far above the black level: not a lens-capped frame.
    case notDark(file: String, litFraction: Double, thresholdDN: Double, blackLevel: Double)
    /// Many samples sit at the frame's minimum: the noise is cut (or absent), its spread unmeasurable.
    case clipped(file: String, fraction: Double, minimumDN: Double)

    public var description: String {
        switch self {
        case .notRGB(let f, let c): return "\(f): the dark frame has \(c) channel(s); camera RGB is required"
        case .size(let f, let w, let h, let ew, let eh):
            return "\(f): the dark frame is \(w)x\(h) but the capture is \(ew)x\(eh); take it with the same camera and mode"
        case .notDark(let f, let p, let t, let b):
            return "\(f): not a dark frame: \(Int((100 * p).rounded())) % of the samples are above \(Int(t.rounded())) DN (black level \(fmtDN(b)) DN + \(Int(DarkFrame.litSigmas)) sigma); cap the lens, or check the black level"
        case .clipped(let f, let p, let m):
            return "\(f): \(Int((100 * p).rounded())) % of the dark frame's samples sit at its minimum \(fmtDN(m)) DN: the noise is cut off (black level subtracted and clipped at 0?) and its spread cannot be measured; develop it with the black level kept (calibrate chart also takes the sensor's read noise as --read-noise R)"
        }
    }
}

private func fmtDN(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
