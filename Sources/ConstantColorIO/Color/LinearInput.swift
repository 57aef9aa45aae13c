import ConstantColor

/// Why a decoded frame's samples cannot be taken as linear camera RGB (SPEC 2, stage 1: "non-linear
/// ICC inputs are refused unless the user asks to linearize"). Each names the file.
public enum LinearInputError: Error, Equatable, CustomStringConvertible {
    /// The embedded profile describes another colour space than the file's RGB samples.
    case profileNotRGB(path: String, colorSpace: String, profile: String)
    /// The embedded profile has non-linear curves and linearizing was not asked for.
    case nonLinearProfile(path: String, profile: String)
    /// Linearizing was asked for, but floating-point samples exceed the curves' 0…1 domain.
    case floatSamplesBeyondCurves(path: String, largest: Float)

    /// The file concerned.
    public var path: String {
        switch self {
        case .profileNotRGB(let p, _, _), .nonLinearProfile(let p, _), .floatSamplesBeyondCurves(let p, _): return p
        }
    }

    /// What is wrong, without the file's name.
    public var problem: String {
        switch self {
        case .profileNotRGB(_, let space, let profile):
            return "carries an ICC profile for \(space) data ('\(profile)'), but its samples are RGB: the profile does not describe this file"
        case .nonLinearProfile(_, let profile):
            return "carries a non-linear ICC profile ('\(profile)'); input must be linear camera RGB (pass --linearize-icc to invert the profile's curves)"
        case .floatSamplesBeyondCurves(_, let top):
            return "holds floating-point samples up to \(top), but an ICC profile's curves take encoded values from 0 to 1: --linearize-icc cannot invert them on these samples (save the file as integers, or as linear data without the profile)"
        }
    }

    public var description: String { "\(path): \(problem)" }
}

/// Frames made linear camera RGB before any measurement: every command that reads a capture
/// (`fuse`, `calibrate`, `validate`) goes through here, so that none takes encoded values for light.
public enum LinearInput {
    /// Makes `decoded`'s samples linear: a file with no ICC profile or a linear one is left as it
    /// is; a non-linear RGB profile is refused unless `linearizeICC`, when its curves are inverted
    /// (`ICCProfile.linearize`; integer codes scaled to 0…1 and back, float samples taken as 0…1).
    /// Returns whether the samples were linearized.
    ///
    /// - Throws: `LinearInputError`, or `ColorManagementError` for a profile Little CMS cannot read.
    @discardableResult
    public static func make(_ decoded: inout DecodedTIFF, linearizeICC: Bool) throws -> Bool {
        guard let profile = try profileToInvert(decoded.iccProfile, path: decoded.path, linearizeICC: linearizeICC) else { return false }
        if let top = decoded.largestFloatSample, top > 1.001 {
            throw LinearInputError.floatSamplesBeyondCurves(path: decoded.path, largest: top)
        }
        let scale: Float = decoded.isFloatingPoint ? 1 : Float((1 << decoded.bitsPerSample) - 1)
        try profile.linearize(&decoded.image, scale: scale)
        decoded.largestSample = nil  // (it described the encoded samples)
        return true
    }

    /// The embedded profile whose curves must be inverted (nil: none, or linear), checked before
    /// any sample is read: one for other data than RGB is refused, a non-linear one unless
    /// `linearizeICC`.
    public static func profileToInvert(_ icc: [UInt8]?, path: String, linearizeICC: Bool) throws -> ICCProfile? {
        guard let icc else { return nil }
        let profile = try ICCProfile(bytes: icc, source: path)
        let name = profile.profileDescription ?? "no description"
        guard profile.isRGB else {
            throw LinearInputError.profileNotRGB(path: path, colorSpace: profile.colorSpaceSignature.trimmingSpaces, profile: name)
        }
        guard !profile.isLinear else { return nil }
        guard linearizeICC else { throw LinearInputError.nonLinearProfile(path: path, profile: name) }
        return profile
    }
}
