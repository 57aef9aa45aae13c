import CLCMS2
import Foundation

/// One Little CMS context (`cmsContext`) with its own error log.
///
/// Little CMS reports why a call failed only through a log callback. Each context registers
/// `cmsSetLogErrorHandlerTHR` with a handler that appends the message to this object's log
/// (found through the context's user data), so messages are never printed and are turned
/// into a `ColorManagementError` by `perform`.
///
/// Invariant for `@unchecked Sendable`: every call that may read or write profile state goes
/// through `perform`, which holds `callLock`, so such calls on one context never overlap and
/// the messages read after a call are that call's own. The only calls made outside the lock
/// are `cmsDoTransform*` on transforms built with `cmsFLAGS_NOCACHE`, which Little CMS
/// documents as safe from several threads; the log itself has its own lock.
final class LittleCMSContext: @unchecked Sendable {
    /// The Little CMS context handle; valid until `deinit`.
    let id: cmsContext
    private let log: MessageLog
    private let callLock = NSLock()

    /// Creates a context whose messages go to this object's log.
    init() throws(ColorManagementError) {
        let log = MessageLog()
        guard let id = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            throw .littleCMS(function: "cmsCreateContext", message: "out of memory")
        }
        cmsSetLogErrorHandlerTHR(id) { contextID, _, text in
            guard let contextID, let user = cmsGetContextUserData(contextID) else { return }
            let log = Unmanaged<MessageLog>.fromOpaque(user).takeUnretainedValue()
            log.append(text.map { String(cString: $0) } ?? "")
        }
        self.id = id
        self.log = log
    }

    deinit {
        // The log outlives the context: it is released after this deinit returns.
        cmsDeleteContext(id)
    }

    /// Runs `body` with the context locked and returns its result together with the messages
    /// Little CMS logged during it (joined into one line, empty if none).
    func perform<T>(_ body: (cmsContext) throws(ColorManagementError) -> T)
        throws(ColorManagementError) -> (T, String) {
        callLock.lock()
        defer { callLock.unlock() }
        _ = log.take()
        let value = try body(id)
        return (value, log.take())
    }

    /// Runs `body` with the context locked; throws `.littleCMS(function:message:)` with the
    /// logged messages when `body` returns `nil`.
    func call<T>(_ function: String, _ body: (cmsContext) -> T?) throws(ColorManagementError) -> T {
        let (value, messages) = try perform { id in body(id) }
        guard let value else { throw .littleCMS(function: function, message: messages) }
        return value
    }

    /// Runs `body` with the context locked; throws `.littleCMS(function:message:)` with the
    /// logged messages when `body` returns `false` (a Little CMS `cmsBool` failure).
    func check(_ function: String, _ body: (cmsContext) -> cmsBool) throws(ColorManagementError) {
        let (ok, messages) = try perform { id in body(id) }
        guard ok != 0 else { throw .littleCMS(function: function, message: messages) }
    }
}

/// Messages logged by Little CMS for one context, guarded by a lock (the log handler may run
/// on any thread that calls into the context).
final class MessageLog: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    /// Appends one message (newlines folded so that errors stay one line).
    func append(_ message: String) {
        let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        lock.lock()
        messages.append(line.isEmpty ? "unspecified error" : line)
        lock.unlock()
    }

    /// Removes and returns all messages joined with "; ".
    func take() -> String {
        lock.lock()
        defer { lock.unlock() }
        let joined = messages.joined(separator: "; ")
        messages.removeAll()
        return joined
    }
}
