import Foundation
import ConstantColor

/// Writes output files atomically: into a temporary file in the same folder, flushed to disk
/// with `fsync`, then `rename`d over the destination (POSIX.1-2017 `rename`: atomic within a
/// file system). An interrupted or failed write never leaves a half-written destination, and a
/// failed write removes its temporary file.
///
/// Also refuses to write onto an input: the destination is compared with every protected path
/// after resolving symbolic links (`realpath`) and, for files that exist, by device and inode
/// (which also catches hard links).
public enum AtomicFile {
    /// Writes JSON documents, each to its path, atomically: all are encoded first
    /// (`JSONValue.encodedData(file:)`, which refuses NaN and infinity), so that a value JSON cannot
    /// hold leaves every file unchanged.
    public static func writeJSON(_ documents: [(JSONValue, path: String)], protectedPaths: [String] = []) throws {
        let encoded = try documents.map { (try $0.0.encodedData(file: $0.path), $0.path) }
        for (data, path) in encoded { try write(data, to: path, protectedPaths: protectedPaths) }
    }

    /// Writes `data` to `path` atomically; refuses when `path` is one of `protectedPaths`. With
    /// `staging`, the file is renamed into place only by the set's `commit`.
    public static func write(_ data: Data, to path: String, protectedPaths: [String] = [],
                             staging: AtomicFileSet? = nil) throws(AtomicFileError) {
        try withTemporaryPath(for: path, protectedPaths: protectedPaths, staging: staging, mapError: { $0 }) {
            (temporary: String) throws(AtomicFileError) in
            do {
                try data.write(to: URL(fileURLWithPath: temporary))
            } catch {
                throw .writeFailed(path: path, reason: error.localizedDescription)
            }
        }
    }

    /// Runs `body` with the path of a fresh, empty temporary file next to `path` (`given`, or the
    /// file a symbolic link there names: `destination(of:)`), then flushes it and renames it to `path`.
    ///
    /// `body` writes the complete file at the path it is given (it may replace the file, e.g. by
    /// opening it with truncation). When `body` throws, or finishing fails, the temporary file
    /// is removed and the error is thrown; `path` is left as it was. Errors of this helper itself
    /// are turned into the caller's error type by `mapError`. A replaced file's permission bits
    /// are kept. With `staging`, the flushed temporary file is handed to the set instead of renamed:
    /// its `commit` renames it (and every other file of the set), its `discard` removes it.
    public static func withTemporaryPath<E: Error>(
        for given: String, protectedPaths: [String], staging: AtomicFileSet? = nil, mapError: (AtomicFileError) -> E,
        _ body: (String) throws(E) -> Void
    ) throws(E) {
        if isProtected(given, protectedPaths: protectedPaths) {
            throw mapError(.outputIsInput(path: given))
        }
        // The file written: `given`, or the file a symbolic link there names (`destination`).
        let path: String
        do { path = try destination(of: given) } catch { throw mapError(error) }
        // The rename would put a regular file in place of a device, pipe or socket (as root, e.g.
        // /dev/null): refused.
        if let reason = notAFileReason(path) { throw mapError(.writeFailed(path: path, reason: reason)) }
        let temporary = temporaryPath(for: path)
        var existing = stat()
        let replacesFile = stat(path, &existing) == 0 && (existing.st_mode & S_IFMT) == S_IFREG
        // Listed before it exists, so that an interrupt at any moment finds it (a staged file stays
        // listed until its set is committed or discarded).
        Pending.insert(temporary)
        var handedOver = false
        defer { if !handedOver { Pending.remove(temporary) } }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw mapError(.writeFailed(path: path, reason: "cannot create temporary file '\(temporary)': "
                                        + String(cString: strerror(errno))))
        }
        if replacesFile { _ = fchmod(fd, existing.st_mode & 0o7777) }
        close(fd)

        do {
            try body(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        if let failure = flush(temporary: temporary, path: path) {
            unlink(temporary)
            throw mapError(failure)
        }
        if let staging {
            staging.add(temporary: temporary, path: path)
            handedOver = true
            return
        }
        if let failure = install(temporary: temporary, path: path) {
            unlink(temporary)
            throw mapError(failure)
        }
    }

    /// The temporary files being written right now (`withTemporaryPath`), which an interrupt removes.
    enum Pending {
        nonisolated(unsafe) private static var paths = Set<String>()
        private static let lock = NSLock()
        /// Held while a set of outputs is renamed into place (`AtomicFileSet.commit`), and taken by
        /// the interrupt before it deletes anything: a signal during a commit lets it finish, so the
        /// outputs are all the new ones (a probe's signals there left 1–2 of 6 new beside 4–5 old).
        static let commitLock = NSLock()
        /// Adds a temporary file.
        static func insert(_ path: String) { lock.lock(); paths.insert(path); lock.unlock() }
        /// Removes a temporary file from the set (it was renamed or deleted).
        static func remove(_ path: String) { lock.lock(); paths.remove(path); lock.unlock() }
        /// The current set.
        static var current: Set<String> { lock.lock(); defer { lock.unlock() }; return paths }
        nonisolated(unsafe) private static var ending = false
        /// True the first time only: the process starts ending.
        static func beginEnding() -> Bool {
            lock.lock(); defer { lock.unlock() }
            if ending { return false }
            ending = true
            return true
        }
        /// Deletes every temporary file of the set (the lock stays held: the process is ending).
        static func removeAll() {
            lock.lock()
            for p in paths { unlink(p) }
            paths.removeAll()
        }
    }

    nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []

    /// Makes SIGINT, SIGTERM and SIGHUP delete the temporary files being written before the process
    /// ends with that signal (its default action, so the exit status still says which): an
    /// interrupted run leaves neither a half-written output nor hidden temporary files. A signal the
    /// parent set to be ignored (`nohup`, `cmd &`) stays ignored. Call once, at start-up.
    public static func removeTemporaryFilesOnInterrupt() {
        for s in [SIGINT, SIGTERM, SIGHUP] {
            var current = sigaction()
            // SIG_IGN is the handler value 1 (glibc).
            guard sigaction(s, nil, &current) == 0, unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) != 1 else { continue }
            signal(s, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: s, queue: .global(qos: .userInteractive))
            source.setEventHandler {
                // One ending only: a second signal (or a second delivery) returns at once.
                guard Pending.beginEnding() else { return }
                Pending.commitLock.lock()  // (kept: the process is ending)
                Pending.removeAll()
                signal(s, SIG_DFL)
                // To this thread, unblocked: a process-directed signal could be read again by
                // Dispatch's own signal watcher instead of ending the process.
                var set = sigset_t()
                sigemptyset(&set); sigaddset(&set, s)
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
                pthread_kill(pthread_self(), s)
                _exit(128 + s)  // not reached when the default action ends the process
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Flushes the temporary file to disk.
    private static func flush(temporary: String, path: String) -> AtomicFileError? {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return .writeFailed(path: path, reason: "temporary file vanished: " + String(cString: strerror(errno)))
        }
        let synced = fsync(fd)
        let syncErrno = errno
        close(fd)
        guard synced == 0 else {
            return .writeFailed(path: path, reason: "fsync failed: " + String(cString: strerror(syncErrno)))
        }
        return nil
    }

    /// Renames the flushed temporary file to `path` and flushes the folder entry.
    fileprivate static func install(temporary: String, path: String) -> AtomicFileError? {
        guard rename(temporary, path) == 0 else {
            return .writeFailed(path: path, reason: "rename failed: " + String(cString: strerror(errno)))
        }
        // Make the rename itself durable; failure here cannot undo the (already visible) file.
        let folder = open(folderPath(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
        return nil
    }

    /// The file an output named `path` goes to: `path` itself, or, where `path` is a symbolic link,
    /// the file it names (`realpath`): the link is written through, as `cp` and the shell's `>` do.
    /// Renaming onto the link would put the output in the link's place and leave the file it names
    /// as it was — `-o /dev/stdout > out.tif` replaced `/dev/stdout` (as root) and left `out.tif`
    /// empty. `-` (standard output in many tools) is refused: outputs are files written atomically.
    static func destination(of path: String) throws(AtomicFileError) -> String {
        if path == "-" {
            throw .writeFailed(path: path, reason: "standard output is not supported (outputs are files, written atomically); give a file path (./- for a file named '-')")
        }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return path }
        // (A link to a pipe or device, e.g. /dev/stdout on a pipe, names no path: said as such.)
        if let reason = notAFileReason(path) { throw .writeFailed(path: path, reason: reason) }
        guard let resolved = realPath(path) else {
            throw .writeFailed(path: path, reason: "it is a symbolic link to a file that does not exist (\(String(cString: strerror(errno)))): give the file's own path")
        }
        return resolved
    }

    /// Why `path` (following symbolic links) cannot be replaced by an output file: it exists and is a
    /// device, pipe or socket — nil for a regular file, a folder (refused on its own), or no file.
    static func notAFileReason(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFCHR, S_IFBLK: return "it is a device, not a file"
        case S_IFIFO: return "it is a pipe, not a file"
        case S_IFSOCK: return "it is a socket, not a file"
        default: return "it is not a regular file"
        }
    }

    /// A new temporary name in the same folder as `path`: `.<name>.tmp-<pid>-<random>` (`random`
    /// in base 36; drawn unless given: `UInt64.max` gives the longest).
    public static func temporaryPath(for path: String, random number: UInt64 = .random(in: 0...UInt64.max)) -> String {
        let folder = parentFolder(of: path) ?? ""
        let name = (path as NSString).lastPathComponent
        let random = String(number, radix: 36)
        let temporaryName = ".\(name).tmp-\(getpid())-\(random)"
        return folder.isEmpty ? temporaryName : (folder as NSString).appendingPathComponent(temporaryName)
    }

    /// Checks before any work that `write(_:to:protectedPaths:)` can succeed at `path`: a non-empty
    /// path, not one of `protectedPaths`, not a folder, in an existing folder this process may write
    /// to. Commands call it for every output up front, so that a run that fails leaves no output of
    /// its set written.
    public static func checkDestination(_ given: String, protectedPaths: [String] = []) throws(AtomicFileError) {
        guard !given.isEmpty else { throw .writeFailed(path: given, reason: "empty path") }
        if isProtected(given, protectedPaths: protectedPaths) { throw .outputIsInput(path: given) }
        let path = try destination(of: given)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .writeFailed(path: path, reason: "it is a folder")
        }
        if let reason = notAFileReason(path) { throw .writeFailed(path: path, reason: reason) }
        if FileManager.default.fileExists(atPath: path), access(path, W_OK) != 0 {
            // The replacement keeps the file's permission bits, so a read-only file cannot be replaced.
            throw .writeFailed(path: path, reason: "the existing file is not writable (\(String(cString: strerror(errno))))")
        }
        let folder = folderPath(of: path)
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw .writeFailed(path: path, reason: "folder '\(folder)' does not exist")
        }
        guard isDirectory.boolValue else { throw .writeFailed(path: path, reason: "'\(folder)' is a file, not a folder") }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw .writeFailed(path: path, reason: "folder '\(folder)' is not writable (\(String(cString: strerror(errno))))")
        }
        // The temporary file's name is the output's with a prefix and suffix (`temporaryPath`): both
        // must fit the folder's file-name limit, or the write fails once the work is done.
        let limit = pathconf(folder, Int32(_PC_NAME_MAX))
        let temporaryName = (temporaryPath(for: path, random: .max) as NSString).lastPathComponent
        if limit > 0, temporaryName.utf8.count > limit {
            throw .writeFailed(path: path, reason: "its name is too long: the temporary file it is written through, .NAME.tmp-…, would need \(temporaryName.utf8.count) bytes, and the folder allows \(limit) (keep the name under \(limit - (temporaryName.utf8.count - (path as NSString).lastPathComponent.utf8.count)) bytes)")
        }
    }

    /// True when `path` names the same file as one of `protectedPaths`: after resolving symbolic
    /// links in both, or because both exist and share device and inode (hard links).
    public static func isProtected(_ path: String, protectedPaths: [String]) -> Bool {
        guard !protectedPaths.isEmpty else { return false }
        let resolved = resolvedPath(path)
        var target = stat()
        let targetExists = stat(path, &target) == 0
        for protected in protectedPaths {
            if resolvedPath(protected) == resolved { return true }
            var other = stat()
            if targetExists, stat(protected, &other) == 0,
               other.st_dev == target.st_dev, other.st_ino == target.st_ino {
                return true
            }
        }
        return false
    }

    /// The absolute path of `path` with symbolic links resolved: `realpath` of the file when it
    /// exists, otherwise `realpath` of its folder joined with its name.
    public static func resolvedPath(_ path: String) -> String {
        if let real = realPath(path) { return real }
        let name = (path as NSString).lastPathComponent
        if let folder = realPath(folderPath(of: path)) {
            return (folder as NSString).appendingPathComponent(name)
        }
        let absolute = path.hasPrefix("/") ? path
            : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        return (absolute as NSString).standardizingPath
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func folderPath(of path: String) -> String { parentFolder(of: path) ?? "." }

    /// The folder part of `path` (trailing slashes ignored; "/" for a file at the root), or nil when
    /// it names no folder. Written out because swift-corelibs-foundation's
    /// `NSString.deletingLastPathComponent` traps on one-character strings (`-o a` crashed with SIGILL).
    static func parentFolder(of path: String) -> String? {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return nil }
        if slash == p.startIndex { return "/" }
        var folder = p[..<slash]
        while folder.count > 1, folder.hasSuffix("/") { folder = folder.dropLast() }
        return String(folder)
    }
}

/// Failures of `AtomicFile`.
public enum AtomicFileError: Error, Equatable, CustomStringConvertible {
    /// The destination is (or resolves to) one of the protected input files; nothing was written.
    case outputIsInput(path: String)
    /// The temporary file could not be created, written, flushed or renamed; `path` is unchanged.
    case writeFailed(path: String, reason: String)

    /// One line naming the file and the problem.
    public var description: String {
        switch self {
        case .outputIsInput(let path):
            return "refusing to write '\(path)': it is one of the input files"
        case .writeFailed(let path, let reason):
            return "cannot write '\(path)': \(reason)"
        }
    }
}

/// Output files written as one: each is written and flushed into its temporary file
/// (`AtomicFile.withTemporaryPath(for:protectedPaths:staging:mapError:_:)`, `TIFFWriter.write`'s
/// `staging`), and only when all of them are written does `commit` rename them into place. A run
/// that fails while writing any of its outputs (a full disk, a folder that refuses new files, a
/// value a format cannot hold) `discard`s the set and leaves every destination as it was. Files may
/// be staged from several threads at once.
public final class AtomicFileSet: @unchecked Sendable {
    private var staged: [(temporary: String, path: String)] = []
    private let lock = NSLock()

    /// An empty set.
    public init() {}

    fileprivate func add(temporary: String, path: String) {
        lock.lock(); staged.append((temporary, path)); lock.unlock()
    }

    /// Renames every staged file into place. Renames within a folder do not fail for want of space;
    /// should one fail anyway, the files not yet renamed are removed and the error names its path.
    public func commit() throws(AtomicFileError) {
        lock.lock(); let files = staged; staged = []; lock.unlock()
        // An interrupt waits for the renames (`Pending.commitLock`): the set is installed whole.
        AtomicFile.Pending.commitLock.lock()
        defer { AtomicFile.Pending.commitLock.unlock() }
        for (k, file) in files.enumerated() {
            if let failure = AtomicFile.install(temporary: file.temporary, path: file.path) {
                for rest in files[k...] { unlink(rest.temporary); AtomicFile.Pending.remove(rest.temporary) }
                throw failure
            }
            AtomicFile.Pending.remove(file.temporary)
        }
    }

    /// Removes every staged file; no destination changes.
    public func discard() {
        lock.lock(); let files = staged; staged = []; lock.unlock()
        for file in files { unlink(file.temporary); AtomicFile.Pending.remove(file.temporary) }
    }
}
