/// Errors of the colour-management layer (ICC profiles and Little CMS).
///
/// Every description is one line that names the function that failed and, for profiles,
/// the source the profile came from (a file name or "embedded ICC profile of flash.tif").
/// Little CMS's own messages are captured per context (`cmsSetLogErrorHandlerTHR`) and carried
/// here; they are never printed.
public enum ColorManagementError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A Little CMS call returned failure. `function` is the C function, `message` what Little
    /// CMS logged while it ran (empty if it logged nothing).
    case littleCMS(function: String, message: String)
    /// The bytes are not an ICC profile that can be read. `function` is the C function that
    /// refused them (or the check that did), `message` the reason.
    case malformedProfile(source: String, function: String, message: String)
    /// The profile is valid but cannot be used for the requested operation (for example
    /// linearizing with a LUT-based or non-RGB profile).
    case unsupportedProfile(source: String, function: String, reason: String)
    /// An argument is out of its domain (a non-positive gamma, a degenerate white point, ...).
    case invalidArgument(function: String, reason: String)

    /// One line naming the function and the problem.
    public var description: String {
        switch self {
        case let .littleCMS(function, message):
            return message.isEmpty
                ? "\(function) failed (Little CMS logged no message)"
                : "\(function) failed: \(message)"
        case let .malformedProfile(source, function, message):
            return "\(source): malformed ICC profile (\(function): \(message))"
        case let .unsupportedProfile(source, function, reason):
            return "\(source): \(function): \(reason)"
        case let .invalidArgument(function, reason):
            return "\(function): \(reason)"
        }
    }
}
