import Foundation
import ConstantColor

/// Renders flash / ambient frame pairs of a `SceneGeometry` under a `SynthCondition`.
///
/// Per material and light source, the camera "luminance" is integrated once over
/// reflectance × SPD × sensitivity (`SynthCamera`); a pixel is then a coverage-weighted sum of
/// its materials' values times the smooth light fields at the pixel centre (flash fall-off,
/// ambient gradient, placement and shadow) plus flash highlights. Edges are anti-aliased by
/// supersampling the material map at the frame's transformed coordinates (8 × 8 box filter
/// wherever a 3 × 3 probe of the pixel sees more than one material; features must be at least
/// one pixel wide). Exposure, Poisson–Gaussian noise (`NoiseModel`), black and white level and
/// 16-bit quantization follow (`expose`).
public struct SceneRenderer: Sendable {
    /// The spectral data.
    public let library: SpectralLibrary
    /// The camera.
    public let camera: SynthCamera
    /// The flash SPD (relative scale) and its name.
    public let flash: SpectralDistribution
    /// Flash illuminance on the plane at the frame centre, lux.
    public let flashLuxAtCenter: Double
    /// Distance from the camera to the plane, metres, and the flash's offset from the lens, metres.
    public let planeDistanceMetres: Double, flashOffsetMetres: SIMD2<Double>
    /// Highlight peak, in multiples of a perfect white's flash signal, and Gaussian σ in pixels at 600 px width.
    public let specularPeak: Double, specularSigmaPx: Double

    /// Creates a renderer. A phone's LED flash gives about 400 lux at 0.5 m.
    public init(library: SpectralLibrary, camera: SynthCamera, flash: SpectralDistribution,
                flashLuxAtCenter: Double = 400, planeDistanceMetres: Double = 0.5,
                flashOffsetMetres: SIMD2<Double> = SIMD2(0.012, 0), specularPeak: Double = 40, specularSigmaPx: Double = 1.5) {
        self.library = library; self.camera = camera; self.flash = flash; self.flashLuxAtCenter = flashLuxAtCenter
        self.planeDistanceMetres = planeDistanceMetres; self.flashOffsetMetres = flashOffsetMetres
        self.specularPeak = specularPeak; self.specularSigmaPx = specularSigmaPx
    }

    /// Reflectances of the materials of a geometry: flat 20 % grey background and the 24 BabelColor
    /// patches, (point target) a flat 3 % background and a perfect white dot, or (grey card) a flat 18 % grey.
    public func materials(for geometry: SceneGeometry) -> [SpectralDistribution] {
        switch geometry.content {
        case .colorChecker:
            return [Self.backgroundReflectance] + library.colorChecker.members
        case .pointTarget:
            return [.constant(0.03, name: "black"), .constant(1.0, name: "perfect white")]
        case .greyCard:
            return [Self.greyCardReflectance]
        }
    }

    /// The flat-field card: spectrally flat 18 % grey (a photographic grey card).
    public static let greyCardReflectance = SpectralDistribution.constant(0.18, name: "grey card 18 %")

    /// The chart's background: spectrally flat 20 % grey.
    public static let backgroundReflectance = SpectralDistribution.constant(0.2, name: "neutral grey 20 %")

    /// Everything about one condition that does not depend on the pixel.
    public struct PreparedScene: Sendable {
        /// The geometry.
        public let geometry: SceneGeometry
        /// The condition.
        public let condition: SynthCondition
        /// Channel luminance of each material under the flash (at the centre's illuminance).
        public let flashLuminance: [SIMD3<Double>]
        /// Channel luminance of each material under each ambient light, `[light * M + material]`.
        public let ambientLuminance: [SIMD3<Double>]
        /// Flash channel luminance of a perfect white (for highlights).
        public let flashWhite: SIMD3<Double>
        /// The ambient SPDs scaled to their lux, for reporting.
        public let ambientSPDs: [SpectralDistribution]
        /// Highlight centres and σ, pixels.
        public let speculars: [(x: Double, y: Double)]
        let specularSigma: Double
        let specularPeak: Double
        /// Shadow polygon, pixels (clockwise on screen), penumbra width and depth.
        public let shadowPolygon: [(x: Double, y: Double)]
        let penumbraPx: Double
        let shadowBounds: (x0: Double, y0: Double, x1: Double, y1: Double)
        let focalLengthPx: Double
        let planeDistance: Double, flashOffset: SIMD2<Double>
        /// The motion at this frame size.
        public let motion: RigidMotion
        /// Number of materials: the geometry's, plus the moving object's when there is one (the last).
        public let materialCount: Int
        /// Reflectances of the materials, in material order.
        public let materials: [SpectralDistribution]
        /// Channel luminance of each material under the flash's edge SPD (colour shading), or empty.
        public let flashEdgeLuminance: [SIMD3<Double>]
        /// Flash channel luminance of a perfect white under the edge SPD (zero without shading).
        public let flashEdgeWhite: SIMD3<Double>
        /// Radius R of the colour shading, pixels (0: no shading).
        public let shadingRadiusPx: Double
        /// The moving object at this frame size, if any.
        public let object: PlacedObject?
    }

    /// A `MovingObject` placed in pixels.
    public struct PlacedObject: Sendable {
        /// Centres at the flash and the ambient frame (scene coordinates), pixels.
        public let flashCenter: SIMD2<Double>, ambientCenter: SIMD2<Double>
        /// Radius (half side), pixels.
        public let radiusPx: Double
        /// Outline.
        public let shape: MovingObject.Shape
        /// Its material index.
        public let material: Int

        /// Whether a scene point is covered by the object centred at `center`.
        @inline(__always) func covers(x: Double, y: Double, center: SIMD2<Double>) -> Bool {
            let dx = x - center.x, dy = y - center.y
            switch shape {
            case .disc: return dx * dx + dy * dy < radiusPx * radiusPx
            case .square: return abs(dx) < radiusPx && abs(dy) < radiusPx
            }
        }
    }

    /// Integrates every material under every light for a condition at a frame size.
    public func prepare(_ condition: SynthCondition, geometry: SceneGeometry) throws -> PreparedScene {
        precondition(condition.lights.count <= 4, "at most 4 ambient lights")
        let cmfs = library.cmfs
        let k = camera.sensitivityNormalization(d65: library.d65, cmfs: cmfs)
        var mats = materials(for: geometry)
        let effects = condition.effects
        if let o = effects.movingObject {
            guard let r = library.colorChecker[o.reflectanceName] else {
                throw SynthEffectError.unknownReflectance(o.reflectanceName)
            }
            mats.append(SpectralDistribution(workingGridValues: r.values, name: "moving object (\(o.reflectanceName))"))
        }
        let flashSPD = try Photometry.scaled(flash, toIlluminanceLux: flashLuxAtCenter, cmfs: cmfs)
        let flashL = mats.map { camera.channelLuminance(reflectance: $0, irradiance: flashSPD, normalization: k) }
        var ambient: [SIMD3<Double>] = []
        var spds: [SpectralDistribution] = []
        for light in condition.lights {
            let spd = try Photometry.scaled(try light.spectrum.distribution(in: library), toIlluminanceLux: light.lux, cmfs: cmfs)
            spds.append(spd)
            ambient += mats.map { camera.channelLuminance(reflectance: $0, irradiance: spd, normalization: k) }
        }
        let white = camera.channelLuminance(reflectance: .constant(1, name: "white"), irradiance: flashSPD, normalization: k)
        let w = Double(geometry.width), h = Double(geometry.height)
        let scale = w / 600
        var spec: [(x: Double, y: Double)] = []
        if condition.speculars, case .colorChecker = geometry.content {
            spec = [geometry.gapCrossing(column: 0, row: 0), geometry.gapCrossing(column: 2, row: 1),
                    geometry.gapCrossing(column: 4, row: 0), geometry.gapCrossing(column: 3, row: 2)]
        }
        let poly = condition.shadow ? SynthCondition.shadowPolygonFractions.map { (x: $0.0 * w, y: $0.1 * h) } : []
        let pen = 0.03 * w
        let xs = poly.map(\.x), ys = poly.map(\.y)
        let bounds = poly.isEmpty ? (0.0, 0.0, 0.0, 0.0)
            : (xs.min()! - pen, ys.min()! - pen, xs.max()! + pen, ys.max()! + pen)
        let f = (w / 2) / tan(camera.horizontalFieldOfViewDegrees * Double.pi / 360)
        var edgeL: [SIMD3<Double>] = [], edgeWhite = SIMD3<Double>.zero, shadingR = 0.0
        if let sh = effects.flashColorShading {
            let edge = try Photometry.scaled(Self.flashEdgeSPD(flash, shading: sh), toIlluminanceLux: flashLuxAtCenter, cmfs: cmfs)
            edgeL = mats.map { camera.channelLuminance(reflectance: $0, irradiance: edge, normalization: k) }
            edgeWhite = camera.channelLuminance(reflectance: .constant(1, name: "white"), irradiance: edge, normalization: k)
            shadingR = sh.edgeRadiusFraction * 0.5 * (w * w + h * h).squareRoot()
        }
        let placed = effects.movingObject.map { o in
            PlacedObject(flashCenter: SIMD2(o.flashCenter.x * w, o.flashCenter.y * h),
                         ambientCenter: SIMD2(o.ambientCenter.x * w, o.ambientCenter.y * h),
                         radiusPx: o.radiusFraction * w, shape: o.shape, material: mats.count - 1)
        }
        return PreparedScene(geometry: geometry, condition: condition, flashLuminance: flashL, ambientLuminance: ambient,
                             flashWhite: white, ambientSPDs: spds, speculars: spec,
                             specularSigma: specularSigmaPx * scale, specularPeak: specularPeak,
                             shadowPolygon: poly, penumbraPx: pen, shadowBounds: bounds, focalLengthPx: f,
                             planeDistance: planeDistanceMetres, flashOffset: flashOffsetMetres,
                             motion: condition.motion(forWidth: geometry.width), materialCount: mats.count,
                             materials: mats, flashEdgeLuminance: edgeL, flashEdgeWhite: edgeWhite,
                             shadingRadiusPx: shadingR, object: placed)
    }

    /// The flash's SPD at the frame's edge (`FlashColorShading`): S(λ) · (1 − a / (1 + exp((λ − 490) / 10))),
    /// relative scale (rescaled to the flash's illuminance by the caller).
    public static func flashEdgeSPD(_ flash: SpectralDistribution, shading: FlashColorShading) -> SpectralDistribution {
        let a = shading.blueLossAtEdge
        let loss = SpectralDistribution(name: "blue loss") { lambda in 1 - a / (1 + exp((lambda - 490) / 10)) }
        var e = flash * loss
        e.name = flash.name + " (edge)"
        return e
    }

    /// Which frame to render.
    public enum Frame: Sendable { case flash, ambient }
}

extension SceneRenderer.PreparedScene {
    /// Flash irradiance relative to the frame centre at a plane point: E ∝ cos θ / r² from a point
    /// source beside the lens (inverse-square law with Lambert's cosine, CIE 015:2004 / any optics text).
    func flashFalloff(x: Double, y: Double) -> Double {
        let d = planeDistance, k = planeDistance / focalLengthPx
        let px = (x - 0.5 * Double(geometry.width)) * k - flashOffset.x
        let py = (y - 0.5 * Double(geometry.height)) * k - flashOffset.y
        let r2 = px * px + py * py + d * d
        let r02 = flashOffset.x * flashOffset.x + flashOffset.y * flashOffset.y + d * d
        let q = r02 / r2
        return q * q.squareRoot()           // (r0 / r)³ = (cos θ / r²) / (cos θ0 / r0²)
    }

    /// The factor of ambient light left at a point by the shadow: depth in the core, 1 outside, a
    /// smooth step across the penumbra centred on the polygon's edge.
    func shadowFactor(x: Double, y: Double) -> Double {
        guard !shadowPolygon.isEmpty, x >= shadowBounds.x0, x <= shadowBounds.x1,
              y >= shadowBounds.y0, y <= shadowBounds.y1 else { return 1 }
        var inside = true
        var dmin = Double.infinity
        let n = shadowPolygon.count
        for i in 0..<n {
            let a = shadowPolygon[i], b = shadowPolygon[(i + 1) % n]
            let ex = b.x - a.x, ey = b.y - a.y
            let wx = x - a.x, wy = y - a.y
            if ex * wy - ey * wx < 0 { inside = false }          // clockwise on screen (y down)
            let t = max(0, min(1, (wx * ex + wy * ey) / (ex * ex + ey * ey)))
            let dx = wx - t * ex, dy = wy - t * ey
            dmin = min(dmin, dx * dx + dy * dy)
        }
        let sd = (inside ? -1.0 : 1.0) * dmin.squareRoot()      // negative inside
        let u = max(0, min(1, 0.5 + sd / penumbraPx))
        let s = u * u * (3 - 2 * u)
        let depth = SynthCondition.shadowDepth
        return depth + (1 - depth) * s
    }

    /// Sum of the highlights' Gaussian profiles (multiples of the white's flash luminance).
    func specular(x: Double, y: Double) -> Double {
        var s = 0.0
        let reach = 6 * specularSigma
        for p in speculars {
            let dx = x - p.x, dy = y - p.y
            if abs(dx) > reach || abs(dy) > reach { continue }
            s += specularPeak * exp(-(dx * dx + dy * dy) / (2 * specularSigma * specularSigma))
        }
        return s
    }

    /// Radius around a highlight beyond which it adds less than 1 % of a white's flash signal.
    public var specularRadiusPx: Double { specularSigma * (2 * log(100 * specularPeak)).squareRoot() }

    /// The noiseless channel luminance of pixel (i, j) of a frame whose pixel corner (i, j) sits at
    /// scene point `origin + i·ex + j·ey`: ambient light always, the flash when `flashOn`.
    ///
    /// `ambientGain` multiplies every ambient light (flicker's row gain); `objectAt` places the moving
    /// object (scene coordinates) when the scene has one.
    func pixelLuminance(i: Int, j: Int, origin: SIMD2<Double>, ex: SIMD2<Double>, ey: SIMD2<Double>,
                        flashOn: Bool, supersampling: Int, ambientGain: Double = 1,
                        objectAt: SIMD2<Double>? = nil) -> SIMD3<Double> {
        let corner = origin + Double(i) * ex + Double(j) * ey
        let c = corner + 0.5 * ex + 0.5 * ey
        let w = Double(geometry.width), h = Double(geometry.height)
        let fl = flashOn ? flashFalloff(x: c.x, y: c.y) : 0
        var weights = SIMD4<Double>(repeating: 0)
        let lightCount = condition.lights.count
        if lightCount > 0 {
            let g = ambientGain * (1 + condition.gradient * (c.x / w - 0.5)) * shadowFactor(x: c.x, y: c.y)
            for k in 0..<lightCount {
                weights[k] = g * condition.lights[k].placement.weight(x: c.x, y: c.y, width: w, height: h)
            }
        }
        let m = materialCount
        // Flash colour shading: blend weight of the edge SPD at the pixel centre.
        var edgeWeight = 0.0
        if flashOn && shadingRadiusPx > 0 {
            let dx = c.x - 0.5 * w, dy = c.y - 0.5 * h
            edgeWeight = min(1, (dx * dx + dy * dy) / (shadingRadiusPx * shadingRadiusPx))
        }
        @inline(__always) func value(_ mat: Int) -> SIMD3<Double> {
            var v = edgeWeight > 0 ? fl * ((1 - edgeWeight) * flashLuminance[mat] + edgeWeight * flashEdgeLuminance[mat])
                                   : fl * flashLuminance[mat]
            for k in 0..<lightCount { v += weights[k] * ambientLuminance[k * m + mat] }
            return v
        }
        let obj = objectAt.flatMap { at in object.map { ($0, at) } }
        @inline(__always) func materialAt(_ p: SIMD2<Double>) -> Int {
            if let (o, at) = obj, o.covers(x: p.x, y: p.y, center: at) { return o.material }
            return geometry.material(x: p.x, y: p.y)
        }
        // Probe 3 × 3 points; a pixel inside one material needs a single value.
        let first = materialAt(corner)
        var uniform = true
        probe: for a in 0...2 {
            for b in 0...2 {
                let p = corner + (Double(a) * 0.4995) * ex + (Double(b) * 0.4995) * ey
                if materialAt(p) != first { uniform = false; break probe }
            }
        }
        var result: SIMD3<Double>
        if uniform {
            result = value(first)
        } else {
            result = .zero
            let s = Double(supersampling)
            for a in 0..<supersampling {
                for b in 0..<supersampling {
                    let p = corner + ((Double(a) + 0.5) / s) * ex + ((Double(b) + 0.5) / s) * ey
                    result += value(materialAt(p))
                }
            }
            result /= s * s
        }
        if flashOn && !speculars.isEmpty {
            let sp = specular(x: c.x, y: c.y)
            if sp > 0 { result += sp * fl * ((1 - edgeWeight) * flashWhite + edgeWeight * flashEdgeWhite) }
        }
        return result
    }

    /// Where the moving object is at a frame (scene coordinates), nil without one.
    public func objectCenter(_ frame: SceneRenderer.Frame) -> SIMD2<Double>? {
        guard let object else { return nil }
        switch frame {
        case .flash: return object.flashCenter
        case .ambient: return object.ambientCenter
        }
    }

    /// Maps a frame's pixel grid to the scene: origin, and the scene step of one pixel in x and y.
    func frameToScene(_ frame: SceneRenderer.Frame) -> (origin: SIMD2<Double>, ex: SIMD2<Double>, ey: SIMD2<Double>) {
        switch frame {
        case .flash: return (SIMD2(0, 0), SIMD2(1, 0), SIMD2(0, 1))
        case .ambient:
            let m = motion.flashFromAmbient(width: geometry.width, height: geometry.height)
            return (SIMD2(m[0][2], m[1][2]), SIMD2(m[0][0], m[1][0]), SIMD2(m[0][1], m[1][1]))
        }
    }

    /// Mean green channel luminance over a 64 × 48 grid of pixel centres (averaging metering).
    public func meanMeteredLuminance(_ frame: SceneRenderer.Frame, flashOn: Bool) -> Double {
        let (o, ex, ey) = frameToScene(frame)
        let at = objectCenter(frame)
        var sum = 0.0
        let nx = 64, ny = 48
        for b in 0..<ny {
            for a in 0..<nx {
                let i = (2 * a + 1) * geometry.width / (2 * nx), j = (2 * b + 1) * geometry.height / (2 * ny)
                sum += pixelLuminance(i: i, j: j, origin: o, ex: ex, ey: ey, flashOn: flashOn, supersampling: 1, objectAt: at).y
            }
        }
        return sum / Double(nx * ny)
    }
}
