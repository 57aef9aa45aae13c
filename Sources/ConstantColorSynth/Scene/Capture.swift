import Foundation
import ConstantColor
import ConstantColorIO

/// How to render.
public struct RenderOptions: Sendable {
    /// Add Poisson shot noise and Gaussian read noise (`NoiseModel`); off gives the expected DN, rounded.
    public var noise: Bool
    /// Sub-samples per axis on edge pixels.
    public var supersampling: Int
    /// Fixed exposures instead of auto-exposure (the EXIF values; with `CaptureEffects.exposureError`
    /// the true ones differ).
    public var flashExposure: ExposureSettings?, ambientExposure: ExposureSettings?
    /// Also render the per-pixel truth: material label maps of both frames (`SynthCapture.labels`).
    public var truthMaps: Bool
    /// With a dark-room condition, also render its dark frame (lens capped, same exposure).
    public var darkFrame: Bool
    /// Pass every frame (flash, ambient, dark) through a colour filter array and demosaicing, as a
    /// raw developer's linear TIFF is: each pixel records one channel, with its own noise, and the two
    /// others are interpolated, so pixel noise is spatially correlated. nil: every pixel records all
    /// three channels (independent noise). Recorded as truth.json's `demosaic`.
    public var demosaic: Demosaic?

    /// Creates options (defaults: noise on, 8 × 8 edge supersampling, auto-exposure, no label maps,
    /// a dark frame with a dark-room capture, no demosaicing).
    public init(noise: Bool = true, supersampling: Int = 8, flashExposure: ExposureSettings? = nil,
                ambientExposure: ExposureSettings? = nil, truthMaps: Bool = false, darkFrame: Bool = true,
                demosaic: Demosaic? = nil) {
        self.noise = noise; self.supersampling = supersampling
        self.flashExposure = flashExposure; self.ambientExposure = ambientExposure; self.truthMaps = truthMaps
        self.darkFrame = darkFrame; self.demosaic = demosaic
    }
}

/// What a frame's capture faults are, resolved for one render (`CaptureEffects`).
public struct FrameFaults: Sendable {
    /// Per-row ambient gain (flicker through the rolling shutter), or nil for 1 everywhere.
    public var rowGains: [Double]?
    /// Image offsets of the sub-exposures (hand shake), ambient-frame pixels; `[.zero]` for none.
    public var shakeOffsets: [SIMD2<Double>]

    /// Creates faults.
    public init(rowGains: [Double]? = nil, shakeOffsets: [SIMD2<Double>] = [.zero]) {
        self.rowGains = rowGains; self.shakeOffsets = shakeOffsets.isEmpty ? [.zero] : shakeOffsets
    }

    /// No fault.
    public static let none = FrameFaults()
}

/// One rendered frame: 16-bit data numbers (integers stored as `Float`) and its exposure.
public struct SynthFrame: Sendable {
    /// RGB, data numbers 0…65535 (black level included, clipped at the white level).
    public var image: PlanarImage
    /// The exposure its metadata (EXIF) records.
    public var exposure: ExposureSettings
    /// The exposure it was really taken with (differs from `exposure` under `CaptureEffects.exposureError`).
    public var trueExposure: ExposureSettings
    /// Its faults (flicker row gains, shake path).
    public var faults: FrameFaults

    /// Creates a frame whose true exposure is its recorded one and that has no faults.
    public init(image: PlanarImage, exposure: ExposureSettings, trueExposure: ExposureSettings? = nil,
                faults: FrameFaults = .none) {
        self.image = image; self.exposure = exposure; self.trueExposure = trueExposure ?? exposure; self.faults = faults
    }
}

/// A rendered condition: the flash frame, the ambient frame (nil for a dark-room capture) and the
/// truth that describes them.
public struct SynthCapture: Sendable {
    /// The flash (or dark-room) frame.
    public var flash: SynthFrame
    /// The ambient frame.
    public var ambient: SynthFrame?
    /// The truth file's content (schema version 1).
    public var truth: JSONValue
    /// The prepared scene.
    public var scene: SceneRenderer.PreparedScene
    /// Per-pixel material labels of the flash frame (`RenderOptions.truthMaps`): 0 = mixed or unknown
    /// (edges, highlights), material m is label m + 1 (1 = background, 2…25 = patches, then the moving object).
    public var labels: PlanarImage?
    /// The same for the ambient frame (its own pixel grid: camera motion and the object's other place).
    public var ambientLabels: PlanarImage?
    /// The dark frame of a dark-room capture: same camera and exposure, lens capped, so black level
    /// plus read noise only (EMVA 1288: the dark signal's variance is the temporal read noise).
    public var dark: SynthFrame? = nil
}

extension SceneRenderer {
    /// Renders a condition: auto-exposes and renders the flash frame (flash + ambient) and, unless the
    /// condition has no ambient light, the ambient frame (camera moved by the condition's motion).
    public func render(_ condition: SynthCondition, width: Int, height: Int, seed: UInt64,
                       content: SceneGeometry.Content = .colorChecker, options: RenderOptions = RenderOptions()) throws -> SynthCapture {
        let geometry = SceneGeometry(width: width, height: height, content: content)
        let scene = try prepare(condition, geometry: geometry)
        let isDarkroom = condition.lights.isEmpty
        let effects = condition.effects
        let factors = effects.exposureError?.factors(seed: seed)
            ?? ExposureFactors(flashTime: 1, flashGain: 1, ambientTime: 1, ambientGain: 1)
        func trueExposure(_ e: ExposureSettings, time: Double, gain: Double) -> ExposureSettings {
            ExposureSettings(exposureTimeSeconds: e.exposureTimeSeconds * time, fNumber: e.fNumber, isoSpeed: e.isoSpeed * gain)
        }
        let phase = effects.flicker?.phase(seed: seed) ?? 0
        let flashStart = effects.flicker.map { phase / $0.frequencyHz } ?? 0

        let fe = options.flashExposure ?? camera.autoExposure(meanLuminance: scene.meanMeteredLuminance(.flash, flashOn: true))
        let feTrue = trueExposure(fe, time: factors.flashTime, gain: factors.flashGain)
        let flashFaults = FrameFaults(rowGains: isDarkroom ? nil : effects.flicker?.rowGains(
            height: height, exposureSeconds: feTrue.exposureTimeSeconds, start: flashStart))
        let flashFrame = SynthFrame(image: renderFrame(scene, .flash, flashOn: true, exposure: feTrue, seed: seed,
                                                       stream: isDarkroom ? 2 : 0, options: options, faults: flashFaults),
                                    exposure: fe, trueExposure: feTrue, faults: flashFaults)
        var ambientFrame: SynthFrame?
        if !isDarkroom {
            let ae = options.ambientExposure ?? camera.autoExposure(meanLuminance: scene.meanMeteredLuminance(.ambient, flashOn: false))
            let aeTrue = trueExposure(ae, time: factors.ambientTime, gain: factors.ambientGain)
            let faults = FrameFaults(
                rowGains: effects.flicker.map { f in
                    f.rowGains(height: height, exposureSeconds: aeTrue.exposureTimeSeconds, start: flashStart + f.interFrameSeconds)
                },
                shakeOffsets: effects.handShake?.offsets(width: width) ?? [.zero])
            ambientFrame = SynthFrame(image: renderFrame(scene, .ambient, flashOn: false, exposure: aeTrue, seed: seed,
                                                         stream: 1, options: options, faults: faults),
                                      exposure: ae, trueExposure: aeTrue, faults: faults)
        }
        var labels: PlanarImage?, ambientLabels: PlanarImage?
        if options.truthMaps {
            labels = labelMap(scene, .flash)
            if !isDarkroom { ambientLabels = labelMap(scene, .ambient) }
        }
        // The dark frame goes through the same noise path with zero signal (Poisson of 0, Gaussian
        // read noise, black level, rounding), on its own PRNG stream.
        var darkFrame: SynthFrame?
        if isDarkroom && options.darkFrame {
            darkFrame = SynthFrame(image: renderFrame(scene, .flash, flashOn: false, exposure: feTrue, seed: seed,
                                                      stream: 3, options: options),
                                   exposure: fe, trueExposure: feTrue)
        }
        let truth = truthJSON(scene, seed: seed, flash: flashFrame, ambient: ambientFrame, factors: factors,
                              flickerPhase: phase, truthMaps: options.truthMaps, dark: darkFrame, demosaic: options.demosaic)
        return SynthCapture(flash: flashFrame, ambient: ambientFrame, truth: truth, scene: scene,
                            labels: labels, ambientLabels: ambientLabels, dark: darkFrame)
    }

    /// The material label map of a frame: material m + 1 where the pixel's footprint (a 3 × 3 probe
    /// as the renderer uses, and a 4 × 4 grid inside it) sees one material only, 0 where it sees
    /// several (edges: their colour mixes materials) and, in the flash frame, within a highlight's
    /// radius (the flash's reflection is not the material's colour). 8-bit values (at most 255 materials).
    public func labelMap(_ scene: PreparedScene, _ frame: Frame) -> PlanarImage {
        let g = scene.geometry
        let w = g.width, h = g.height
        var out = PlanarImage(width: w, height: h, channelCount: 1)
        let (o, ex, ey) = scene.frameToScene(frame)
        let at = scene.objectCenter(frame)
        let radius = scene.specularRadiusPx
        func material(_ p: SIMD2<Double>) -> Int {
            if let object = scene.object, let at, object.covers(x: p.x, y: p.y, center: at) { return object.material }
            return g.material(x: p.x, y: p.y)
        }
        let fractions: [Double] = [0, 0.125, 0.375, 0.4995, 0.625, 0.875, 0.999]
        for j in 0..<h {
            for i in 0..<w {
                let corner = o + Double(i) * ex + Double(j) * ey
                let first = material(corner)
                var label = first + 1
                scan: for a in fractions {
                    for b in fractions where material(corner + a * ex + b * ey) != first { label = 0; break scan }
                }
                if label != 0, frame == .flash, !scene.speculars.isEmpty {
                    let c = corner + 0.5 * ex + 0.5 * ey
                    for p in scene.speculars where (c.x - p.x) * (c.x - p.x) + (c.y - p.y) * (c.y - p.y) < radius * radius {
                        label = 0
                    }
                }
                out[i, j, 0] = Float(min(label, 255))
            }
        }
        return out
    }

    /// Renders one frame: expected signal, then (optionally) noise, black level, white clip and rounding,
    /// then (`RenderOptions.demosaic`) the colour filter array and demosaicing of those integer values.
    ///
    /// Noise follows `NoiseModel` exactly: at ISO i, k = i / referenceISO, the expected black-subtracted
    /// signal s DN is s · gain / k photo-electrons; a Poisson count n of that mean gives n · k / gain DN
    /// (variance k s / gain), plus a Gaussian of σ = k · readNoiseDN. One PRNG stream per (seed, frame,
    /// row), so the result does not depend on how rows are spread over cores.
    ///
    /// `exposure` is the true one. `faults`: the ambient light of row j is scaled by `rowGains[j]`;
    /// with several shake offsets each pixel is the mean of the still frame at those offsets.
    ///
    /// With demosaicing, the noise of each pixel's filter channel is drawn exactly as without it (the
    /// same PRNG draws), so a pixel's recorded sample equals the frame rendered without demosaicing.
    public func renderFrame(_ scene: PreparedScene, _ frame: Frame, flashOn: Bool, exposure: ExposureSettings,
                            seed: UInt64, stream: UInt64, options: RenderOptions, faults: FrameFaults = .none) -> PlanarImage {
        let w = scene.geometry.width, h = scene.geometry.height
        var out = PlanarImage(width: w, height: h, channelCount: 3)
        let dnPerL = camera.dnPerLuminance(exposure)
        let coeff = camera.noise.coefficients(iso: exposure.isoSpeed)
        let dnPerElectron = coeff.shotDNPerDN
        let readSigma = coeff.readVarianceDN2.squareRoot()
        let black = camera.blackLevel, white = min(camera.whiteLevel, 65535)
        let (o, ex, ey) = scene.frameToScene(frame)
        let noise = options.noise, ss = max(1, options.supersampling)
        let offsets = faults.shakeOffsets.isEmpty ? [SIMD2<Double>.zero] : faults.shakeOffsets
        let gains = faults.rowGains
        let at = scene.objectCenter(frame)
        let plane = w * h
        out.samples.withUnsafeMutableBufferPointer { buffer in
            let dst = SharedMutableBuffer(buffer)
            forEachRowBand(rowCount: h, minimumRowsPerBand: 8) { rows in
                for j in rows {
                    var rng = Xoshiro256StarStar(seed: seed, stream: stream << 32 | UInt64(j))
                    for i in 0..<w {
                        var l = SIMD3<Double>.zero
                        for d in offsets {
                            l += scene.pixelLuminance(i: i, j: j, origin: o + d.x * ex + d.y * ey, ex: ex, ey: ey,
                                                      flashOn: flashOn, supersampling: ss, ambientGain: gains?[j] ?? 1,
                                                      objectAt: at)
                        }
                        let s = l * (dnPerL / Double(offsets.count))
                        for c in 0..<3 {
                            var dn = s[c]
                            if noise {
                                dn = rng.poisson(dn / dnPerElectron) * dnPerElectron + readSigma * rng.normal()
                            }
                            let v = min(white, max(0, (black + dn).rounded()))
                            dst[c * plane + j * w + i] = Float(v)
                        }
                    }
                }
            }
        }
        // The sensor records one channel per pixel (each already has its own shot and read noise,
        // clip and rounding above); the raw developer interpolates the other two.
        if let demosaic = options.demosaic { demosaic.apply(to: &out) }
        return out
    }
}
