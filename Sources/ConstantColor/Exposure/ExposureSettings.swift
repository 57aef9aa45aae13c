import Foundation

/// The exposure of one frame: shutter time, aperture and sensitivity.
///
/// Tags: ExposureTime (EXIF 2.3 tag 33434), FNumber (33437), PhotographicSensitivity (34855).
public struct ExposureSettings: Sendable, Equatable, Codable {
    /// Shutter time in seconds.
    public var exposureTimeSeconds: Double
    /// Aperture as an f-number (focal length / entrance pupil diameter).
    public var fNumber: Double
    /// ISO speed (PhotographicSensitivity).
    public var isoSpeed: Double

    /// Creates exposure settings; all three must be finite and positive (see `validated()`).
    public init(exposureTimeSeconds: Double, fNumber: Double, isoSpeed: Double) {
        self.exposureTimeSeconds = exposureTimeSeconds
        self.fNumber = fNumber
        self.isoSpeed = isoSpeed
    }

    /// The relative radiometric gain of this exposure: `t × (ISO/100) / N²` (SPEC 2.2).
    ///
    /// A signal divided by this value is in units that do not depend on the exposure:
    /// "data numbers per (second at ISO 100 and f/1)".
    public var radiometricScale: Double {
        exposureTimeSeconds * (isoSpeed / 100) / (fNumber * fNumber)
    }

    /// The values a camera records, each beyond any real capture's (1 µs to about 28 hours; f/0.5,
    /// about the limit of a lens in air, to f/1000, a pinhole; ISO 1 to 10⁷): a value outside is a
    /// typo or a damaged tag. They also keep the normalized samples `DN / (t·ISO/100/N²)` and their
    /// squares (the noise reduction's moments) finite in `Float`: `1e-300,2.8,100` made them infinite.
    public static let plausibleRanges: [(name: String, unit: String, range: ClosedRange<Double>)] = [
        ("exposure time", " s", 1e-6...1e5), ("f-number", "", 0.5...1000), ("ISO", "", 1...1e7),
    ]

    /// Throws when a value is missing, non-finite or not positive, or outside `plausibleRanges`.
    public func validated() throws(ExposureError) -> ExposureSettings {
        for (k, v) in [exposureTimeSeconds, fNumber, isoSpeed].enumerated() {
            let (name, unit, range) = Self.plausibleRanges[k]
            guard v.isFinite, v > 0 else { throw .invalidValue(name: name, value: v) }
            guard range.contains(v) else { throw .implausible(name: name, value: v, unit: unit, range: range) }
        }
        return self
    }

    /// A plain decimal number (digits with at most one point, an optional exponent), as a person
    /// types an exposure and a camera shows it; nil otherwise. `Double(_:)` alone also reads
    /// hexadecimal ("0x10" is 16: `1/79,0x10,100` was taken as f/16), "nan" and "inf".
    static func decimal(_ s: Substring) -> Double? {
        guard s.wholeMatch(of: /[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/) != nil else { return nil }
        return Double(s)
    }

    /// Parses `T,N,ISO` as given on the command line; `T` may be a fraction such as `1/60`.
    public init(parsing text: String) throws(ExposureError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 3 else { throw .malformed(text) }
        func number(_ s: String) throws(ExposureError) -> Double {
            let fraction = s.split(separator: "/", omittingEmptySubsequences: false)
            if fraction.count == 2, let n = Self.decimal(fraction[0]), let d = Self.decimal(fraction[1]), d != 0 {
                return n / d
            }
            guard fraction.count == 1, let v = Self.decimal(fraction[0]) else { throw .malformed(text) }
            return v
        }
        self.init(exposureTimeSeconds: try number(parts[0]), fNumber: try number(parts[1]),
                  isoSpeed: try number(parts[2]))
        _ = try validated()
    }
}

/// Problems with exposure data.
public enum ExposureError: Error, Equatable, CustomStringConvertible {
    /// The `T,N,ISO` text could not be parsed.
    case malformed(String)
    /// A value is not a finite positive number.
    case invalidValue(name: String, value: Double)
    /// No exposure data in the file and none given on the command line.
    case missing(String)
    /// A value outside what a camera records (`ExposureSettings.plausibleRanges`).
    case implausible(name: String, value: Double, unit: String, range: ClosedRange<Double>)

    public var description: String {
        switch self {
        case .malformed(let s): return "exposure '\(s)' is not of the form T,N,ISO (e.g. 1/60,2.8,100)"
        case .invalidValue(let name, let v): return "\(name) \(v) is not a positive finite number"
        case let .implausible(name, v, unit, range):
            return "\(name) \(v)\(unit) is outside what a camera records (\(range.lowerBound)…\(range.upperBound)\(unit))"
        case .missing(let what): return "no exposure data (\(what)); give it with --flash-exposure/--ambient-exposure T,N,ISO"
        }
    }
}

