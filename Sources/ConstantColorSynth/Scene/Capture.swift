import Foundation
import ConstantColor
import ConstantColorIO

/// How to render.
public struct RenderOptions: Sendable {
    /// Add Poisson shot noise and Gaussian read noise (`NoiseModel`); off gives the expected DN, rounded.
    public var noise: Bool
    /// Sub-samples per axis on edge pixels.
    public var supersampling: Int
    /// Fixed exposures instead of auto-exposure.
    public var flashExposure: ExposureSettings?, ambientExposure: ExposureSettings?

    /// Creates options (defaults: noise on, 8 × 8 edge supersampling, auto-exposure).
    public init(noise: Bool = true, supersampling: Int = 8, flashExposure: ExposureSettings? = nil,
                ambientExposure: ExposureSettings? = nil) {
        self.noise = noise; self.supersampling = supersampling
        self.flashExposure = flashExposure; self.ambientExposure = ambientExposure
    }
}

/// One rendered frame: 16-bit data numbers (integers stored as `Float`) and its exposure.
public struct SynthFrame: Sendable {
    /// RGB, data numbers 0…65535 (black level included, clipped at the white level).
    public var image: PlanarImage
    /// The exposure it was taken with.
    public var exposure: ExposureSettings
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
}

extension SceneRenderer {
    /// Renders a condition: auto-exposes and renders the flash frame (flash + ambient) and, unless the
    /// condition has no ambient light, the ambient frame (camera moved by the condition's motion).
    public func render(_ condition: SynthCondition, width: Int, height: Int, seed: UInt64,
                       content: SceneGeometry.Content = .colorChecker, options: RenderOptions = RenderOptions()) throws -> SynthCapture {
        let geometry = SceneGeometry(width: width, height: height, content: content)
        let scene = try prepare(condition, geometry: geometry)
        let isDarkroom = condition.lights.isEmpty
        let fe = options.flashExposure ?? camera.autoExposure(meanLuminance: scene.meanMeteredLuminance(.flash, flashOn: true))
        let flashFrame = SynthFrame(image: renderFrame(scene, .flash, flashOn: true, exposure: fe, seed: seed,
                                                       stream: isDarkroom ? 2 : 0, options: options), exposure: fe)
        var ambientFrame: SynthFrame?
        if !isDarkroom {
            let ae = options.ambientExposure ?? camera.autoExposure(meanLuminance: scene.meanMeteredLuminance(.ambient, flashOn: false))
            ambientFrame = SynthFrame(image: renderFrame(scene, .ambient, flashOn: false, exposure: ae, seed: seed,
                                                         stream: 1, options: options), exposure: ae)
        }
        let truth = truthJSON(scene, seed: seed, flashExposure: fe, ambientExposure: ambientFrame?.exposure)
        return SynthCapture(flash: flashFrame, ambient: ambientFrame, truth: truth, scene: scene)
    }

    /// Renders one frame: expected signal, then (optionally) noise, black level, white clip and rounding.
    ///
    /// Noise follows `NoiseModel` exactly: at ISO i, k = i / referenceISO, the expected black-subtracted
    /// signal s DN is s · gain / k photo-electrons; a Poisson count n of that mean gives n · k / gain DN
    /// (variance k s / gain), plus a Gaussian of σ = k · readNoiseDN. One PRNG stream per (seed, frame,
    /// row), so the result does not depend on how rows are spread over cores.
    public func renderFrame(_ scene: PreparedScene, _ frame: Frame, flashOn: Bool, exposure: ExposureSettings,
                            seed: UInt64, stream: UInt64, options: RenderOptions) -> PlanarImage {
        let w = scene.geometry.width, h = scene.geometry.height
        var out = PlanarImage(width: w, height: h, channelCount: 3)
        let dnPerL = camera.dnPerLuminance(exposure)
        let coeff = camera.noise.coefficients(iso: exposure.isoSpeed)
        let dnPerElectron = coeff.shotDNPerDN
        let readSigma = coeff.readVarianceDN2.squareRoot()
        let black = camera.blackLevel, white = min(camera.whiteLevel, 65535)
        let (o, ex, ey) = scene.frameToScene(frame)
        let noise = options.noise, ss = max(1, options.supersampling)
        let plane = w * h
        out.samples.withUnsafeMutableBufferPointer { buffer in
            let dst = SharedMutableBuffer(buffer)
            forEachRowBand(rowCount: h, minimumRowsPerBand: 8) { rows in
                for j in rows {
                    var rng = Xoshiro256StarStar(seed: seed, stream: stream << 32 | UInt64(j))
                    for i in 0..<w {
                        let s = scene.pixelLuminance(i: i, j: j, origin: o, ex: ex, ey: ey, flashOn: flashOn,
                                                     supersampling: ss) * dnPerL
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
        return out
    }
}
