import Dispatch

/// Splits `0..<rowCount` into at most one band per core and runs `body` on each band in parallel.
///
/// Compute-bound stages call this once per pass; on a machine with N cores it never creates more
/// than N bands (more bands than cores only adds scheduling cost for compute-bound work).
/// Small images run on the calling thread.
public func forEachRowBand(rowCount: Int, minimumRowsPerBand: Int = 16,
                           _ body: (Range<Int>) -> Void) {
    let bands = rowBands(rowCount: rowCount, minimumRowsPerBand: minimumRowsPerBand)
    if bands.count == 1 {
        body(bands[0])
        return
    }
    withoutActuallyEscaping(body) { body in
        let box = UncheckedSendableBox(body)
        DispatchQueue.concurrentPerform(iterations: bands.count) { box.value(bands[$0]) }
    }
}

/// The bands `forEachRowBand` splits `0..<rowCount` into: at most one per core, each at least
/// `minimumRowsPerBand` rows (one band for small counts), in order.
public func rowBands(rowCount: Int, minimumRowsPerBand: Int = 16) -> [Range<Int>] {
    let cores = max(1, ProcessInfoCores.activeProcessorCount)
    let bands = max(1, min(cores, rowCount / max(1, minimumRowsPerBand)))
    return (0..<bands).map { (rowCount * $0 / bands)..<(rowCount * ($0 + 1) / bands) }
}

/// Number of cores, read once.
public enum ProcessInfoCores {
    /// The active processor count of this process's machine.
    public static let activeProcessorCount: Int = {
        #if canImport(Glibc)
        return Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #else
        return 1
        #endif
    }()
}

#if canImport(Glibc)
import Glibc
#endif

/// Carries a non-`Sendable` value into `concurrentPerform`.
///
/// Invariant (audited at each use): the closures and buffers it carries are only used to write
/// disjoint row bands of their outputs, and inputs are not mutated while the bands run.
public struct UncheckedSendableBox<T>: @unchecked Sendable {
    /// The carried value.
    public let value: T
    /// Wraps `value`.
    public init(_ value: T) { self.value = value }
}

/// A mutable pointer to a buffer that parallel row bands write to, each its own rows only.
///
/// Invariant: the bands given to `forEachRowBand` never overlap, so no two threads write the
/// same element, and the buffer outlives the parallel call.
public struct SharedMutableBuffer<Element>: @unchecked Sendable {
    /// Base address of the buffer.
    public let base: UnsafeMutablePointer<Element>
    /// Number of elements.
    public let count: Int
    /// Wraps a buffer pointer.
    public init(_ buffer: UnsafeMutableBufferPointer<Element>) {
        base = buffer.baseAddress!
        count = buffer.count
    }
    /// Element `i`.
    @inlinable public subscript(i: Int) -> Element {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }
}
