#if canImport(Glibc)
import Glibc
#endif

/// What tells one version of a file from another: its device and inode (a file replaced by a
/// rename is another inode), its size and its modification time to the nanosecond (a file rewritten
/// in place). Two equal identities taken before and after a read say the read saw one file.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int, modifiedNanoseconds: Int

    /// The identity of the file open on `descriptor`, nil where `fstat` fails.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The identity of the file `path` names now, nil where `stat` fails (it is gone).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        device = UInt64(info.st_dev); inode = UInt64(info.st_ino); size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec); modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
