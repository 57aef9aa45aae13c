import Foundation
import ConstantColor
import ConstantColorIO

extension SceneRenderer {
    /// Reference CIE L*a*b* (D65, CIE 1931 2°, white = perfect reflector under D65) of a reflectance.
    public func labD65(of reflectance: SpectralDistribution) -> SIMD3<Double> {
        ColorScience.lab(fromXYZ: library.xyzD65(of: reflectance), white: library.whiteXYZD65)
    }

    /// The truth file (schema version 1) of a rendered condition; see `Scripts/render-fixtures` and
    /// fixtures/colorchecker/README.md for the contract.
    func truthJSON(_ scene: PreparedScene, seed: UInt64, flashExposure: ExposureSettings,
                   ambientExposure: ExposureSettings?) -> JSONValue {
        let g = scene.geometry
        let c = scene.condition
        func num(_ v: Double) -> JSONValue { .number(v) }
        func point(_ x: Double, _ y: Double) -> JSONValue { .array([num(x), num(y)]) }
        func vec(_ v: SIMD3<Double>) -> JSONValue { .array([num(v.x), num(v.y), num(v.z)]) }
        func exposure(_ e: ExposureSettings) -> JSONValue {
            .object(["exposureTimeSeconds": num(e.exposureTimeSeconds), "fNumber": num(e.fNumber), "isoSpeed": num(e.isoSpeed)])
        }

        // The ambient light at the frame centre: its illuminance, CCT and Duv.
        let cx = Double(g.width) / 2, cy = Double(g.height) / 2
        var centre = SpectralDistribution.constant(0, name: "ambient at centre")
        var sources: [JSONValue] = []
        for (k, light) in c.lights.enumerated() {
            let w = light.placement.weight(x: cx, y: cy, width: Double(g.width), height: Double(g.height))
            centre = centre + scene.ambientSPDs[k].scaled(by: w)
            sources.append(.object(["spectrum": .string(light.spectrum.description), "lux": num(light.lux),
                                    "placement": .string(light.placement.description)]))
        }
        let lux = Photometry.illuminanceLux(of: centre, cmfs: library.cmfs)
        var condition: [String: JSONValue] = [
            "name": .string(c.name), "description": .string(c.description), "ambientLux": num(lux),
            "sources": .array(sources), "gradient": num(c.gradient),
        ]
        if lux > 0 {
            let t = library.locus.cctAndDuv(of: centre)
            condition["ambientCCT"] = num(t.cctKelvin)
            condition["duv"] = num(t.duv)
        } else {
            condition["ambientCCT"] = .null
            condition["duv"] = .null
        }

        var truth: [String: JSONValue] = [
            "schemaVersion": num(1),
            "seed": num(Double(seed)),
            "generator": .string("constant-color synth"),
            "size": .array([num(Double(g.width)), num(Double(g.height))]),
            "condition": .object(condition),
            "camera": .object([
                "name": .string(camera.name), "blackLevel": num(camera.blackLevel), "whiteLevel": num(camera.whiteLevel),
                "noise": .object(["readNoiseDN": num(camera.noise.readNoiseDN),
                                  "gainElectronsPerDN": num(camera.noise.gainElectronsPerDN),
                                  "referenceISO": num(camera.noise.referenceISO)]),
            ]),
            "flash": .object(["name": .string(flash.name), "luxAtCenter": num(flashLuxAtCenter)]),
        ]
        var exposures: [String: JSONValue] = ["flash": exposure(flashExposure)]
        if let a = ambientExposure {
            exposures["ambient"] = exposure(a)
            exposures["ratioFlashToAmbient"] = num(flashExposure.radiometricScale / a.radiometricScale)
            truth["ambientFromFlash"] = .object([
                "model": .string("rigid"),
                "matrix": .array(scene.motion.ambientFromFlash(width: g.width, height: g.height).map { .array($0.map(num)) }),
                "translationPx": point(scene.motion.translationXPx, scene.motion.translationYPx),
                "rotationDegrees": num(scene.motion.rotationDegrees),
            ])
        }
        truth["exposure"] = .object(exposures)

        let mats = materials(for: g)
        switch g.content {
        case .colorChecker:
            let patches: [JSONValue] = (0..<24).map { i in
                let p = g.patchCenter(i)
                return .object(["name": .string(mats[i + 1].name), "center": point(p.x, p.y),
                                "halfSize": num(g.samplingHalfSizePx), "lab": vec(labD65(of: mats[i + 1]))])
            }
            truth["chart"] = .object(["illuminant": .string("D65"), "patches": .array(patches)])
            truth["background"] = .object(["name": .string(mats[0].name), "lab": vec(labD65(of: mats[0])),
                                           "samplePoints": .array(backgroundSamplePoints(scene).map { point($0.x, $0.y) })])
        case .pointTarget(let x, let y, let r):
            truth["pointTarget"] = .object(["center": point(x, y), "radius": num(r)])
        }
        truth["shadow"] = .object(["polygon": .array(scene.shadowPolygon.map { point($0.x, $0.y) }),
                                   "penumbraWidthPx": num(scene.penumbraPx),
                                   "ambientFractionInCore": num(SynthCondition.shadowDepth)])
        truth["speculars"] = .array(scene.speculars.map {
            .object(["center": point($0.x, $0.y), "radius": num(scene.specularRadiusPx)])
        })
        return .object(truth)
    }

    /// Points on the background, outside the chart, the shadow's penumbra and the highlights, and
    /// at least 5 % of the width inside the frame (so the moved ambient frame still sees them).
    func backgroundSamplePoints(_ scene: PreparedScene) -> [(x: Double, y: Double)] {
        let g = scene.geometry
        let b = g.chartBounds
        let w = Double(g.width), h = Double(g.height)
        let margin = 0.05 * w
        var pts: [(x: Double, y: Double)] = []
        let yTop = (margin + b.y0) / 2
        for k in 0..<8 {
            let x = margin + (w - 2 * margin) * (Double(k) + 0.5) / 8
            pts.append((x, max(margin, yTop)))
        }
        for k in 0..<4 {
            let y = margin + (h - 2 * margin) * (Double(k) + 0.5) / 4
            pts.append(((b.x1 + w - margin) / 2, y))
        }
        return pts.filter { p in
            scene.shadowFactor(x: p.x, y: p.y) == 1 && g.material(x: p.x, y: p.y) == 0
                && (p.y < b.y0 || p.x > b.x1)
        }
    }
}
