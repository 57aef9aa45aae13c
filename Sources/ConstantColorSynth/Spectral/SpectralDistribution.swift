/// The wavelength grid on which every spectral computation runs: 360–830 nm at 1 nm (471 samples).
///
/// Why this grid: it is the range and interval of the CIE 1931 colour-matching functions as
/// tabulated in CIE 015:2004 Table T.4, and CIE 015:2004 §7.1 recommends summation at 1 nm over
/// 360–830 nm for the most accurate colorimetry. Every material's camera RGB and XYZ is integrated
/// once per light source (never per pixel), so the finer grid costs nothing at render time.
public enum WorkingGrid {
    /// First wavelength, nm.
    public static let startNm: Double = 360
    /// Last wavelength, nm.
    public static let endNm: Double = 830
    /// Interval Δλ, nm.
    public static let stepNm: Double = 1
    /// Number of samples.
    public static let count: Int = 471
    /// The wavelengths in nm.
    public static let wavelengthsNm: [Double] = (0..<count).map { startNm + Double($0) * stepNm }
}

/// What to do at working-grid wavelengths outside the range a source file covers.
public enum SpectralExtrapolation: Sendable, Equatable {
    /// Repeat the nearest measured value, as CIE 015:2004 §7.2.2.1 recommends for reflectances and
    /// light sources when nothing better is known (also colour-science's default).
    case constant
    /// Zero outside the measured range. Used for camera sensitivities, which are measured until
    /// they have fallen to noise (a repeated end value would invent response in the infrared).
    case zero
}

/// A spectral quantity sampled on the `WorkingGrid` (a power distribution, a reflectance, a
/// transmittance or one channel of a sensitivity), with a name for messages.
public struct SpectralDistribution: Sendable, Equatable {
    /// Values at `WorkingGrid.wavelengthsNm`.
    public var values: [Double]
    /// Free-form name.
    public var name: String

    /// Wraps values already on the working grid.
    public init(workingGridValues values: [Double], name: String) {
        precondition(values.count == WorkingGrid.count, "a working-grid distribution has \(WorkingGrid.count) samples")
        self.values = values
        self.name = name
    }

    /// Samples a function of wavelength (nm) on the working grid.
    public init(name: String, _ f: (Double) -> Double) {
        self.init(workingGridValues: WorkingGrid.wavelengthsNm.map(f), name: name)
    }

    /// The widest step between a distribution's samples (nm): CIE 015:2004 §7.2 tabulates at 5 nm
    /// and allows 10; 20 still follows a lamp's or a sensor's smooth parts.
    public static let largestGapNm = 20.0

    /// Resamples a distribution given on any ascending grid within 360–830 nm onto the working grid by
    /// linear interpolation (SPEC 4.2); outside the given range, `extrapolation` applies.
    public init(wavelengthsNm: [Double], values: [Double], name: String,
                extrapolation: SpectralExtrapolation = .constant) throws(SpectralGridError) {
        guard wavelengthsNm.count == values.count else {
            throw .countMismatch(wavelengths: wavelengthsNm.count, values: values.count)
        }
        guard wavelengthsNm.count >= 2 else { throw .tooFewSamples(wavelengthsNm.count) }
        for i in 1..<wavelengthsNm.count where !(wavelengthsNm[i] > wavelengthsNm[i - 1]) {
            throw .notAscending(index: i)
        }
        guard let first = wavelengthsNm.first, let last = wavelengthsNm.last,
              first >= WorkingGrid.startNm - 1e-9, last <= WorkingGrid.endNm + 1e-9 else {
            throw .outOfRange(firstNm: wavelengthsNm.first ?? .nan, lastNm: wavelengthsNm.last ?? .nan)
        }
        guard values.allSatisfy(\.isFinite) else { throw .notFinite }
        // Linear interpolation across a wide gap invents the data (a review's sensitivity with 500–600
        // nm removed moved the flash white's red from 0.55 to 1.14 of green's, silently).
        if let i = (1..<wavelengthsNm.count).first(where: { wavelengthsNm[$0] - wavelengthsNm[$0 - 1] > Self.largestGapNm }) {
            throw .gap(fromNm: wavelengthsNm[i - 1], toNm: wavelengthsNm[i])
        }
        var out = [Double](repeating: 0, count: WorkingGrid.count)
        var k = 0
        for (i, lambda) in WorkingGrid.wavelengthsNm.enumerated() {
            if lambda < first || lambda > last {
                out[i] = extrapolation == .zero ? 0 : (lambda < first ? values[0] : values[values.count - 1])
                continue
            }
            while k + 1 < wavelengthsNm.count - 1 && wavelengthsNm[k + 1] < lambda { k += 1 }
            let l0 = wavelengthsNm[k], l1 = wavelengthsNm[k + 1]
            let t = min(1, max(0, (lambda - l0) / (l1 - l0)))
            out[i] = values[k] + t * (values[k + 1] - values[k])
        }
        self.init(workingGridValues: out, name: name)
    }

    /// A constant distribution (e.g. a spectrally flat reflectance).
    public static func constant(_ value: Double, name: String) -> SpectralDistribution {
        SpectralDistribution(workingGridValues: [Double](repeating: value, count: WorkingGrid.count), name: name)
    }

    /// The value at a wavelength on the working grid (linear between samples, constant outside).
    public func value(atNm lambda: Double) -> Double {
        let p = (lambda - WorkingGrid.startNm) / WorkingGrid.stepNm
        if p <= 0 { return values[0] }
        if p >= Double(WorkingGrid.count - 1) { return values[WorkingGrid.count - 1] }
        let i = Int(p), t = p - Double(i)
        return values[i] + t * (values[i + 1] - values[i])
    }

    /// Every value multiplied by `factor`.
    public func scaled(by factor: Double) -> SpectralDistribution {
        SpectralDistribution(workingGridValues: values.map { $0 * factor }, name: name)
    }

    /// Product, wavelength by wavelength (e.g. reflectance × illuminant).
    public static func * (a: SpectralDistribution, b: SpectralDistribution) -> SpectralDistribution {
        SpectralDistribution(workingGridValues: zip(a.values, b.values).map { $0 * $1 }, name: "\(a.name) × \(b.name)")
    }

    /// Sum, wavelength by wavelength (e.g. two light sources on the same surface).
    public static func + (a: SpectralDistribution, b: SpectralDistribution) -> SpectralDistribution {
        SpectralDistribution(workingGridValues: zip(a.values, b.values).map { $0 + $1 }, name: "\(a.name) + \(b.name)")
    }

    /// ∑ a(λ) b(λ) Δλ over the working grid: the rectangle-rule integral that CIE 015:2004 §7.1
    /// uses for tristimulus values.
    public func integral(against other: SpectralDistribution) -> Double {
        var s = 0.0
        values.withUnsafeBufferPointer { a in
            other.values.withUnsafeBufferPointer { b in
                for i in 0..<a.count { s += a[i] * b[i] }
            }
        }
        return s * WorkingGrid.stepNm
    }
}

/// Why a spectral table cannot be put on the working grid.
public enum SpectralGridError: Error, Equatable, CustomStringConvertible {
    /// The wavelength and value arrays differ in length.
    case countMismatch(wavelengths: Int, values: Int)
    /// Fewer than two samples.
    case tooFewSamples(Int)
    /// Wavelengths do not increase at the given index.
    case notAscending(index: Int)
    /// Wavelengths leave 360–830 nm.
    case outOfRange(firstNm: Double, lastNm: Double)
    /// A value is NaN or infinite.
    case notFinite
    /// Two consecutive samples lie further apart than `SpectralDistribution.largestGapNm`.
    case gap(fromNm: Double, toNm: Double)

    public var description: String {
        switch self {
        case .countMismatch(let w, let v): return "\(w) wavelengths but \(v) values"
        case .tooFewSamples(let n): return "\(n) samples; at least 2 are needed"
        case .notAscending(let i): return "wavelengths do not increase at index \(i)"
        case .outOfRange(let a, let b): return "wavelengths \(a)–\(b) nm leave the range 360–830 nm"
        case .notFinite: return "values must be finite numbers"
        case .gap(let a, let b):
            return "no samples between \(a) and \(b) nm; spectral data must be sampled at least every \(Int(SpectralDistribution.largestGapNm)) nm (nothing is interpolated across a gap)"
        }
    }
}
