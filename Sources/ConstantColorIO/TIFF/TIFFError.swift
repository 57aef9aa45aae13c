/// Everything that can go wrong reading or writing a TIFF file.
///
/// `description` is one line that names the file and the problem, with libtiff's own message
/// where it reported one.
public enum TIFFError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened at all (missing, no permission, a folder).
    case unreadable(path: String, reason: String)
    /// The file is not a valid TIFF, or its data could not be decoded (truncated, damaged).
    case corrupt(path: String, detail: String)
    /// A valid TIFF in a layout this package does not handle; `what` names the layout.
    case unsupported(path: String, what: String)
    /// The image has more pixels than the caller allows (refused before allocating).
    case tooLarge(path: String, width: Int, height: Int, limit: Int)
    /// A sample is NaN or infinite: `x`, `y` are the pixel's column and row, `channel` its plane.
    case nonFinite(path: String, x: Int, y: Int, channel: Int)
    /// The output path is (or resolves to) one of the input files; nothing was written.
    case outputIsInput(path: String)
    /// Writing the output failed; no partial file was left behind.
    case writeFailed(path: String, detail: String)
    /// The file was replaced, rewritten or truncated while it was being read.
    case changedWhileRead(path: String)

    /// One line naming the file and the problem.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read '\(path)': \(Self.oneLine(reason))"
        case .corrupt(let path, let detail):
            return "'\(path)' is not a readable TIFF: \(Self.oneLine(detail))"
        case .unsupported(let path, let what):
            return "'\(path)': unsupported TIFF layout: \(Self.oneLine(what))"
        case .tooLarge(let path, let width, let height, let limit):
            return "'\(path)': image is \(width)×\(height) = \(width * height) pixels, more than the limit of \(limit)"
        case .nonFinite(let path, let x, let y, let channel):
            return "'\(path)': sample at x=\(x), y=\(y), channel \(channel) is not finite (NaN or infinity)"
        case .outputIsInput(let path):
            return "refusing to write '\(path)': it is one of the input files"
        case .writeFailed(let path, let detail):
            return "cannot write '\(path)': \(Self.oneLine(detail))"
        case .changedWhileRead(let path):
            return "'\(path)' changed while it was being read (replaced, rewritten or truncated): its image would mix two files; read it once it is complete"
        }
    }

    /// The file the error is about.
    public var path: String {
        switch self {
        case .unreadable(let p, _), .corrupt(let p, _), .unsupported(let p, _), .tooLarge(let p, _, _, _),
             .nonFinite(let p, _, _, _), .outputIsInput(let p), .writeFailed(let p, _), .changedWhileRead(let p):
            return p
        }
    }

    /// `text` with line breaks folded into spaces, so that descriptions stay on one line.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
