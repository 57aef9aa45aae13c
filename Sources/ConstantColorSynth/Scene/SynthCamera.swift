import Foundation
import ConstantColor

/// The simulated camera: spectral sensitivities, sensor levels and noise, lens and auto-exposure.
///
/// Signal chain (per channel c): a Lambertian surface of reflectance ρ(λ) under irradiance E(λ)
/// (W·m⁻²·nm⁻¹) has the channel "luminance" L_c = (K_m / π) ∑ ρ E s′_c Δλ (cd/m² for a channel
/// that sees like ȳ), where s′ are the sensitivities scaled so that green responds to D65 exactly
/// as ȳ does. The focal-plane exposure is H_c = q L_c t / N² with q = 0.65 (ISO 12232:2006 §4,
/// eq. for H = q L t / N²), and the sensor saturates at H = 78 / S lux·s, S = ISO (ISO 12232:2006
/// saturation-based speed). So the black-subtracted signal is (white − black) · H_c · S / 78 DN.
public struct SynthCamera: Sendable {
    /// Name written to truth files and profiles.
    public var name: String
    /// The sensitivities as given (file scale).
    public var sensitivity: CameraSensitivity
    /// Black level, DN.
    public var blackLevel: Double
    /// White (saturation) level, DN.
    public var whiteLevel: Double
    /// Noise model (at `noise.referenceISO`).
    public var noise: NoiseModel
    /// Aperture (fixed, as on a phone).
    public var fNumber: Double
    /// Shutter limits, seconds.
    public var minExposureTimeSeconds: Double, maxExposureTimeSeconds: Double
    /// ISO limits.
    public var minISO: Double, maxISO: Double
    /// Horizontal field of view, degrees (for the flash's fall-off geometry).
    public var horizontalFieldOfViewDegrees: Double

    /// Default sensor: black 1024 DN, white 60000 DN, read noise 8 DN and 0.25 e⁻/DN at ISO 100
    /// (a 15 000 e⁻ full well on a 16-bit scale), f/1.8, 1/8000–1/15 s, ISO 100–3200, 65° view.
    public init(name: String, sensitivity: CameraSensitivity, blackLevel: Double = 1024, whiteLevel: Double = 60000,
                noise: NoiseModel = NoiseModel(readNoiseDN: 8, gainElectronsPerDN: 0.25, referenceISO: 100),
                fNumber: Double = 1.8, minExposureTimeSeconds: Double = 1.0 / 8000, maxExposureTimeSeconds: Double = 1.0 / 15,
                minISO: Double = 100, maxISO: Double = 3200, horizontalFieldOfViewDegrees: Double = 65) {
        self.name = name; self.sensitivity = sensitivity; self.blackLevel = blackLevel; self.whiteLevel = whiteLevel
        self.noise = noise; self.fNumber = fNumber
        self.minExposureTimeSeconds = minExposureTimeSeconds; self.maxExposureTimeSeconds = maxExposureTimeSeconds
        self.minISO = minISO; self.maxISO = maxISO; self.horizontalFieldOfViewDegrees = horizontalFieldOfViewDegrees
    }

    /// Focal-plane factor q of ISO 12232:2006 (lens transmission, vignetting and geometry).
    public static let focalPlaneFactorQ = 0.65
    /// Saturation-based speed constant: S = 78 / H_sat (ISO 12232:2006).
    public static let saturationSpeedConstant = 78.0
    /// Reflected-light meter calibration constant K = 12.5 cd·s/m² (ISO 2720:1974).
    public static let meterConstantK = 12.5

    /// Camera "luminance" (cd/m² per channel) of a Lambertian reflectance under an irradiance
    /// (W·m⁻²·nm⁻¹), with the sensitivities normalized against D65 and `cmfs`.
    public func channelLuminance(reflectance: SpectralDistribution, irradiance: SpectralDistribution,
                                 normalization: Double) -> SIMD3<Double> {
        sensitivity.response(to: reflectance * irradiance) * (normalization * Photometry.maximumLuminousEfficacyLumensPerWatt / Double.pi)
    }

    /// The factor that makes the green channel respond to D65 as ȳ does: ∑ D65 ȳ / ∑ D65 s_g.
    public func sensitivityNormalization(d65: SpectralDistribution, cmfs: ColorMatchingFunctions) -> Double {
        d65.integral(against: cmfs.yBar) / d65.integral(against: sensitivity.green)
    }

    /// DN (black-subtracted) per cd/m² of channel luminance at an exposure: (W − B) · S/78 · q t / N².
    public func dnPerLuminance(_ e: ExposureSettings) -> Double {
        (whiteLevel - blackLevel) * e.isoSpeed / Self.saturationSpeedConstant * Self.focalPlaneFactorQ
            * e.exposureTimeSeconds / (e.fNumber * e.fNumber)
    }

    /// Auto-exposure for a scene of mean luminance `meanLuminance` (cd/m²), averaging metering per
    /// ISO 2720 (t · S = K N² / L): base ISO first, then longer shutter up to the limit, then higher
    /// ISO up to its limit; below that the frame is underexposed. ISO is an integer (EXIF SHORT)
    /// and shutter times shorter than 1 s are 1/n s.
    public func autoExposure(meanLuminance: Double) -> ExposureSettings {
        let n2 = fNumber * fNumber
        let product = Self.meterConstantK * n2 / max(meanLuminance, 1e-9)   // t · S
        var iso = minISO
        var t = product / iso
        if t > maxExposureTimeSeconds {
            t = maxExposureTimeSeconds
            iso = min(maxISO, max(minISO, (product / t).rounded()))
        } else if t < minExposureTimeSeconds {
            t = minExposureTimeSeconds
        }
        if t < 1 { t = 1 / max(1, (1 / t).rounded()) }
        return ExposureSettings(exposureTimeSeconds: t, fNumber: fNumber, isoSpeed: iso)
    }
}
