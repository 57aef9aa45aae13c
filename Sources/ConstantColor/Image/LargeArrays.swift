// Large planes are left on the kernel's ordinary 4 KiB pages. They were advised onto transparent
// huge pages (`madvise(MADV_HUGEPAGE)`) until session 31: on this project's machine (a Firecracker
// VM with a balloon device, which by all appearances hands freed 2 MiB blocks back to the host
// within seconds) a process that starts after a pause then waits for the host to supply every huge
// page again, and 4 KiB pages do not cost that: a C program touching 711 MiB took
// 1.51–1.62 s on huge pages against 0.30–0.38 s on 4 KiB pages after 20 s idle (0.07 against 0.36 s
// right after another run), and a 12 MP `fuse` 1.91 against 1.41 s wall median (five runs each,
// alternated, 20 s apart; system time 1.45–1.72 against 0.41–0.59 s).

/// A large array whose elements are left unset (for kernels that write every element before
/// anything reads one): no pass writes zeros that the kernel then overwrites.
@inlinable package func uninitializedLargeArray<T: BitwiseCopyable>(_: T.Type = T.self, count: Int) -> [T] {
    [T](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
}

/// A large array filled with `value`.
@inlinable package func largeArray<T: BitwiseCopyable>(repeating value: T, count: Int) -> [T] {
    [T](unsafeUninitializedCapacity: count) { buffer, initialized in
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
@inlinable package func recycledLargeArray<T: BitwiseCopyable>(_ storage: consuming [T], count: Int, zero: T) -> [T] {
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
