import Foundation

extension SynthCondition {
    /// A condition of the SPEC 5 envelope: one Planckian source (tinted off the locus by `duv`) at
    /// `lux`, with gradient, shadow, highlights and a camera motion derived from the name.
    public static func envelope(lux: Double, cctKelvin: Double, duv: Double) -> SynthCondition {
        let where_ = duv > 0 ? "above" : duv < 0 ? "below" : "on"
        let name = "\(Int(lux))lux-\(Int(cctKelvin))K-\(where_)"
        return SynthCondition(
            name: name,
            description: "\(Int(lux)) lux Planckian \(Int(cctKelvin)) K, \(where_) the locus (Duv \(duv >= 0 ? "+" : "")\(duv)), with gradient, shadow and highlights.",
            lights: [AmbientLight(spectrum: .planckian(cctKelvin: cctKelvin, duv: duv), lux: lux)],
            motion: motionFromName(name))
    }

    /// A hand-held camera's motion, different for every condition but fixed by its name:
    /// translation up to ±4 px and rotation up to ±0.6° at 600 px width.
    public static func motionFromName(_ name: String) -> RigidMotion {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325          // FNV-1a (Fowler, Noll, Vo)
        for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        var r = SplitMix64(seed: h)
        func u() -> Double { Double(r.next() >> 11) * 0x1.0p-53 * 2 - 1 }
        return RigidMotion(translationXPx: 4 * u(), translationYPx: 4 * u(), rotationDegrees: 0.6 * u())
    }

    /// The full envelope of SPEC 5: 10, 50, 200, 800 lux × 3000, 4000, 5000, 6500, 7500 K × Duv
    /// 0, +0.01, −0.01 (60 conditions).
    public static let envelopeSet: [SynthCondition] = {
        var out: [SynthCondition] = []
        for lux in [10.0, 50, 200, 800] {
            for cct in [3000.0, 4000, 5000, 6500, 7500] {
                for duv in [0.0, 0.01, -0.01] { out.append(envelope(lux: lux, cctKelvin: cct, duv: duv)) }
            }
        }
        return out
    }()

    /// Hard conditions: real lamps, mixed and coloured light, and a bright daylight where the flash
    /// adds too little (a fallback is expected).
    public static let hardSet: [SynthCondition] = {
        func c(_ name: String, _ d: String, _ lights: [AmbientLight], gradient: Double = 0.3) -> SynthCondition {
            SynthCondition(name: name, description: d, lights: lights, gradient: gradient, motion: motionFromName(name))
        }
        return [
            c("fluorescent-fl11-200lux", "200 lux CIE FL11 narrow-band tri-phosphor fluorescent.",
              [AmbientLight(spectrum: .file("lamp-fl11.json"), lux: 200)]),
            c("fluorescent-fl2-400lux", "400 lux CIE FL2 cool white fluorescent.",
              [AmbientLight(spectrum: .file("lamp-fl2.json"), lux: 400)]),
            c("sodium-hp1-100lux", "100 lux CIE HP1 high-pressure sodium street light.",
              [AmbientLight(spectrum: .file("lamp-hp1-sodium.json"), lux: 100)]),
            c("metal-halide-hp5-300lux", "300 lux CIE HP5 metal halide.",
              [AmbientLight(spectrum: .file("lamp-hp5-metal-halide.json"), lux: 300)]),
            c("led-warm-b1-150lux", "150 lux CIE LED-B1 warm white LED.",
              [AmbientLight(spectrum: .file("lamp-led-b1-warm.json"), lux: 150)]),
            c("mixed-warm-daylight-300lux", "Mixed: 300 lux 2700 K Planckian from the left, 300 lux D65-like daylight (6500 K) from the right.",
              [AmbientLight(spectrum: .planckian(cctKelvin: 2700, duv: 0), lux: 300, placement: .left),
               AmbientLight(spectrum: .daylight(cctKelvin: 6500, duv: nil), lux: 300, placement: .right)], gradient: 0),
            c("colored-blue-led-150lux", "150 lux 4000 K Planckian plus a saturated blue LED spot (460 nm) of 80 lux on the right half.",
              [AmbientLight(spectrum: .planckian(cctKelvin: 4000, duv: 0), lux: 150),
               AmbientLight(spectrum: .narrowBand(peakNm: 460, halfWidthNm: 12), lux: 80, placement: .spot(centerX: 0.7, centerY: 0.45, sigma: 0.2))]),
            c("colored-red-led-100lux", "100 lux 3000 K Planckian plus a saturated red LED spot (630 nm) of 100 lux on the left.",
              [AmbientLight(spectrum: .planckian(cctKelvin: 3000, duv: 0), lux: 100),
               AmbientLight(spectrum: .narrowBand(peakNm: 630, halfWidthNm: 10), lux: 100, placement: .spot(centerX: 0.3, centerY: 0.5, sigma: 0.18))]),
            c("bright-daylight-20000lux", "20000 lux CIE daylight 5500 K (outdoors): the flash adds too little, a fallback is expected.",
              [AmbientLight(spectrum: .daylight(cctKelvin: 5500, duv: nil), lux: 20000)]),
        ]
    }()

    /// The committed fixture set (`fixtures/colorchecker/`): 12 envelope conditions (every
    /// illuminance three times, every CCT at least twice, each side of the locus four times), six hard
    /// conditions (tri-phosphor fluorescent, sodium, warm LED, mixed, saturated coloured light, bright
    /// daylight) and the dark room.
    public static let committedSet: [SynthCondition] = {
        let picks: [(Double, Double, Double)] = [
            (10, 3000, 0), (10, 5000, -0.01), (10, 7500, 0.01),
            (50, 3000, -0.01), (50, 4000, 0.01), (50, 6500, 0),
            (200, 4000, 0), (200, 5000, 0.01), (200, 6500, -0.01),
            (800, 3000, 0.01), (800, 5000, 0), (800, 7500, -0.01),
        ]
        let hard = ["fluorescent-fl11-200lux", "sodium-hp1-100lux", "led-warm-b1-150lux", "mixed-warm-daylight-300lux",
                    "colored-blue-led-150lux", "bright-daylight-20000lux"]
        return picks.map { envelope(lux: $0.0, cctKelvin: $0.1, duv: $0.2) }
            + hard.map { n in hardSet.first { $0.name == n }! } + [darkroom]
    }()

    /// Real-capture hard set (issue 7): twelve envelope conditions (10–800 lux, 3000–7500 K, on,
    /// above and below the locus) and three real lamps (tri-phosphor fluorescent, warm LED, mixed
    /// warm + daylight), each with every capture fault of `CaptureEffects.allOn` drawn from its name.
    public static let realHardSet: [SynthCondition] = {
        let picks: [(Double, Double, Double)] = [
            (10, 3000, 0), (10, 6500, 0.01), (10, 4000, -0.01),
            (50, 3000, -0.01), (50, 5000, 0), (50, 7500, 0.01),
            (200, 4000, 0), (200, 6500, -0.01), (200, 3000, 0.01),
            (800, 5000, 0.01), (800, 7500, 0), (800, 4000, -0.01),
        ]
        let lamps = ["fluorescent-fl11-200lux", "led-warm-b1-150lux", "mixed-warm-daylight-300lux"]
        return (picks.map { envelope(lux: $0.0, cctKelvin: $0.1, duv: $0.2) } + lamps.map { n in hardSet.first { $0.name == n }! })
            .map { c in
                var c = c
                c.effects = .allOn(key: c.name)
                c.description += " All capture faults on (exposure metadata, flicker, shake, moving object, flash colour shading)."
                return c
            }
    }()

    /// Every named condition: envelope, hard and dark room.
    public static var allPresets: [SynthCondition] { envelopeSet + hardSet + [darkroom] }

    /// The preset called `name`.
    public static func preset(named name: String) -> SynthCondition? { allPresets.first { $0.name == name } }
}
