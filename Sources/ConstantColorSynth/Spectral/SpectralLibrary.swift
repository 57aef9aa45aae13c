import Foundation
import ConstantColor

/// The committed spectral data of `fixtures/spectra/` (exported by `Scripts/export-spectra`),
/// loaded once: observer, daylight basis, ColorChecker reflectances, training reflectances, and
/// named light sources and cameras read on demand.
public struct SpectralLibrary: Sendable {
    /// The folder holding the JSON files.
    public let directory: String
    /// CIE 1931 2° colour-matching functions.
    public let cmfs: ColorMatchingFunctions
    /// CIE daylight basis S₀, S₁, S₂.
    public let daylightBasis: DaylightBasis
    /// CIE illuminant D65 (tabulated).
    public let d65: SpectralDistribution
    /// The 24 ColorChecker reflectances, BabelColor average (Pascale 2006), in chart order.
    public let colorChecker: SpectralSet
    /// The Planckian locus of `cmfs`, for CCT and Duv.
    public let locus: PlanckianLocus

    /// File names inside `directory`.
    public enum File {
        /// CIE 1931 2° CMFs.
        public static let cmfs = "cie1931-2deg-cmfs.json"
        /// Daylight basis.
        public static let daylightBasis = "cie-daylight-basis.json"
        /// D65.
        public static let d65 = "illuminant-d65.json"
        /// ColorChecker, BabelColor average.
        public static let colorCheckerBabelColor = "colorchecker-babelcolor-average.json"
        /// ColorChecker, N. Ohta.
        public static let colorCheckerOhta = "colorchecker-ohta.json"
        /// The 190 rawtoaces v1 training reflectances.
        public static let trainingRawtoaces = "training-rawtoaces-v1-190.json"
        /// Nikon 5100 (NPL) sensitivities.
        public static let nikon5100 = "camera-nikon-5100-npl.json"
        /// Phosphor LED YAG flash.
        public static let phosphorLEDYAG = "flash-phosphor-led-yag.json"
        /// CIE LED-B4 white LED (second device's flash).
        public static let ledB4 = "flash-led-b4.json"
        /// Sigma SDMerill (NPL) sensitivities.
        public static let sigmaSDMerill = "camera-sigma-sdmerill-npl.json"
    }

    /// Loads the library from a folder.
    public init(directory: String) throws {
        self.directory = directory
        cmfs = try ColorMatchingFunctions(path: Self.join(directory, File.cmfs))
        daylightBasis = try DaylightBasis(path: Self.join(directory, File.daylightBasis))
        d65 = try SpectralDistribution(path: Self.join(directory, File.d65))
        colorChecker = try SpectralSet(path: Self.join(directory, File.colorCheckerBabelColor))
        locus = PlanckianLocus(cmfs: cmfs)
    }

    /// Loads the library from `defaultDirectory()`.
    public init() throws { try self.init(directory: try Self.defaultDirectory()) }

    /// Path of a file in the library folder.
    public func path(_ file: String) -> String { Self.join(directory, file) }

    /// A light source (single distribution) by file name, e.g. `lamp-fl11.json`.
    public func distribution(file: String) throws -> SpectralDistribution {
        try SpectralDistribution(path: path(file))
    }

    /// A reflectance set by file name, e.g. the training set.
    public func set(file: String) throws -> SpectralSet { try SpectralSet(path: path(file)) }

    /// A camera by file name.
    public func camera(file: String) throws -> CameraSensitivity { try CameraSensitivity(path: path(file)) }

    /// XYZ of the perfect reflecting diffuser under D65 with Y = 1.
    public var whiteXYZD65: SIMD3<Double> {
        let w = cmfs.tristimulus(of: d65)
        return w / w.y
    }

    /// XYZ of a reflectance under D65, normalized so that the perfect reflector has Y = 1
    /// (CIE 015:2004 eq. 7.1–7.2, k = 1 / ∑ S ȳ Δλ).
    public func xyzD65(of reflectance: SpectralDistribution) -> SIMD3<Double> {
        cmfs.tristimulus(of: reflectance * d65) / cmfs.tristimulus(of: d65).y
    }

    /// The folder of spectral data: `$CONSTANT_COLOR_SPECTRA` if set, else the first
    /// `fixtures/spectra` found walking up from the current directory, then from the executable.
    public static func defaultDirectory() throws(SpectralLibraryError) -> String {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["CONSTANT_COLOR_SPECTRA"], !env.isEmpty {
            guard fm.fileExists(atPath: join(env, File.cmfs)) else { throw .notFound(tried: [env]) }
            return env
        }
        var tried: [String] = []
        var starts = [fm.currentDirectoryPath]
        if let exe = CommandLine.arguments.first {
            let url = URL(fileURLWithPath: exe).resolvingSymlinksInPath()
            starts.append(url.deletingLastPathComponent().path)
        }
        for start in starts {
            var dir = URL(fileURLWithPath: start).standardizedFileURL
            while true {
                let candidate = dir.appendingPathComponent("fixtures/spectra").path
                tried.append(candidate)
                if fm.fileExists(atPath: join(candidate, File.cmfs)) { return candidate }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        throw .notFound(tried: tried)
    }

    static func join(_ dir: String, _ file: String) -> String {
        dir.hasSuffix("/") ? dir + file : dir + "/" + file
    }
}

/// The spectral data folder cannot be found.
public enum SpectralLibraryError: Error, Equatable, CustomStringConvertible {
    /// None of the candidate folders holds the data.
    case notFound(tried: [String])

    public var description: String {
        switch self {
        case .notFound(let t):
            return "\(t.first ?? "fixtures/spectra"): spectral data not found (set CONSTANT_COLOR_SPECTRA to the fixtures/spectra folder; looked in \(t.count) places)"
        }
    }
}
