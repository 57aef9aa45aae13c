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

    /// The widest step between samples (nm) that `samplingNote` passes over: CIE 015:2004 §7.2
    /// tabulates at 5 nm and allows 10; 20 still follows a lamp's or a sensor's smooth parts.
    public static let largestQuietGapNm = 20.0

    /// The share of a spectrum's area that linear interpolation across one wider gap may carry before
    /// `samplingNote` speaks: a coarse tail where a sensitivity has fallen to noise carries less.
    public static let quietGapAreaShare = 0.01

    /// Resamples a distribution given on any grid within 360–830 nm (regular or irregular, in any
    /// order: the samples are taken in order of wavelength) onto the working grid by linear
    /// interpolation (SPEC 4.2); outside the given range, `extrapolation` applies. A wavelength given
    /// twice is refused (which value holds there is not known). Coarse sampling is not refused (SPEC 4.2
    /// admits any grid) but said by `samplingNote`.
    public init(wavelengthsNm: [Double], values: [Double], name: String,
                extrapolation: SpectralExtrapolation = .constant) throws(SpectralGridError) {
        guard wavelengthsNm.count == values.count else {
            throw .countMismatch(wavelengths: wavelengthsNm.count, values: values.count)
        }
        guard wavelengthsNm.count >= 2 else { throw .tooFewSamples(wavelengthsNm.count) }
        guard wavelengthsNm.allSatisfy(\.isFinite), values.allSatisfy(\.isFinite) else { throw .notFinite }
        let (wavelengthsNm, values) = try Self.inWavelengthOrder(wavelengthsNm, values)
        guard let first = wavelengthsNm.first, let last = wavelengthsNm.last,
              first >= WorkingGrid.startNm - 1e-9, last <= WorkingGrid.endNm + 1e-9 else {
            throw .outOfRange(firstNm: wavelengthsNm.first ?? .nan, lastNm: wavelengthsNm.last ?? .nan)
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

    /// The samples sorted by wavelength (a table given from red to blue is the same table); a
    /// wavelength given twice is refused.
    static func inWavelengthOrder(_ w: [Double], _ v: [Double]) throws(SpectralGridError) -> ([Double], [Double]) {
        if zip(w, w.dropFirst()).allSatisfy({ $0 < $1 }) { return (w, v) }
        let order = w.indices.sorted { w[$0] < w[$1] }
        let sortedW = order.map { w[$0] }, sortedV = order.map { v[$0] }
        if let i = sortedW.indices.dropFirst().first(where: { sortedW[$0] == sortedW[$0 - 1] }) {
            throw .repeatedWavelength(nm: sortedW[i])
        }
        return (sortedW, sortedV)
    }

    /// What a user should hear about a table's sampling, or nil when it is fine: its gaps wider than
    /// `largestQuietGapNm` across which linear interpolation carries more than `quietGapAreaShare`
    /// of any channel's area (trapezoids over the table's own samples). A regular coarse grid is said
    /// as such; a gap in a finer grid as the wavelengths it lies between (data missing there are
    /// invented by the interpolation: a review's sensitivity with 500–600 nm removed moved the flash
    /// white's red from 0.55 to 1.14 of green's). `channels` are value arrays on `wavelengthsNm`
    /// (in any order, as the initializer takes them); a table it cannot read gives nil, the
    /// initializer says why.
    public static func samplingNote(wavelengthsNm: [Double], channels: [[Double]]) -> String? {
        guard wavelengthsNm.count >= 2, channels.allSatisfy({ $0.count == wavelengthsNm.count }) else { return nil }
        let order = wavelengthsNm.indices.sorted { wavelengthsNm[$0] < wavelengthsNm[$1] }
        let w = order.map { wavelengthsNm[$0] }
        let steps: [Double] = (1..<w.count).map { w[$0] - w[$0 - 1] }  // steps[k]: from w[k] to w[k + 1]
        let gaps = steps.indices.filter { steps[$0] > largestQuietGapNm }
        guard !gaps.isEmpty else { return nil }
        // Each channel's trapezoid areas over the table's own steps.
        let areas: [[Double]] = channels.map { channel in
            let v: [Double] = order.map { abs(channel[$0]) }
            return steps.indices.map { k in 0.5 * (v[k] + v[k + 1]) * steps[k] }
        }
        let totals: [Double] = areas.map { $0.reduce(0, +) }
        let loud = gaps.filter { k in areas.indices.contains { c in totals[c] > 0 && areas[c][k] > quietGapAreaShare * totals[c] } }
        guard let widest = loud.max(by: { steps[$0] < steps[$1] }) else { return nil }
        func nm(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
        if steps.allSatisfy({ abs($0 - steps[0]) < 1e-6 }) {
            return "sampled every \(nm(steps[0])) nm (CIE 015:2004 tabulates at 5 nm and allows 10): interpolated linearly, "
                + "so a feature narrower than that between samples (a phosphor LED's blue peak is about 20 nm wide) is not represented"
        }
        let finest = steps.sorted()[steps.count / 2]
        return "no samples between \(nm(w[widest])) and \(nm(w[widest + 1])) nm"
            + (loud.count > 1 ? " (the widest of \(loud.count) such gaps)" : "")
            + " where the rest is sampled every \(nm(finest)) nm (median): interpolated linearly across the gap; if data are missing there, what is used there is invented"
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
    /// A wavelength is given twice.
    case repeatedWavelength(nm: Double)
    /// Wavelengths leave 360–830 nm.
    case outOfRange(firstNm: Double, lastNm: Double)
    /// A wavelength or value is NaN or infinite.
    case notFinite

    public var description: String {
        switch self {
        case .countMismatch(let w, let v): return "\(w) wavelengths but \(v) values"
        case .tooFewSamples(let n): return "\(n) samples; at least 2 are needed"
        case .repeatedWavelength(let nm): return "wavelength \(nm) nm is given twice"
        case .outOfRange(let a, let b): return "wavelengths \(a)–\(b) nm leave the range 360–830 nm"
        case .notFinite: return "wavelengths and values must be finite numbers"
        }
    }
}
