import Foundation

/// Faults of a real hand-held flash / no-flash capture (issue 7), each off unless set. Rendered by
/// `SceneRenderer.render` and recorded under `effects` in truth.json.
public struct CaptureEffects: Sendable, Equatable {
    /// The true shutter time and gain differ from the EXIF values (per frame).
    public var exposureError: ExposureMetadataError?
    /// The ambient light flickers and the sensor reads out row by row (rolling shutter).
    public var flicker: Flicker?
    /// The camera moves during the ambient exposure along a short path (motion blur).
    public var handShake: HandShake?
    /// An object on the plane moves between the frames; the background does not.
    public var movingObject: MovingObject?
    /// The flash's colour changes across the frame (bluer in the centre, yellower at the edge).
    public var flashColorShading: FlashColorShading?

    /// Creates a set of effects (all off by default).
    public init(exposureError: ExposureMetadataError? = nil, flicker: Flicker? = nil, handShake: HandShake? = nil,
                movingObject: MovingObject? = nil, flashColorShading: FlashColorShading? = nil) {
        self.exposureError = exposureError; self.flicker = flicker; self.handShake = handShake
        self.movingObject = movingObject; self.flashColorShading = flashColorShading
    }

    /// No effect.
    public static let none = CaptureEffects()

    /// Whether no effect is on.
    public var isEmpty: Bool { self == .none }

    /// Every effect on, with parameters drawn from `key` (e.g. the condition's name) so that each
    /// condition of a set gets its own faults: exposure metadata off by up to ±4 %, 100 or 120 Hz
    /// flicker of 10–40 % depth (every third condition also PWM-dimmed at 1–3 kHz), a 1.5–4 px shake
    /// path, a skin-coloured disc (radius 27 px) moving 12–26 px, and a flash 12 % less blue at the edge radius (half the diagonal; Δxy ≈ 0.01 there).
    public static func allOn(key: String) -> CaptureEffects {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325          // FNV-1a (Fowler, Noll, Vo)
        for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        var r = SplitMix64(seed: h ^ 0x5EED_0007)
        func u() -> Double { Double(r.next() >> 11) * 0x1.0p-53 }
        let mains = u() < 0.5 ? 100.0 : 120.0
        let depth = 0.1 + 0.3 * u()
        let pwm = (h % 3 == 0) ? 1000 + 2000 * u() : nil
        let shakeAngle = 360 * u(), shakeLength = 1.5 + 2.5 * u(), bow = (u() - 0.5) * 1.5
        let moveAngle = 2 * Double.pi * u(), moveBy = 12 + 14 * u()
        let start = (x: 0.16 + 0.08 * u(), y: 0.25 + 0.5 * u())
        return CaptureEffects(
            exposureError: .random(maxRelative: 0.04),
            flicker: Flicker(frequencyHz: mains, depth: depth, pwmHz: pwm, pwmDuty: 0.5),
            handShake: HandShake(lengthPx: shakeLength, angleDegrees: shakeAngle, bowPx: bow),
            movingObject: MovingObject(flashCenter: SIMD2(start.x, start.y),
                                       ambientCenter: SIMD2(start.x + moveBy * cos(moveAngle) / 600,
                                                            start.y + moveBy * sin(moveAngle) / 400),
                                       radiusFraction: 0.045),
            flashColorShading: FlashColorShading(blueLossAtEdge: 0.12))
    }
}

/// Shutter time and gain as they really were, as factors of the EXIF values.
public struct ExposureFactors: Sendable, Equatable {
    /// True / EXIF shutter time and true / EXIF gain (ISO) of the flash frame.
    public var flashTime: Double, flashGain: Double
    /// The same for the ambient frame.
    public var ambientTime: Double, ambientGain: Double

    /// Creates factors.
    public init(flashTime: Double, flashGain: Double, ambientTime: Double, ambientGain: Double) {
        self.flashTime = flashTime; self.flashGain = flashGain; self.ambientTime = ambientTime; self.ambientGain = ambientGain
    }

    /// True / EXIF radiometric scale (t · ISO) of the flash frame.
    public var flashScale: Double { flashTime * flashGain }
    /// True / EXIF radiometric scale of the ambient frame.
    public var ambientScale: Double { ambientTime * ambientGain }
}

/// Exposure metadata that is off: the frames are exposed with the true time and gain, EXIF keeps
/// the nominal ones.
public enum ExposureMetadataError: Sendable, Equatable {
    /// Each of the four factors uniform in [1 − m, 1 + m], drawn from the render seed.
    case random(maxRelative: Double)
    /// Given factors.
    case given(ExposureFactors)

    /// The factors for a render seed.
    public func factors(seed: UInt64) -> ExposureFactors {
        switch self {
        case .given(let f): return f
        case .random(let m):
            var r = SplitMix64(seed: seed ^ 0xE0E0_7157_0000_0001)
            func u() -> Double { 1 + m * (2 * (Double(r.next() >> 11) * 0x1.0p-53) - 1) }
            return ExposureFactors(flashTime: u(), flashGain: u(), ambientTime: u(), ambientGain: u())
        }
    }
}

/// Flickering ambient light seen through a rolling shutter.
///
/// The ambient illuminance is I(t) = (1 + m sin(2π f t)) · P(t), with f twice the mains frequency
/// (100 or 120 Hz) and P a PWM square wave of duty D scaled to mean 1 (1/D while on), or P = 1.
/// Row j of a frame whose exposure starts at t₀ integrates I over [t₀ + j·r, t₀ + j·r + T],
/// r = readout time / height (Liang et al. 2008, "Analysis and compensation of rolling shutter
/// effect"): its ambient gain is G_j = (1/T) ∫ I dt. The flash frame starts at t₀ = phase / f, the
/// ambient frame `interFrameSeconds` later. The flash's own light does not flicker.
public struct Flicker: Sendable, Equatable {
    /// Light modulation frequency f, Hz (twice the mains: 100 or 120).
    public var frequencyHz: Double
    /// Modulation depth m (0…1).
    public var depth: Double
    /// PWM dimming frequency, Hz (nil: no PWM).
    public var pwmHz: Double?
    /// PWM duty cycle D (0…1].
    public var pwmDuty: Double
    /// Time to read the frame out from the top row to the bottom row, seconds.
    public var frameReadoutSeconds: Double
    /// Start of the ambient exposure after the start of the flash exposure, seconds.
    public var interFrameSeconds: Double
    /// Phase of the modulation at the flash frame's start, cycles (nil: drawn from the render seed).
    public var phaseCycles: Double?

    /// Creates a flicker (defaults: no PWM, 20 ms readout, 0.21 s between the frames, phase from the seed).
    public init(frequencyHz: Double, depth: Double, pwmHz: Double? = nil, pwmDuty: Double = 0.5,
                frameReadoutSeconds: Double = 0.02, interFrameSeconds: Double = 0.2137, phaseCycles: Double? = nil) {
        self.frequencyHz = frequencyHz; self.depth = depth; self.pwmHz = pwmHz; self.pwmDuty = pwmDuty
        self.frameReadoutSeconds = frameReadoutSeconds; self.interFrameSeconds = interFrameSeconds; self.phaseCycles = phaseCycles
    }

    /// The phase for a render seed (a given `phaseCycles` must be finite: NaN hung the renderer).
    public func phase(seed: UInt64) -> Double {
        if let phaseCycles {
            precondition(phaseCycles.isFinite, "the flicker phase must be a finite number of cycles")
            return phaseCycles
        }
        var r = SplitMix64(seed: seed ^ 0xF11C_0000_0000_0002)
        return Double(r.next() >> 11) * 0x1.0p-53
    }

    /// The instantaneous relative illuminance I(t).
    public func intensity(at t: Double) -> Double {
        var v = 1 + depth * sin(2 * Double.pi * frequencyHz * t)
        if let p = pwmHz {
            let f = (t * p) - (t * p).rounded(.down)
            v *= f < pwmDuty ? 1 / pwmDuty : 0
        }
        return v
    }

    /// Per-row ambient gains G_j of a frame of `height` rows exposed for `exposureSeconds` from `start`.
    /// Without PWM the integral is closed-form; with PWM, a midpoint sum with at least 64 samples per
    /// PWM period and 256 per row.
    public func rowGains(height: Int, exposureSeconds T: Double, start: Double) -> [Double] {
        let r = frameReadoutSeconds / Double(height)
        let w = 2 * Double.pi * frequencyHz
        return (0..<height).map { j in
            let s = start + Double(j) * r
            if pwmHz == nil {
                return 1 + depth * (cos(w * s) - cos(w * (s + T))) / (w * T)
            }
            let n = min(200_000, max(256, Int((T * pwmHz! * 64).rounded(.up))))
            let dt = T / Double(n)
            var sum = 0.0
            for k in 0..<n { sum += intensity(at: s + (Double(k) + 0.5) * dt) }
            return sum / Double(n)
        }
    }
}

/// Hand shake during the ambient exposure: the image moves along a short path (a quadratic Bézier
/// from −L/2 to +L/2 along `angleDegrees`, bowed sideways by `bowPx` at its middle), averaged over
/// `samples` equally spaced times; the path is shifted so that its mean is zero (the rigid motion
/// of the condition stays the frame's mean position). Lengths in pixels at a 600-pixel-wide frame.
public struct HandShake: Sendable, Equatable {
    /// Length L of the path, pixels at 600 px width.
    public var lengthPx: Double
    /// Direction of the path, degrees (x right, y down).
    public var angleDegrees: Double
    /// Sideways deviation at the middle of the path, pixels at 600 px width.
    public var bowPx: Double
    /// Number of sub-exposures averaged.
    public var samples: Int

    /// Creates a shake.
    public init(lengthPx: Double, angleDegrees: Double, bowPx: Double = 0, samples: Int = 16) {
        self.lengthPx = lengthPx; self.angleDegrees = angleDegrees; self.bowPx = bowPx; self.samples = max(1, samples)
    }

    /// Offsets in ambient-frame pixels for a frame `width` pixels wide: at sub-time k, ambient pixel p
    /// sees what the still frame shows at p + offset_k.
    public func offsets(width: Int) -> [SIMD2<Double>] {
        let k = Double(width) / 600
        let th = angleDegrees * Double.pi / 180
        let d = SIMD2(cos(th), sin(th)), n = SIMD2(-sin(th), cos(th))
        let a = -0.5 * lengthPx * k * d, b = 0.5 * lengthPx * k * d
        let c = 2 * bowPx * k * n            // control point: the curve passes bowPx from the chord at s = ½
        var pts: [SIMD2<Double>] = (0..<samples).map { i in
            let s = samples == 1 ? 0.5 : Double(i) / Double(samples - 1)
            return (1 - s) * (1 - s) * a + 2 * s * (1 - s) * c + s * s * b
        }
        let mean = pts.reduce(.zero, +) / Double(pts.count)
        for i in pts.indices { pts[i] -= mean }
        return pts
    }
}

/// An object lying on the plane that moves between the frames (a hand, a pen): a disc or a square
/// of one reflectance, drawn over the chart, lit like the plane. Centres and size are fractions of
/// the frame's width and height (radius: of the width), in scene (flash-frame) coordinates.
public struct MovingObject: Sendable, Equatable {
    /// The object's outline.
    public enum Shape: String, Sendable, Equatable { case disc, square }
    /// Centre at the flash frame, fractions (x of width, y of height).
    public var flashCenter: SIMD2<Double>
    /// Centre at the ambient frame, fractions.
    public var ambientCenter: SIMD2<Double>
    /// Radius (half side for a square), fraction of the width.
    public var radiusFraction: Double
    /// Outline.
    public var shape: Shape
    /// Reflectance: a ColorChecker patch name (default "light skin", a hand).
    public var reflectanceName: String

    /// Creates an object.
    public init(flashCenter: SIMD2<Double>, ambientCenter: SIMD2<Double>, radiusFraction: Double,
                shape: Shape = .disc, reflectanceName: String = "light skin") {
        self.flashCenter = flashCenter; self.ambientCenter = ambientCenter; self.radiusFraction = radiusFraction
        self.shape = shape; self.reflectanceName = reflectanceName
    }
}

/// A phosphor-converted LED flash is bluer on its axis than at wide angles (the blue die emits
/// more forward than the phosphor). The flash SPD at a pixel is a blend of the centre SPD S(λ) and
/// an edge SPD S(λ) · (1 − a · b(λ)) rescaled to the same illuminance, with b(λ) = 1 / (1 +
/// exp((λ − 490 nm) / 10 nm)) (the blue band) and blend weight w = min(1, (r / R)²), r the distance
/// from the frame centre and R = `edgeRadiusFraction` × the half diagonal.
public struct FlashColorShading: Sendable, Equatable {
    /// Fraction a of the blue band lost at the edge.
    public var blueLossAtEdge: Double
    /// R as a fraction of the half diagonal.
    public var edgeRadiusFraction: Double

    /// Creates a shading.
    public init(blueLossAtEdge: Double, edgeRadiusFraction: Double = 1) {
        self.blueLossAtEdge = blueLossAtEdge; self.edgeRadiusFraction = edgeRadiusFraction
    }
}

/// Why an effect cannot be rendered.
public enum SynthEffectError: Error, Equatable, CustomStringConvertible {
    /// The moving object's reflectance is not a ColorChecker patch name.
    case unknownReflectance(String)

    public var description: String {
        switch self {
        case .unknownReflectance(let n): return "moving object: '\(n)' is not a ColorChecker patch name of the spectral data"
        }
    }
}
