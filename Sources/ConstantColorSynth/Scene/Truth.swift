import Foundation
import ConstantColor
import ConstantColorIO

extension SceneRenderer {
    /// Reference CIE L*a*b* (D65, CIE 1931 2°, white = perfect reflector under D65) of a reflectance.
    public func labD65(of reflectance: SpectralDistribution) -> SIMD3<Double> {
        ColorScience.lab(fromXYZ: library.xyzD65(of: reflectance), white: library.whiteXYZD65)
    }

    /// The truth file (schema version 1) of a rendered condition; see `Scripts/render-fixtures` and
    /// fixtures/colorchecker/README.md for the contract. `demosaic`: the frames' colour filter array and
    /// demosaicing (`RenderOptions.demosaic`), recorded as the top-level `demosaic` (absent when nil).
    func truthJSON(_ scene: PreparedScene, seed: UInt64, flash flashFrame: SynthFrame, ambient ambientFrame: SynthFrame?,
                   factors: ExposureFactors, flickerPhase: Double, truthMaps: Bool, dark: SynthFrame? = nil,
                   demosaic: Demosaic? = nil) -> JSONValue {
        let flashExposure = flashFrame.exposure, ambientExposure = ambientFrame?.exposure
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
        let effects = c.effects
        if let a = ambientFrame, !effects.isEmpty || truthMaps {
            let nominal = a.exposure.radiometricScale / flashFrame.exposure.radiometricScale
            let trueRatio = a.trueExposure.radiometricScale / flashFrame.trueExposure.radiometricScale
            exposures["flashTrue"] = exposure(flashFrame.trueExposure)
            exposures["ambientTrue"] = exposure(a.trueExposure)
            exposures["nominalAmbientToFlashRatio"] = num(nominal)
            exposures["trueAmbientToFlashRatio"] = num(trueRatio)
            exposures["effectiveAmbientToFlashRatio"] = num(trueRatio * Self.meanGain(a.faults) / Self.meanGain(flashFrame.faults))
        }
        if let d = dark { exposures["dark"] = exposure(d.exposure) }
        if let d = demosaic { truth["demosaic"] = .string(d.rawValue) }
        truth["exposure"] = .object(exposures)
        if !effects.isEmpty {
            truth["effects"] = effectsJSON(scene, flash: flashFrame, ambient: ambientFrame, factors: factors, flickerPhase: flickerPhase)
        }
        if truthMaps {
            truth["materials"] = .array(scene.materials.enumerated().map { m, r in
                .object(["label": num(Double(m + 1)), "name": .string(r.name), "labD65": vec(labD65(of: r))])
            })
            var labels: [String: JSONValue] = [
                "flash": .string(SynthCapture.FileName.labels), "mixedLabel": num(0),
                "description": .string("8-bit material label per pixel: label = material index + 1 (materials[].label); 0 = mixed or unknown (edges, highlights). Reference colour: CIE L*a*b* (D65 white) of the material's reflectance under D65, CIE 1931 2 deg."),
            ]
            if ambientFrame != nil { labels["ambient"] = .string(SynthCapture.FileName.ambientLabels) }
            truth["labels"] = .object(labels)
        }

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
        case .greyCard:
            truth["greyCard"] = .object(["name": .string(mats[0].name), "lab": vec(labD65(of: mats[0])),
                                         "description": .string("a uniform, spectrally flat grey card filling the frame (flat field)")])
        }
        truth["shadow"] = .object(["polygon": .array(scene.shadowPolygon.map { point($0.x, $0.y) }),
                                   "penumbraWidthPx": num(scene.penumbraPx),
                                   "ambientFractionInCore": num(SynthCondition.shadowDepth)])
        truth["speculars"] = .array(scene.speculars.map {
            .object(["center": point($0.x, $0.y), "radius": num(scene.specularRadiusPx)])
        })
        return .object(truth)
    }

    /// Mean of a frame's per-row ambient gains (1 without flicker).
    static func meanGain(_ f: FrameFaults) -> Double {
        guard let g = f.rowGains, !g.isEmpty else { return 1 }
        return g.reduce(0, +) / Double(g.count)
    }

    /// The `effects` member of truth.json: every effect that is on, with what it did.
    func effectsJSON(_ scene: PreparedScene, flash: SynthFrame, ambient: SynthFrame?, factors: ExposureFactors,
                     flickerPhase: Double) -> JSONValue {
        let e = scene.condition.effects
        func num(_ v: Double) -> JSONValue { .number(v) }
        func pair(_ v: SIMD2<Double>) -> JSONValue { .array([num(v.x), num(v.y)]) }
        func vec(_ v: SIMD3<Double>) -> JSONValue { .array([num(v.x), num(v.y), num(v.z)]) }
        var o: [String: JSONValue] = [:]
        if let x = e.exposureError {
            var m: [String: JSONValue] = [
                "flashTimeFactor": num(factors.flashTime), "flashGainFactor": num(factors.flashGain),
                "ambientTimeFactor": num(factors.ambientTime), "ambientGainFactor": num(factors.ambientGain),
                "description": .string("true / EXIF shutter time and gain of each frame; frames are exposed with the true values, EXIF holds exposure.flash / exposure.ambient"),
            ]
            if case .random(let r) = x { m["maxRelative"] = num(r) }
            o["exposureMetadata"] = .object(m)
        }
        if let f = e.flicker {
            var m: [String: JSONValue] = [
                "frequencyHz": num(f.frequencyHz), "depth": num(f.depth), "pwmHz": f.pwmHz.map(num) ?? .null,
                "pwmDuty": num(f.pwmDuty), "frameReadoutSeconds": num(f.frameReadoutSeconds),
                "rowReadoutSeconds": num(f.frameReadoutSeconds / Double(scene.geometry.height)),
                "interFrameSeconds": num(f.interFrameSeconds), "phaseCycles": num(flickerPhase),
                "description": .string("ambient light of row j of a frame is multiplied by rowGain[frame][j] (rolling shutter, Flicker in ConstantColorSynth); the flash does not flicker"),
            ]
            var gains: [String: JSONValue] = [:], means: [String: JSONValue] = [:]
            if let g = flash.faults.rowGains { gains["flash"] = .array(g.map(num)); means["flash"] = num(Self.meanGain(flash.faults)) }
            if let a = ambient, let g = a.faults.rowGains { gains["ambient"] = .array(g.map(num)); means["ambient"] = num(Self.meanGain(a.faults)) }
            m["rowGain"] = .object(gains)
            m["meanRowGain"] = .object(means)
            o["flicker"] = .object(m)
        }
        if let h = e.handShake, let a = ambient {
            o["handShake"] = .object([
                "lengthPxAt600": num(h.lengthPx), "angleDegrees": num(h.angleDegrees), "bowPxAt600": num(h.bowPx),
                "samples": num(Double(h.samples)), "offsetsPx": .array(a.faults.shakeOffsets.map(pair)),
                "description": .string("ambient pixel p is the mean over the offsets d of the still ambient frame at p + d"),
            ])
        }
        if let placed = scene.object, let m = e.movingObject {
            o["movingObject"] = .object([
                "shape": .string(m.shape.rawValue), "reflectance": .string(m.reflectanceName),
                "flashCenter": pair(placed.flashCenter), "ambientCenter": pair(placed.ambientCenter),
                "radiusPx": num(placed.radiusPx), "label": num(Double(placed.material + 1)),
                "labD65": vec(labD65(of: scene.materials[placed.material])),
                "description": .string("centres in scene (flash-frame) coordinates; the background does not move with it"),
            ])
        }
        if let sh = e.flashColorShading {
            let cw = scene.flashWhite / scene.flashWhite.y, ew = scene.flashEdgeWhite / scene.flashEdgeWhite.y
            let cxy = ChromaticityCoordinates.xy(library.cmfs.tristimulus(of: self.flash))
            let exy = ChromaticityCoordinates.xy(library.cmfs.tristimulus(of: Self.flashEdgeSPD(self.flash, shading: sh)))
            o["flashColorShading"] = .object([
                "blueLossAtEdge": num(sh.blueLossAtEdge), "edgeRadiusPx": num(scene.shadingRadiusPx),
                "centreWhiteCameraRGB": vec(cw), "edgeWhiteCameraRGB": vec(ew),
                "centreXY": .array([num(cxy.x), num(cxy.y)]), "edgeXY": .array([num(exy.x), num(exy.y)]),
                "description": .string("flash SPD = (1 - w) centre + w edge, w = min(1, (r / edgeRadiusPx)^2), r from the frame centre; edge = centre x (1 - a / (1 + exp((nm - 490) / 10))) at equal lux; white RGB normalized to G = 1"),
            ])
        }
        return .object(o)
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
