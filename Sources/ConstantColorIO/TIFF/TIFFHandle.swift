import CTIFF

/// Buffers that receive libtiff's error and warning messages for one handle.
///
/// libtiff calls the handlers in `shim.h` (`cc_tiff_error_handler`, `cc_tiff_warning_handler`)
/// through `TIFFOpenOptionsSetErrorHandlerExtR`; nothing is printed to standard error.
final class TIFFMessageSink {
    /// The C struct handed to libtiff as handler user data; its address is stable.
    let pointer: UnsafeMutablePointer<cc_tiff_messages>
    private static let capacity = 4096

    init() {
        let errors = UnsafeMutablePointer<CChar>.allocate(capacity: Self.capacity)
        let warnings = UnsafeMutablePointer<CChar>.allocate(capacity: Self.capacity)
        errors[0] = 0
        warnings[0] = 0
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: cc_tiff_messages(
            errors: errors, errorsCapacity: Self.capacity, errorCount: 0,
            warnings: warnings, warningsCapacity: Self.capacity, warningCount: 0))
    }

    deinit {
        pointer.pointee.errors.deallocate()
        pointer.pointee.warnings.deallocate()
        pointer.deallocate()
    }

    /// Number of errors libtiff reported so far.
    var errorCount: Int { Int(pointer.pointee.errorCount) }
    /// The errors reported so far, one `"module: message"` entry each.
    var errorList: [String] { Self.entries(pointer.pointee.errors) }
    /// The warnings reported so far, one `"module: message"` entry each.
    var warningList: [String] { Self.entries(pointer.pointee.warnings) }
    /// The errors reported so far on one line, joined by `"; "`.
    var errors: String { errorList.joined(separator: "; ") }

    private static func entries(_ text: UnsafePointer<CChar>) -> [String] {
        String(cString: text).split(separator: "\n").map(String.init)
    }
}

/// An open libtiff handle that closes itself; the only owner of a `TIFF *`.
final class TIFFHandle {
    /// The libtiff handle; valid until `close()`.
    let tif: OpaquePointer
    /// Where libtiff's messages for this handle go.
    let messages: TIFFMessageSink
    private var isClosed = false

    private init(tif: OpaquePointer, messages: TIFFMessageSink) {
        self.tif = tif
        self.messages = messages
    }

    /// Opens `path` with `TIFFOpenExt` (`mode` as for `TIFFOpen`, e.g. `"r"`, `"w"`, `"w8"`).
    ///
    /// On failure returns libtiff's message (or a generic one if it gave none).
    static func open(_ path: String, mode: String) -> Result<TIFFHandle, TIFFOpenFailure> {
        let messages = TIFFMessageSink()
        guard let tif = cc_tiff_open(path, mode, messages.pointer) else {
            let text = messages.errors
            return .failure(TIFFOpenFailure(message: text.isEmpty ? "libtiff could not open the file" : text))
        }
        return .success(TIFFHandle(tif: tif, messages: messages))
    }

    /// Closes the handle (`TIFFClose`, which flushes pending writes); safe to call twice.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        TIFFClose(tif)
    }

    deinit { close() }
}

/// Why `TIFFOpenExt` returned no handle.
struct TIFFOpenFailure: Error {
    /// libtiff's message.
    let message: String
}
