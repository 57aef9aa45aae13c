import CLCMS2
import ConstantColor

/// An ICC profile opened from bytes with Little CMS (`cmsOpenProfileFromMem`).
///
/// Everything the pipeline asks of a profile (colour space, description, white, whether its
/// tone curves are linear, the curves themselves) is read once when the profile is opened,
/// so that a malformed profile fails here with a `ColorManagementError` and not later in a
/// pixel loop. The Little CMS handle is owned and closed in `deinit`.
///
/// Sendable: all stored properties are immutable after `init`; the Little CMS handle is used
/// afterwards only to build transforms, inside the owning context's lock
/// (`LittleCMSContext.perform`), and the tone-curve copies are only evaluated (read-only).
public final class ICCProfile: @unchecked Sendable {
    /// Where the bytes came from, used in error messages (a file name, "embedded ICC profile
    /// of flash.tif", ...).
    public let source: String
    /// The data colour space signature of the header as four ASCII characters ("RGB ",
    /// "GRAY", "CMYK", ...), ICC.1:2010 section 7.2.6.
    public let colorSpaceSignature: String
    /// The profile version from the header (for example 4.3 or 2.1).
    public let version: Double
    /// The profile description tag ('desc') as ASCII, `nil` when the profile has none.
    public let profileDescription: String?
    /// `true` when device → PCS is given by a matrix and three tone curves (rXYZ/gXYZ/bXYZ,
    /// rTRC/gTRC/bTRC) and no A2B/D2B lookup table overrides them (Little CMS uses a LUT in
    /// preference to the matrix when both exist).
    public let isMatrixShaper: Bool
    /// `true` when the profile is an RGB matrix/TRC profile whose three tone curves are each
    /// the identity (`cmsIsToneCurveLinear`, tolerance 15/65535). A profile without tone
    /// curves (LUT-based, or not RGB) counts as non-linear.
    public let isLinear: Bool
    /// The media white point tag ('wtpt'), XYZ with Y = 1; `nil` when absent.
    public let mediaWhitePointXYZ: SIMD3<Double>?
    /// The white of the device before chromatic adaptation to the D50 PCS, XYZ with Y = 1.
    ///
    /// For a v4 profile with a chromatic adaptation tag ('chad') this is chad⁻¹ · wtpt
    /// (ICC.1:2010 Annex E: chad maps the source white to the PCS white); otherwise it is the
    /// media white point itself (v2 display profiles store the display white there).
    public let sourceWhiteXYZ: SIMD3<Double>?

    /// `true` when the data colour space is RGB.
    public var isRGB: Bool { colorSpaceSignature == "RGB " }

    let context: LittleCMSContext
    /// The open profile; valid until `deinit`.
    let handle: cmsHPROFILE
    /// Owned copies of rTRC, gTRC, bTRC when `isMatrixShaper`, else empty.
    private let toneCurves: [ToneCurve]
    /// Per channel, the tone curve sampled at `i / linearizationIntervals`, i = 0...intervals.
    private let linearizationTables: [[Float]]

    /// Number of linear-interpolation intervals of the tabulated tone curves used by
    /// `linearize`. With 4096 intervals the curve x^2.2 is reproduced to better than 2e-8 of
    /// full scale (the linear-interpolation bound h²/8 · max|f″| = 2.2 · 1.2 / 8 · 4096⁻²).
    public static let linearizationIntervals = 4096

    /// Opens a profile from its bytes.
    ///
    /// - Parameters:
    ///   - bytes: a complete ICC profile.
    ///   - source: where the bytes came from, for error messages.
    /// - Throws: `ColorManagementError.malformedProfile` when the bytes are too short, the
    ///   header's size field says they are truncated, Little CMS refuses them
    ///   (`cmsOpenProfileFromMem`), or reading the tags this type needs logs an error.
    public init(bytes: [UInt8], source: String = "ICC profile") throws(ColorManagementError) {
        let function = "ICC.1:2010 header"  // (the standard the bytes break, not a Swift name)
        // ICC.1:2010 section 7.2: a 128-byte header followed by a 4-byte tag count.
        guard bytes.count >= 132 else {
            throw .malformedProfile(source: source, function: function,
                                    message: "\(bytes.count) bytes, shorter than the 132-byte header and tag count")
        }
        guard bytes.count <= Int(UInt32.max) else {
            throw .malformedProfile(source: source, function: function,
                                    message: "\(bytes.count) bytes, larger than an ICC profile can be")
        }
        // ICC.1:2010 section 7.2.2: the profile size field is the exact byte count. Little CMS
        // tolerates a short buffer by dropping tags; a truncated profile is an error here.
        let declaredSize = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard declaredSize <= bytes.count else {
            throw .malformedProfile(source: source, function: function,
                                    message: "header declares \(declaredSize) bytes but only \(bytes.count) are present")
        }

        let context = try LittleCMSContext()
        let (opened, openMessages) = try context.perform { id in
            bytes.withUnsafeBytes { raw in
                cmsOpenProfileFromMemTHR(id, raw.baseAddress, cmsUInt32Number(raw.count))
            }
        }
        guard let handle = opened else {
            throw .malformedProfile(source: source, function: "cmsOpenProfileFromMem",
                                    message: openMessages.isEmpty ? "not an ICC profile" : openMessages)
        }
        let contents: Contents
        do {
            contents = try Self.readContents(handle: handle, context: context, source: source)
        } catch {
            cmsCloseProfile(handle)
            throw error
        }
        self.source = source
        self.context = context
        self.handle = handle
        self.colorSpaceSignature = contents.colorSpaceSignature
        self.version = contents.version
        self.profileDescription = contents.profileDescription
        self.isMatrixShaper = contents.isMatrixShaper
        self.isLinear = contents.isLinear
        self.mediaWhitePointXYZ = contents.mediaWhitePointXYZ
        self.sourceWhiteXYZ = contents.sourceWhiteXYZ
        self.toneCurves = contents.toneCurves
        self.linearizationTables = contents.toneCurves.map { curve in
            (0...Self.linearizationIntervals).map { i in
                cmsEvalToneCurveFloat(curve.handle, Float(i) / Float(Self.linearizationIntervals))
            }
        }
    }

    deinit {
        cmsCloseProfile(handle)
    }

    /// The linear value of one channel's tone curve (rTRC, gTRC or bTRC) at an encoded value
    /// in 0...1 (`cmsEvalToneCurveFloat`), or `nil` when the profile is not an RGB matrix/TRC
    /// profile. `channel` is 0 (red), 1 (green) or 2 (blue).
    public func linearValue(encoded: Float, channel: Int) -> Float? {
        guard toneCurves.indices.contains(channel) else { return nil }
        return cmsEvalToneCurveFloat(toneCurves[channel].handle, encoded)
    }

    /// Maps encoded RGB to linear RGB in place by applying the profile's tone curves.
    ///
    /// An ICC tone curve maps device (encoded) values to linear values (ICC.1:2010,
    /// three-component matrix-based profiles: linear = TRC(device)), so applying the TRC —
    /// not its inverse — undoes the encoding.
    /// Each of the first three planes is divided by `scale` (so that full scale is 1), mapped
    /// through its channel's curve and multiplied by `scale` again; further planes (alpha)
    /// are left alone. Values in 0...1 use a table of `linearizationIntervals` intervals with
    /// linear interpolation; values outside are evaluated by Little CMS directly (parametric
    /// curves extend past 1, sampled ones clamp); NaN stays NaN.
    ///
    /// - Parameters:
    ///   - image: an image with at least three planes in the profile's RGB order.
    ///   - scale: the sample value of full scale (65535 for 16-bit data, 1 for float data).
    /// - Throws: `.unsupportedProfile` unless the profile is an RGB matrix/TRC profile;
    ///   `.invalidArgument` for fewer than three planes or a scale that is not positive.
    public func linearize(_ image: inout PlanarImage, scale: Float) throws(ColorManagementError) {
        let function = "ICCProfile.linearize"
        guard isRGB, isMatrixShaper, toneCurves.count == 3 else {
            throw .unsupportedProfile(
                source: source, function: function,
                reason: "only RGB matrix/TRC profiles can be linearized (this one is \(colorSpaceSignature.trimmingSpaces)"
                    + (isMatrixShaper ? ")" : ", without usable rTRC/gTRC/bTRC)"))
        }
        guard image.channelCount >= 3 else {
            throw .invalidArgument(function: function, reason: "image has \(image.channelCount) planes, RGB needs 3")
        }
        guard scale.isFinite, scale > 0 else {
            throw .invalidArgument(function: function, reason: "scale \(scale) is not a positive finite number")
        }
        let width = image.width, height = image.height, planeSize = image.pixelCount
        guard planeSize > 0 else { return }
        let tables = linearizationTables
        let curves = toneCurves.map(\.handle)
        let intervals = Self.linearizationIntervals
        let reciprocalScale = 1 / scale
        image.samples.withUnsafeMutableBufferPointer { buffer in
            let samples = SharedMutableBuffer(buffer)
            // Bands write disjoint rows of each plane (SharedMutableBuffer's invariant).
            forEachRowBand(rowCount: height) { rows in
                for channel in 0..<3 {
                    let curve = curves[channel]
                    tables[channel].withUnsafeBufferPointer { table in
                        let start = channel * planeSize + rows.lowerBound * width
                        let end = channel * planeSize + rows.upperBound * width
                        for i in start..<end {
                            let encoded = samples[i] * reciprocalScale
                            let linear: Float
                            if encoded >= 0, encoded <= 1 {
                                let position = encoded * Float(intervals)
                                let k = min(Int(position), intervals - 1)
                                let t = position - Float(k)
                                linear = table[k] + t * (table[k + 1] - table[k])
                            } else if encoded.isNaN {
                                linear = encoded
                            } else {
                                linear = cmsEvalToneCurveFloat(curve, encoded)
                            }
                            samples[i] = linear * scale
                        }
                    }
                }
            }
        }
    }

    // MARK: - Reading

    private struct Contents {
        var colorSpaceSignature: String
        var version: Double
        var profileDescription: String?
        var isMatrixShaper: Bool
        var isLinear: Bool
        var mediaWhitePointXYZ: SIMD3<Double>?
        var sourceWhiteXYZ: SIMD3<Double>?
        var toneCurves: [ToneCurve]
    }

    /// Reads header fields and the tags this type uses. A tag that the tag table lists but
    /// Little CMS cannot parse (`cmsReadTag` returns NULL, often without logging), or any
    /// message Little CMS logs meanwhile, makes the profile malformed.
    private static func readContents(handle: cmsHPROFILE, context: LittleCMSContext,
                                     source: String) throws(ColorManagementError) -> Contents {
        let ((contents, unreadable), messages) = try context.perform { _ in
            var unreadable: [String] = []
            /// The parsed tag, `nil` when absent; records listed-but-unparsable tags.
            func read(_ tag: cmsTagSignature) -> UnsafeMutableRawPointer? {
                guard cmsIsTag(handle, tag) != 0 else { return nil }
                let raw = cmsReadTag(handle, tag)
                if raw == nil { unreadable.append(fourCharacterCode(UInt32(tag.rawValue))) }
                return raw
            }
            let space = cmsGetColorSpace(handle).rawValue
            let signature = fourCharacterCode(UInt32(space))
            let version = cmsGetProfileVersion(handle)
            let description = read(cmsSigProfileDescriptionTag) == nil
                ? nil : readASCIIInfo(handle, cmsInfoDescription)

            let lutTags: [cmsTagSignature] = [cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag,
                                              cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag]
            let hasLUT = lutTags.contains { read($0) != nil }
            var isMatrixShaper = signature == "RGB " && cmsIsMatrixShaper(handle) != 0 && !hasLUT

            var curves: [ToneCurve] = []
            if isMatrixShaper {
                for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
                    if read(tag) == nil { isMatrixShaper = false }
                }
                for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
                    if let raw = read(tag), let copy = cmsDupToneCurve(OpaquePointer(raw)) {
                        curves.append(ToneCurve(handle: copy))
                    }
                }
                if curves.count != 3 { curves = []; isMatrixShaper = false }
            }
            let isLinear = curves.count == 3 && curves.allSatisfy { cmsIsToneCurveLinear($0.handle) != 0 }

            var mediaWhite: SIMD3<Double>?
            if let raw = read(cmsSigMediaWhitePointTag) {
                let xyz = raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
                mediaWhite = SIMD3(xyz.X, xyz.Y, xyz.Z)
            }
            var sourceWhite = mediaWhite
            if version >= 4, let white = mediaWhite, let raw = read(cmsSigChromaticAdaptationTag) {
                // cmsMAT3: three rows of three doubles.
                let m = raw.assumingMemoryBound(to: Double.self)
                let chad = Matrix3((0..<9).map { m[$0] })
                sourceWhite = chad.inverse.map { $0 * white }
            }
            let contents = Contents(colorSpaceSignature: signature, version: version,
                                    profileDescription: description, isMatrixShaper: isMatrixShaper,
                                    isLinear: isLinear, mediaWhitePointXYZ: mediaWhite,
                                    sourceWhiteXYZ: sourceWhite, toneCurves: curves)
            return (contents, unreadable)
        }
        guard unreadable.isEmpty, messages.isEmpty else {
            let tags = unreadable.isEmpty ? "" : "cannot parse tag " + unreadable.map { "'\($0)'" }.joined(separator: ", ")
            let joined = [tags, messages].filter { !$0.isEmpty }.joined(separator: "; ")
            throw .malformedProfile(source: source, function: "cmsReadTag", message: joined)
        }
        return contents
    }

    /// One of the profile's informational strings (`cmsGetProfileInfoASCII`, language en-US),
    /// `nil` when absent or empty.
    private static func readASCIIInfo(_ handle: cmsHPROFILE, _ info: cmsInfoType) -> String? {
        let needed = cmsGetProfileInfoASCII(handle, info, "en", "US", nil, 0)
        guard needed > 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(needed))
        let written = cmsGetProfileInfoASCII(handle, info, "en", "US", &buffer, needed)
        guard written > 0 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}

/// A Little CMS tone curve owned by Swift (`cmsFreeToneCurve` in `deinit`).
///
/// Sendable: after creation the curve is only evaluated (`cmsEvalToneCurveFloat`,
/// `cmsIsToneCurveLinear`), which reads it without modifying it.
final class ToneCurve: @unchecked Sendable {
    /// The curve; valid until `deinit`.
    let handle: OpaquePointer
    /// Takes ownership of `handle`.
    init(handle: OpaquePointer) { self.handle = handle }
    deinit { cmsFreeToneCurve(handle) }
}

/// Four ASCII characters of a big-endian ICC signature ("RGB ", "mntr"); non-printable
/// bytes become "?".
func fourCharacterCode(_ value: UInt32) -> String {
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
    return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
}

extension String {
    /// The string without trailing spaces (ICC signatures are space-padded).
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
