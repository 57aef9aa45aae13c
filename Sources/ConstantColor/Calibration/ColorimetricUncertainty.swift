import Foundation

/// How wrong a flash profile's 3×3 matrix is expected to be, as a function of where a colour lies:
/// the RMS ΔE00 chroma between the matrix's rendering and the true colour of the calibration's own
/// samples, smoothed over flash-white-balanced camera chromaticity. "ΔE00 chroma" is CIEDE2000
/// (CIE 142-2001) with the lightness term removed, as the confidence honesty criterion measures it
/// (`ConfidenceHonesty`): the rendered XYZ is scaled to the true Y first. The domain has no scale, so
/// the error mapped over it has none either; a lightness error of the matrix acts like the exposure,
/// which SPEC fits globally and a constant-color image keeps by design.
///
/// Why a residual map: a camera whose sensitivities are not a linear combination of the CIE colour
/// matching functions (the Luther condition fails, ISO 17321-1 "sensitivity metamerism index") has
/// no 3×3 matrix that renders every surface right; the white-preserving least-squares fit
/// (Finlayson & Drew 1997) spreads that error unevenly, small on neutrals and several ΔE00 on some
/// saturated surfaces. That error is a property of the calibration, not of the pixel's noise, so the
/// confidence learns it here.
///
/// Why camera chromaticity: the pipeline sees only camera RGB. Two surfaces the camera cannot tell
/// apart (camera metamers) give the same camera RGB and therefore the same rendered colour; the
/// matrix's error can only be predicted from what the camera measured. Scale is dropped (the matrix
/// is linear, so its error in ΔE00 depends mostly on the direction of the RGB vector); the domain is
/// `u = r/(r+g+b)`, `v = b/(r+g+b)` of the flash-white-balanced camera RGB (a perfect white under the
/// flash is at (1/3, 1/3)), each over [0, 1].
///
/// The grid: `gridSize`² nodes at `u = i/(gridSize−1)`, `v = j/(gridSize−1)` (row-major, `u` fastest).
/// Each node holds a Nadaraya–Watson kernel estimate (Nadaraya 1964, Watson 1964) of the squared
/// error, with a Gaussian kernel of standard deviation `bandwidth` in chromaticity, and one
/// pseudo-sample of weight `priorWeight` at the largest error seen in the calibration:
/// `rms² = (∑ wᵢ eᵢ² + w₀ e_max²) / (∑ wᵢ + w₀)`, `wᵢ = exp(−dᵢ² / 2h²)`. Where samples are dense the
/// pseudo-sample is negligible; far from every sample the node gets `e_max` — no silent optimism.
/// Values between nodes are interpolated bilinearly (in rms², i.e. as a variance).
public struct ColorimetricUncertainty: Sendable, Equatable {
    /// The flash profile key that holds the model.
    public static let jsonKey = "colorimetricUncertainty"
    /// The only domain this version reads and writes.
    public static let domainName = "flashBalancedCameraChromaticity"
    /// Default nodes per axis (spacing 1/60 ≈ 0.017 in chromaticity, about one bandwidth, so that the
    /// bilinear interpolation does not smooth the map further than the kernel does).
    public static let defaultGridSize = 61
    /// Default Gaussian kernel standard deviation, in chromaticity units. Near the flash white, 0.015
    /// in `u` is a few ΔE00 of chroma: wide enough that about 10 neighbours of a neutral inform it in the
    /// 190-sample training set, narrow enough that the pastels next to the neutrals (errors 1–4 ΔE00)
    /// do not leak into them. Chosen on the 190 rawtoaces samples with the Nikon 5100 + YAG flash
    /// and checked against the 24 ColorChecker patches (not in the training set): the map is at or
    /// above the patch's own error for all but light skin (5.3, map 3.2) and cyan (5.3, map 4.2).
    public static let defaultBandwidth = 0.015
    /// Default weight of the pseudo-sample at the largest error: a tenth of a sample at zero distance,
    /// so it dominates where the training weights sum below 0.1 — no sample within about 2.1 bandwidths.
    public static let defaultPriorWeight = 0.1

    /// Nodes per axis.
    public var gridSize: Int
    /// Gaussian kernel standard deviation in chromaticity.
    public var bandwidth: Double
    /// Weight of the pseudo-sample at `maxChromaDeltaE2000`.
    public var priorWeight: Double
    /// Number of calibration samples the map was learned from.
    public var sampleCount: Int
    /// Largest per-sample ΔE00 chroma of the calibration (the value far from every sample).
    public var maxChromaDeltaE2000: Double
    /// RMS ΔE00 chroma at each node, `gridSize`² values, `u` fastest.
    public var rmsChromaDeltaE2000: [Double]

    /// Creates a map from its stored values.
    public init(gridSize: Int, bandwidth: Double, priorWeight: Double, sampleCount: Int, maxChromaDeltaE2000: Double,
                rmsChromaDeltaE2000: [Double]) {
        precondition(gridSize >= 2 && rmsChromaDeltaE2000.count == gridSize * gridSize)
        self.gridSize = gridSize; self.bandwidth = bandwidth; self.priorWeight = priorWeight
        self.sampleCount = sampleCount; self.maxChromaDeltaE2000 = maxChromaDeltaE2000; self.rmsChromaDeltaE2000 = rmsChromaDeltaE2000
    }

    /// The chromaticity `(r/(r+g+b), b/(r+g+b))` of flash-white-balanced camera RGB; nil when the
    /// sum is not positive.
    public static func chromaticity(balanced b: SIMD3<Double>) -> SIMD2<Double>? {
        let s = b.x + b.y + b.z
        guard s > 0, s.isFinite else { return nil }
        return SIMD2(b.x / s, b.z / s)
    }

    /// Learns the map from calibration samples: each sample's flash-white-balanced camera RGB and the
    /// ΔE00 chroma between the matrix's rendering of it and its true colour. Samples with a non-positive
    /// RGB sum are skipped. Node values are rounded to 1e-4 ΔE00 so that stored profiles are stable.
    public init(balanced: [SIMD3<Double>], chromaDeltaE2000: [Double], gridSize: Int = defaultGridSize,
                bandwidth: Double = defaultBandwidth, priorWeight: Double = defaultPriorWeight) {
        precondition(balanced.count == chromaDeltaE2000.count && gridSize >= 2 && bandwidth > 0 && priorWeight > 0)
        var points: [(SIMD2<Double>, Double)] = []
        for (b, e) in zip(balanced, chromaDeltaE2000) where e.isFinite {
            if let c = Self.chromaticity(balanced: b) { points.append((c, e)) }
        }
        let eMax = points.map(\.1).max() ?? 0
        let inverseTwoH2 = 1 / (2 * bandwidth * bandwidth)
        var values = [Double](repeating: 0, count: gridSize * gridSize)
        for j in 0..<gridSize {
            for i in 0..<gridSize {
                let node = SIMD2(Double(i), Double(j)) / Double(gridSize - 1)
                var sw = priorWeight, swe = priorWeight * eMax * eMax
                for (c, e) in points {
                    let d = c - node
                    let w = exp(-(d * d).sum() * inverseTwoH2)
                    sw += w; swe += w * e * e
                }
                values[j * gridSize + i] = ((swe / sw).squareRoot() * 10_000).rounded() / 10_000
            }
        }
        self.init(gridSize: gridSize, bandwidth: bandwidth, priorWeight: priorWeight, sampleCount: points.count,
                  maxChromaDeltaE2000: eMax, rmsChromaDeltaE2000: values)
    }

    /// The RMS ΔE00 chroma at a chromaticity, bilinear between nodes (in rms²), clamped to [0, 1]².
    public func rms(at c: SIMD2<Double>) -> Double {
        let n = gridSize - 1
        let gu = min(max(c.x, 0), 1) * Double(n), gv = min(max(c.y, 0), 1) * Double(n)
        let i = min(Int(gu), n - 1), j = min(Int(gv), n - 1)
        let tu = gu - Double(i), tv = gv - Double(j)
        func v2(_ a: Int, _ b: Int) -> Double { let r = rmsChromaDeltaE2000[b * gridSize + a]; return r * r }
        let top = v2(i, j) + tu * (v2(i + 1, j) - v2(i, j))
        let bottom = v2(i, j + 1) + tu * (v2(i + 1, j + 1) - v2(i, j + 1))
        return (top + tv * (bottom - top)).squareRoot()
    }

    /// Largest ΔE00 chroma a profile's map may hold: colours of the object-colour solid are at most
    /// about 150 apart (CIELAB's a*b* range), so a thousand is no colour difference but a unit or
    /// scale mistake.
    public static let largestDeltaE2000 = 1000.0

    /// Reads the map from a profile's `colorimetricUncertainty` value; errors name the file and key.
    public init(json: JSONValue, file: String) throws {
        let key = Self.jsonKey
        let r = try JSONObjectReader(json, file: file, prefix: key + ".")
        let domain = try r.string("domain")
        guard domain == Self.domainName else {
            throw JSONFileError.invalidValue(file: file, key: key + ".domain", expected: "\"\(Self.domainName)\"")
        }
        let size = try r.number("gridSize")
        guard size >= 2, size <= 1024, size == size.rounded() else {
            throw JSONFileError.invalidValue(file: file, key: key + ".gridSize", expected: "an integer from 2 to 1024")
        }
        let n = Int(size)
        let h = try r.number("bandwidth"), w0 = try r.number("priorWeight")
        guard h > 0 else { throw JSONFileError.invalidValue(file: file, key: key + ".bandwidth", expected: "a positive number") }
        guard w0 > 0 else { throw JSONFileError.invalidValue(file: file, key: key + ".priorWeight", expected: "a positive number") }
        let count = try r.number("sampleCount"), eMax = try r.number("maxChromaDeltaE2000")
        guard count >= 0, count == count.rounded() else {
            throw JSONFileError.invalidValue(file: file, key: key + ".sampleCount", expected: "a non-negative integer")
        }
        // (Beyond `largestDeltaE2000` a ΔE00 says nothing more, and its square would leave the Float range.)
        guard eMax >= 0, eMax <= Self.largestDeltaE2000 else {
            throw JSONFileError.invalidValue(file: file, key: key + ".maxChromaDeltaE2000", expected: "a number from 0 to \(Int(Self.largestDeltaE2000))")
        }
        let values = try r.numbers("rmsChromaDeltaE2000", count: n * n)
        guard values.allSatisfy({ $0 >= 0 && $0 <= Self.largestDeltaE2000 }) else {
            throw JSONFileError.invalidValue(file: file, key: key + ".rmsChromaDeltaE2000", expected: "\(n * n) numbers from 0 to \(Int(Self.largestDeltaE2000))")
        }
        self.init(gridSize: n, bandwidth: h, priorWeight: w0, sampleCount: Int(count), maxChromaDeltaE2000: eMax, rmsChromaDeltaE2000: values)
    }

    /// The map as the value of a profile's `colorimetricUncertainty` key.
    public var json: JSONValue {
        .object(["domain": .string(Self.domainName),
                 "description": .string("RMS CIEDE2000 chroma (lightness term removed: rendered XYZ scaled to the true Y) of the matrix over the calibration samples, Nadaraya-Watson Gaussian kernel regression over u = r/(r+g+b), v = b/(r+g+b) of flash-white-balanced camera RGB; grid nodes u = i/(gridSize-1), v = j/(gridSize-1), values row-major with u fastest; one pseudo-sample of weight priorWeight at maxChromaDeltaE2000"),
                 "gridSize": .number(Double(gridSize)), "bandwidth": .number(bandwidth),
                 "priorWeight": .number(priorWeight), "sampleCount": .number(Double(sampleCount)),
                 "maxChromaDeltaE2000": .number(maxChromaDeltaE2000),
                 "rmsChromaDeltaE2000": .array(rmsChromaDeltaE2000.map(JSONValue.number))])
    }

    /// The map prepared for the confidence kernel: node variances (rms²) as a flat Float array and
    /// the flash white's reciprocal, which balances the kernel's normalized camera RGB.
    public func lookup(flashWhiteCameraRGB w: SIMD3<Double>) -> Lookup {
        Lookup(gridSize: gridSize, variance: rmsChromaDeltaE2000.map { Float($0 * $0) },
               inverseWhite: SIMD3<Float>(Float(1 / w.x), Float(1 / w.y), Float(1 / w.z)))
    }

    /// Node variances ready for per-pixel bilinear lookup (see `Confidence.filterAndMap`).
    public struct Lookup: Sendable {
        /// Nodes per axis.
        public let gridSize: Int
        /// rms² at each node, ΔE00², `u` fastest.
        public let variance: [Float]
        /// 1 / flash white, per channel (normalized camera RGB → balanced).
        public let inverseWhite: SIMD3<Float>
    }
}

extension FlashProfile {
    /// The profile's colorimetric uncertainty prepared for the confidence kernel, if it has one.
    public var colorimetricLookup: ColorimetricUncertainty.Lookup? {
        colorimetricUncertainty?.lookup(flashWhiteCameraRGB: whiteCameraRGB)
    }
}
