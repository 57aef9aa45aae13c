#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel to back the 2 MiB-aligned interior of a large, not yet touched buffer with
/// transparent huge pages (Linux `madvise(MADV_HUGEPAGE)`, for systems whose THP mode is
/// `madvise`), so that filling it costs one page fault per 2 MiB instead of one per 4 KiB: at
/// 12 MP a frame is 145 MB, and the 4 KiB faults of a dozen such buffers were a fifth of the
/// pipeline's CPU time. A hint only: nothing changes where it is not supported.
public func adviseHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
    #if os(Linux)
    let hugePage = 2 << 20
    guard buffer.count >= 4 * hugePage, let base = buffer.baseAddress else { return }
    let start = (Int(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
    let end = (Int(bitPattern: base) + buffer.count) & ~(hugePage - 1)
    guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
    _ = madvise(pointer, end - start, MADV_HUGEPAGE)
    #endif
}

/// A large array whose elements are left unset (for kernels that write every element before
/// anything reads one), advised onto huge pages before it is touched.
@inlinable public func uninitializedLargeArray<T: BitwiseCopyable>(_: T.Type = T.self, count: Int) -> [T] {
    [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
        initialized = count
    }
}

/// A large array filled with `value`, advised onto huge pages before it is filled.
@inlinable public func largeArray<T: BitwiseCopyable>(repeating value: T, count: Int) -> [T] {
    [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
        if count > 0 { buffer.baseAddress!.initialize(repeating: value, count: count) }
        initialized = count
    }
}

/// `count` elements in the storage of `storage` — a dead buffer whose pages are touched already —
/// when its capacity allows (the elements are left as they were, or zero past its old count), else
/// a fresh `uninitializedLargeArray`. For kernels that write every element before anything reads
/// one: at 12 MP every fresh 48 MB plane costs its page faults and the kernel's zeroing again,
/// reuse costs nothing. The storage is reused in place only when the caller hands over its only
/// reference (`consuming`); a shared array is copied first, as any mutation of one is.
@inlinable public func recycledLargeArray<T: BitwiseCopyable>(_ storage: consuming [T], count: Int, zero: T) -> [T] {
    guard count > 0, storage.capacity >= count else { return uninitializedLargeArray(count: count) }
    var array = consume storage
    if array.count > count {
        array.removeLast(array.count - count)
    } else if array.count < count {
        array.append(contentsOf: repeatElement(zero, count: count - array.count))
    }
    return array
}

/// The elements of `array`, leaving it empty: hands a dead buffer on without a copy (the returned
/// array holds the only reference, so `recycledLargeArray` can reuse it in place).
@inlinable func moved<T>(_ array: inout [T]) -> [T] {
    var taken: [T] = []
    swap(&taken, &array)
    return taken
}
