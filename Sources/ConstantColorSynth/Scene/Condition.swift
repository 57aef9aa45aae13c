import Foundation

/// The spectrum of a light source, resolved against a `SpectralLibrary`.
public enum LightSpectrum: Sendable, Equatable, CustomStringConvertible {
    /// A Planckian radiator, optionally tinted off the locus by `duv` (see `PlanckianLocus.offLocusSource`).
    case planckian(cctKelvin: Double, duv: Double)
    /// CIE daylight (4000–25000 K), optionally tinted off its locus point by `duv` relative to the Planckian locus.
    case daylight(cctKelvin: Double, duv: Double?)
    /// A distribution file of the spectral library, e.g. `lamp-fl11.json`.
    case file(String)
    /// A saturated narrow-band LED (Ohno 2005 model).
    case narrowBand(peakNm: Double, halfWidthNm: Double)

    /// Parses `planckian:3000[:DUV]` (1000–100000 K), `daylight:6500[:DUV]` (4000–25000 K; |Duv| ≤
    /// 0.05 for both), `file:lamp-fl11.json` (or a bare `*.json` name; a name with a `/` is a path)
    /// and `led:PEAK_NM[:HALF_WIDTH_NM]` (380–780 nm, 1–200 nm).
    public init(parsing text: String) throws(LightSourceError) {
        let p = text.split(separator: ":").map(String.init)
        func num(_ i: Int) throws(LightSourceError) -> Double {
            guard i < p.count, let v = Double(p[i]) else { throw .malformedSource(text) }
            return v
        }
        /// `v` when `range` holds it, else the error naming what was expected.
        func within(_ v: Double, _ range: ClosedRange<Double>, _ expected: String) throws(LightSourceError) -> Double {
            guard range.contains(v) else { throw .parameterOutOfRange(source: text, expected: expected) }
            return v
        }
        // Duv within what a colour-correction gel reaches (`offLocusSource`; lamps in ANSI C78.377
        // stay within ±0.006).
        func duv(_ i: Int) throws(LightSourceError) -> Double { try within(num(i), -0.05...0.05, "a Duv within ±0.05") }
        switch p.first?.lowercased() {
        case "planckian" where p.count == 2 || p.count == 3:
            // The CCT range of `PlanckianLocus.cctAndDuv`.
            self = .planckian(cctKelvin: try within(num(1), 1000...100_000, "a Planckian temperature of 1000–100000 K"),
                              duv: p.count == 3 ? try duv(2) : 0)
        case "daylight" where p.count == 2 || p.count == 3:
            self = .daylight(cctKelvin: try within(num(1), 4000...25_000, "a CIE daylight temperature of 4000–25000 K"),
                             duv: p.count == 3 ? try duv(2) : nil)
        case "file" where p.count == 2: self = .file(p[1])
        case "led" where p.count == 2 || p.count == 3:
            self = .narrowBand(peakNm: try within(num(1), 380...780, "an LED peak of 380–780 nm"),
                               halfWidthNm: p.count == 3 ? try within(num(2), 1...200, "an LED half width of 1–200 nm") : 15)
        default:
            if p.count == 1, text.hasSuffix(".json") { self = .file(text); return }
            throw .malformedSource(text)
        }
    }

    public var description: String {
        switch self {
        case .planckian(let t, let d): return d == 0 ? "planckian:\(fmt(t))" : "planckian:\(fmt(t)):\(fmt(d))"
        case .daylight(let t, let d): return d.map { "daylight:\(fmt(t)):\(fmt($0))" } ?? "daylight:\(fmt(t))"
        case .file(let f): return "file:\(f)"
        case .narrowBand(let p, let w): return "led:\(fmt(p)):\(fmt(w))"
        }
    }

    /// The spectral power distribution (relative scale).
    public func distribution(in library: SpectralLibrary) throws -> SpectralDistribution {
        switch self {
        case .planckian(let t, let duv):
            return duv == 0 ? LightSourceModel.planckian(temperatureKelvin: t)
                : try library.locus.offLocusSource(cctKelvin: t, duv: duv)
        case .daylight(let t, let duv):
            guard let duv else { return try LightSourceModel.daylight(cctKelvin: t, basis: library.daylightBasis) }
            return try library.locus.offLocusSource(cctKelvin: t, duv: duv, daylightBasis: library.daylightBasis)
        case .file(let f):
            // A name in the spectral folder, or a path (as `synth --camera` and `--flash` take them).
            return f.contains("/") ? try SpectralDistribution(path: f) : try library.distribution(file: f)
        case .narrowBand(let p, let w): return LightSourceModel.narrowBandLED(peakNm: p, halfWidthNm: w)
        }
    }
}

func fmt(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}

/// Where an ambient light falls on the scene plane; the weight multiplies the light's illuminance.
public enum LightPlacement: Sendable, Equatable, CustomStringConvertible {
    /// Weight 1 everywhere.
    case uniform
    /// Strong on the left, fading over the centre: w = ½ − ½ tanh((x − c_x) / (0.15 W)).
    case left
    /// Strong on the right: w = ½ + ½ tanh((x − c_x) / (0.15 W)).
    case right
    /// A round spot: w = exp(−d² / 2σ²), centre and σ as fractions of the width / height.
    case spot(centerX: Double, centerY: Double, sigma: Double)

    /// Parses `uniform`, `left`, `right`, `spot:CX:CY:SIGMA`.
    public init(parsing text: String) throws(LightSourceError) {
        let p = text.split(separator: ":").map(String.init)
        switch p.first {
        case "uniform" where p.count == 1: self = .uniform
        case "left" where p.count == 1: self = .left
        case "right" where p.count == 1: self = .right
        case "spot" where p.count == 4:
            guard let a = Double(p[1]), let b = Double(p[2]), let c = Double(p[3]), c > 0 else { throw .malformedSource(text) }
            self = .spot(centerX: a, centerY: b, sigma: c)
        default: throw .malformedSource(text)
        }
    }

    public var description: String {
        switch self {
        case .uniform: return "uniform"
        case .left: return "left"
        case .right: return "right"
        case .spot(let x, let y, let s): return "spot:\(fmt(x)):\(fmt(y)):\(fmt(s))"
        }
    }

    /// The weight at a point of a `width` × `height` frame.
    func weight(x: Double, y: Double, width: Double, height: Double) -> Double {
        switch self {
        case .uniform: return 1
        case .left: return 0.5 - 0.5 * tanh((x - width / 2) / (0.15 * width))
        case .right: return 0.5 + 0.5 * tanh((x - width / 2) / (0.15 * width))
        case .spot(let cx, let cy, let s):
            let dx = x - cx * width, dy = y - cy * height, sg = s * width
            return exp(-(dx * dx + dy * dy) / (2 * sg * sg))
        }
    }
}

/// One ambient light: spectrum, illuminance (lux, where its placement weight is 1) and placement.
public struct AmbientLight: Sendable, Equatable {
    /// The spectrum.
    public var spectrum: LightSpectrum
    /// Illuminance in lux on the plane where the placement weight is 1 (before gradient and shadow).
    public var lux: Double
    /// Where it falls.
    public var placement: LightPlacement

    /// Creates a light.
    public init(spectrum: LightSpectrum, lux: Double, placement: LightPlacement = .uniform) {
        self.spectrum = spectrum; self.lux = lux; self.placement = placement
    }

    /// The illuminances a `SPECTRUM@LUX` may give: 0 to 10⁶ lux, beyond full sunlight (about
    /// 1.2·10⁵ lux). `inf` hung the renderer; 1e308 rendered frames of nothing but clipped pixels.
    public static let luxRange: ClosedRange<Double> = 0...1e6

    /// Parses `SPECTRUM@LUX[@PLACEMENT]`, e.g. `planckian:3000@200@left`.
    public init(parsing text: String) throws(LightSourceError) {
        let p = text.split(separator: "@").map(String.init)
        guard p.count == 2 || p.count == 3, let lux = Double(p[1]) else { throw .malformedSource(text) }
        guard Self.luxRange.contains(lux) else {
            throw .parameterOutOfRange(source: text, expected: "an illuminance of 0–1000000 lux")
        }
        self.init(spectrum: try LightSpectrum(parsing: p[0]), lux: lux,
                  placement: p.count == 3 ? try LightPlacement(parsing: p[2]) : .uniform)
    }
}

/// A lighting condition to render: the ambient lights and the faults of the capture.
public struct SynthCondition: Sendable, Equatable {
    /// Short name (the folder name).
    public var name: String
    /// One sentence for people.
    public var description: String
    /// The ambient lights (empty for a dark-room capture).
    public var lights: [AmbientLight]
    /// Relative change of all ambient light across the frame width: factor 1 + g (x/W − ½).
    public var gradient: Double
    /// Whether an occluder casts an ambient shadow over the lower-left part of the chart.
    public var shadow: Bool
    /// Whether small glossy spots reflect the flash (and clip in the flash frame).
    public var speculars: Bool
    /// Camera motion between the flash and the ambient frame, in pixels at a 600-pixel-wide frame
    /// (scaled with the width).
    public var motion: RigidMotion
    /// Faults of a real hand-held capture (issue 7): exposure metadata, flicker, shake, a moving
    /// object, flash colour shading. None by default.
    public var effects: CaptureEffects

    /// Creates a condition.
    public init(name: String, description: String, lights: [AmbientLight], gradient: Double = 0.3,
                shadow: Bool = true, speculars: Bool = true,
                motion: RigidMotion = RigidMotion(translationXPx: 2.37, translationYPx: -1.61, rotationDegrees: 0.35),
                effects: CaptureEffects = .none) {
        self.name = name; self.description = description; self.lights = lights; self.gradient = gradient
        self.shadow = shadow; self.speculars = speculars; self.motion = motion; self.effects = effects
    }

    /// A dark-room capture: flash only, no ambient, no motion, no highlights.
    public static let darkroom = SynthCondition(
        name: "darkroom", description: "Dark room: the chart lit by the flash alone (calibration capture).",
        lights: [], gradient: 0, shadow: false, speculars: false, motion: .none)

    /// The motion scaled to a frame of `width` pixels.
    public func motion(forWidth width: Int) -> RigidMotion {
        let k = Double(width) / 600
        return RigidMotion(translationXPx: motion.translationXPx * k, translationYPx: motion.translationYPx * k,
                           rotationDegrees: motion.rotationDegrees)
    }

    /// The shadow polygon as fractions of width and height (its edge is the middle of the penumbra).
    public static let shadowPolygonFractions: [(Double, Double)] = [(0.0, 0.60), (0.40, 0.50), (0.50, 1.0), (0.0, 1.0)]
    /// Fraction of the ambient light that remains in the shadow's core (sky and interreflections).
    public static let shadowDepth = 0.25
}
