/// Where in the frame a flash profile's white (`FlashProfile.whiteCameraRGB`) was measured, so that
/// a shading map (`FlashShading`) can be made relative to the flash's colour there.
///
/// A phosphor LED flash's colour changes across the frame; `calibrate chart` measures its white on
/// the chart's neutral patches (a ColorChecker's bottom row, below the centre), not at the centre.
/// A map relative to the centre then corrected the white a second time (1.2–1.9 % too little blue at
/// the centre with a 12 % blue loss at the corners), and a shaded chart's profile rendered worse
/// with the map than without it. Absent, the white is the flash's at the frame centre (`calibrate spectral`:
/// the emission on the flash's axis).
public struct FlashWhiteReference: Sendable, Equatable {
    /// Frame-relative positions (x / width, y / height; 0…1) of the patches the white was measured on.
    public var relativePositions: [SIMD2<Double>]
    /// Size of the capture they were measured on (its aspect is the positions' frame).
    public var captureSize: SIMD2<Int>

    /// The profile key.
    static let jsonKey = "whiteReference"

    /// A reference from positions in pixels on a `width × height` capture.
    public init(pixelPositions: [SIMD2<Double>], width: Int, height: Int) {
        precondition(!pixelPositions.isEmpty && width > 0 && height > 0)
        relativePositions = pixelPositions.map { SIMD2($0.x / Double(width), $0.y / Double(height)) }
        captureSize = SIMD2(width, height)
    }

    /// Whether a capture of `width × height` has this capture's aspect ratio (`FlashShading.sameAspect`).
    public func hasAspect(width: Int, height: Int) -> Bool {
        FlashShading.sameAspect(captureSize, width: width, height: height)
    }

    /// Reads the `whiteReference` member; errors name the file and the key.
    init(json: JSONValue, file: String) throws {
        let r = try JSONObjectReader(json, file: file, prefix: Self.jsonKey + ".")
        guard let list = r.members["relativePositions"]?.array, !list.isEmpty,
              let pairs = Optional(list.compactMap(\.doubles)), pairs.count == list.count,
              pairs.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 } }) else {
            throw JSONFileError.invalidValue(file: file, key: Self.jsonKey + ".relativePositions",
                                             expected: "a non-empty array of [x, y] frame-relative positions in 0...1")
        }
        guard let size = r.members["captureSize"]?.doubles, size.count == 2,
              size.allSatisfy({ $0 >= 1 && $0 <= 1e6 && $0 == $0.rounded() }) else {
            throw JSONFileError.invalidValue(file: file, key: Self.jsonKey + ".captureSize", expected: "[width, height] in pixels (positive integers)")
        }
        relativePositions = pairs.map { SIMD2($0[0], $0[1]) }
        captureSize = SIMD2(Int(size[0]), Int(size[1]))
    }

    /// The member as JSON.
    var json: JSONValue {
        .object(["relativePositions": .array(relativePositions.map { .array([.number($0.x), .number($0.y)]) }),
                 "captureSize": .array([.number(Double(captureSize.x)), .number(Double(captureSize.y))]),
                 "description": .string("frame-relative positions (x/width, y/height) of the patches whiteCameraRGB was measured on; calibrate flat-field makes the shading map's white relative to the median white there")])
    }
}
