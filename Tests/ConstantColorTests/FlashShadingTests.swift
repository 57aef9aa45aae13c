import Foundation
import Testing
@testable import ConstantColor

/// `FlashShading`: interpolation, the in-place correction, and the profile's JSON.
@Suite("Flash shading map")
struct FlashShadingTests {
    /// A map whose nodes follow a + b·u + c·v per channel (u, v frame-relative): bilinear
    /// interpolation and the linear extrapolation at the border reproduce it exactly. Its level is 1
    /// at the frame centre, as a profile's map must be (its white there within 5 % of 1).
    static func planarMap(columns: Int = 5, rows: Int = 4) -> FlashShading {
        var white: [SIMD3<Double>] = [], level: [Double] = []
        for j in 0..<rows {
            for i in 0..<columns {
                let u = (Double(i) + 0.5) / Double(columns), v = (Double(j) + 0.5) / Double(rows)
                white.append(Self.plane(u, v)); level.append(0.75 + 0.3 * u + 0.2 * v)
            }
        }
        return FlashShading(columns: columns, rows: rows, relativeWhite: white, relativeLevel: level)
    }

    static func plane(_ u: Double, _ v: Double) -> SIMD3<Double> {
        SIMD3(1.02 + 0.04 * u - 0.02 * v, 1, 0.9 + 0.1 * u + 0.05 * v)
    }

    @Test("bilinear with linear extrapolation reproduces a planar map everywhere, corners included")
    func interpolation() {
        let map = Self.planarMap()
        for (u, v) in [(0.0, 0.0), (1.0, 1.0), (0.5, 0.5), (0.03, 0.97), (0.37, 0.11), (1.0, 0.0)] {
            let value = map.value(atRelativeX: u, y: v)
            let expected = Self.plane(u, v)
            #expect(abs(value.white.x - expected.x) < 1e-12 && abs(value.white.z - expected.z) < 1e-12, "\(u), \(v)")
            #expect(abs(value.level - (0.75 + 0.3 * u + 0.2 * v)) < 1e-12)
        }
        let n = map.normalizedToCentre().value(atRelativeX: 0.5, y: 0.5)
        #expect(abs(n.white.x - 1) < 1e-12 && abs(n.white.z - 1) < 1e-12 && abs(n.level - 1) < 1e-12)
    }

    @Test("the correction makes a shaded grey card neutral; the whole image equals the single-pixel gain")
    func correction() {
        let map = Self.planarMap()
        let w = 97, h = 61
        var card = PlanarImage(width: w, height: h, channelCount: 3)
        for y in 0..<h {
            for x in 0..<w {
                let v = map.value(atRelativeX: (Double(x) + 0.5) / Double(w), y: (Double(y) + 0.5) / Double(h))
                for c in 0..<3 { card[x, y, c] = Float(0.5 * v.white[c] * v.level) }
            }
        }
        var colourOnly = card
        FlashShadingCorrection(map).apply(to: &colourOnly)
        var flattened = card
        FlashShadingCorrection(map, flattenLevel: true).apply(to: &flattened)
        for y in 0..<h {
            for x in 0..<w {
                let v = map.value(atRelativeX: (Double(x) + 0.5) / Double(w), y: (Double(y) + 0.5) / Double(h))
                for c in 0..<3 {
                    #expect(abs(Double(colourOnly[x, y, c]) - 0.5 * v.level) < 1e-5)   // neutral, fall-off kept
                    #expect(abs(Double(flattened[x, y, c]) - 0.5) < 1e-5)              // neutral and flat
                }
            }
        }
    }

    @Test("a large image goes through the row bands the same as the per-pixel formula")
    func bands() {
        let map = Self.planarMap(columns: 16, rows: 12)
        let w = 640, h = 480
        var image = PlanarImage(width: w, height: h, channelCount: 3, repeating: 2)
        let correction = FlashShadingCorrection(map, flattenLevel: true)
        correction.apply(to: &image)
        var worst = 0.0
        for (x, y) in [(0, 0), (639, 479), (320, 17), (5, 400), (611, 240)] {
            let g = correction.gain(atRelativeX: (Double(x) + 0.5) / Double(w), y: (Double(y) + 0.5) / Double(h))
            for c in 0..<3 { worst = max(worst, abs(Double(image[x, y, c]) - 2 * g[c]) / (2 * g[c])) }
        }
        #expect(worst < 1e-6)
    }

    @Test("JSON round trip through the flash profile keeps the map and unknown keys")
    func roundTrip() throws {
        var map = Self.planarMap()
        map.extra = ["note": .string("kept")]
        var json = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 1, 0.9),
                                matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ, shading: map).json.object!
        json["vendorKey"] = .number(7)
        let back = try FlashProfile(json: .object(json), file: "p.json")
        #expect(back.shading == map)
        #expect(back.extra["vendorKey"] == .number(7))
        #expect(try FlashProfile(json: back.json, file: "p.json") == back)
        let plain = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 1, 0.9), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        #expect(plain.json.object?["shading"] == nil)
    }

    @Test("malformed maps: one error naming the file and the key", arguments: [
        ("rows", JSONValue.number(1.5), "shading.rows"),
        ("columns", JSONValue.string("16"), "shading.columns"),
        ("relativeLevel", JSONValue.array([.number(1), .number(1), .number(0), .number(1)]), "shading.relativeLevel"),
        ("relativeLevel", JSONValue.array([.number(1), .number(1), .number(1)]), "shading.relativeLevel"),
        ("relativeWhiteCameraRGB", JSONValue.array(Array(repeating: .array([.number(1), .number(1)]), count: 4)), "shading.relativeWhiteCameraRGB"),
        ("relativeWhiteCameraRGB", JSONValue.array(Array(repeating: .array([.number(1), .string("x"), .number(1)]), count: 4)), "shading.relativeWhiteCameraRGB"),
        // Maps no flash has (a probe's: each recoloured or blew out the whole output, `constantColor`
        // at the reference's confidence): a white that is not the centre's at the centre, a channel
        // 10³⁰ times the centre's, corners a million times darker.
        ("relativeWhiteCameraRGB", JSONValue.array(Array(repeating: .array([.number(2), .number(1), .number(0.5)]), count: 4)), "shading.relativeWhiteCameraRGB"),
        ("relativeWhiteCameraRGB", JSONValue.array(Array(repeating: .array([.number(1e30), .number(1), .number(1)]), count: 4)), "shading.relativeWhiteCameraRGB"),
        ("relativeLevel", JSONValue.array([.number(1e-6), .number(1), .number(1), .number(1)]), "shading.relativeLevel"),
        ("relativeLevel", JSONValue.array(Array(repeating: .number(2), count: 4)), "shading.relativeLevel"),
    ])
    func malformed(key: String, value: JSONValue, named: String) throws {
        var shading: [String: JSONValue] = [
            "columns": .number(2), "rows": .number(2),
            "relativeWhiteCameraRGB": .array(Array(repeating: .array([.number(1), .number(1), .number(1)]), count: 4)),
            "relativeLevel": .array(Array(repeating: .number(1), count: 4)),
        ]
        shading[key] = value
        var json = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 1, 0.9),
                                matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ).json.object!
        json["shading"] = .object(shading)
        Self.expectOneLineError(json, naming: named)
        // A missing member is named too.
        shading[key] = nil
        json["shading"] = .object(shading)
        #expect(throws: JSONFileError.missingKey(file: "bad.json", key: "shading.\(key)")) {
            _ = try FlashProfile(json: .object(json), file: "bad.json")
        }
    }

    @Test("the capture's focal length round-trips in the map (captureFocalLengthMm), a non-positive one is an error naming the key, and a pair more than 5 % off it is a mismatch")
    func focalLength() throws {
        var map = Self.planarMap()
        map.captureFocalLengthMillimetres = 50
        var profile = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 1, 0.9), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        profile.shading = map
        let back = try FlashProfile(json: profile.json, file: "p.json")
        #expect(back.shading?.captureFocalLengthMillimetres == 50 && back == profile)
        #expect(map.focalLengthMismatch(pairFocalLengthMillimetres: 35)! == (35, 50))
        #expect(map.focalLengthMismatch(pairFocalLengthMillimetres: 52) == nil && map.focalLengthMismatch(pairFocalLengthMillimetres: nil) == nil)
        #expect(map.focalLengthMismatch(pairFocalLengthMillimetres: 47) != nil)
        var json = profile.json.object!, shading = json["shading"]!.object!
        shading["captureFocalLengthMm"] = .number(-5)
        json["shading"] = .object(shading)
        Self.expectOneLineError(json, naming: "shading.captureFocalLengthMm")
    }

    @Test("relative to a profile's white reference: the map's median white over the reference positions is 1 and each node's ratio to another is kept (planar map: known answer); adding a map to a profile without a reference keeps it as measured")
    func relativeToWhiteReference() throws {
        let map = Self.planarMap().normalizedToCentre()
        let positions: [SIMD2<Double>] = [SIMD2(0.2, 0.8), SIMD2(0.5, 0.8), SIMD2(0.8, 0.8)]
        let relative = map.relativeToWhite(at: positions)
        // On a planar map the median over these three points on a line is the middle one's value, (0.5, 0.8).
        let atMean = map.value(atRelativeX: 0.5, y: 0.8).white
        for (a, b) in zip(relative.relativeWhite, map.relativeWhite) {
            #expect(abs(a.x - b.x / atMean.x) < 1e-12 && abs(a.z - b.z / atMean.z) < 1e-12 && a.y == b.y)
        }
        #expect(relative.relativeLevel == map.relativeLevel)
        var profile = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 1, 0.9), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        #expect(profile.adding(shading: map).shading == map)
        profile.whiteReference = FlashWhiteReference(pixelPositions: positions.map { SIMD2($0.x * 400, $0.y * 300) }, width: 400, height: 300)
        #expect(profile.adding(shading: map).shading == relative)
        #expect(profile.whiteReference!.hasAspect(width: 800, height: 600) && !profile.whiteReference!.hasAspect(width: 300, height: 400))
    }

    @Test("the white reference round-trips through the profile's JSON; malformed ones are one error naming the file and the key")
    func whiteReferenceJSON() throws {
        var profile = FlashProfile(name: "f", cameraName: nil, whiteCameraRGB: SIMD3(0.5, 1, 0.9), matrixToXYZD65: RGBColorSpace.sRGB.rgbToXYZ)
        profile.whiteReference = FlashWhiteReference(pixelPositions: [SIMD2(100, 250), SIMD2(150, 250)], width: 400, height: 300)
        let back = try FlashProfile(json: profile.json, file: "p.json")
        #expect(back == profile)
        for (key, value) in [("relativePositions", JSONValue.array([.array([.number(0.5), .number(1.5)])])),
                             ("relativePositions", JSONValue.array([])), ("captureSize", JSONValue.array([.number(400.5), .number(300)]))] {
            var json = profile.json.object!
            var reference = json["whiteReference"]!.object!
            reference[key] = value
            json["whiteReference"] = .object(reference)
            Self.expectOneLineError(json, naming: "whiteReference.\(key)")
        }
    }

    /// `json`, read as the flash profile "bad.json", is refused with one line that names the file and `key`.
    static func expectOneLineError(_ json: [String: JSONValue], naming key: String) {
        #expect {
            _ = try FlashProfile(json: .object(json), file: "bad.json")
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("bad.json: ") && text.contains("'\(key)'") && !text.contains("\n")
        }
    }
}
