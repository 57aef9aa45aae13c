#if os(Linux)
import CMalloc
#endif

/// Makes this process keep the memory of freed large buffers for its next ones (glibc `mallopt`:
/// `M_MMAP_MAX` 0, so that large blocks come from the heap rather than mappings of their own, and
/// `M_TRIM_THRESHOLD` at its largest, so that freed heap memory is not handed back). By default
/// glibc maps every block above 32 MiB on its own and unmaps it when freed: at 12 MP a plane is
/// 48 MB and a frame 145 MB, the pipeline frees and allocates about a dozen of them, and the kernel
/// faults in and zeroes every new one. That was 0.3–1.6 s of system time per 12 MP fuse on the
/// bench pair, much of it on the critical path of the parallel stages; reusing freed pages takes
/// it to 0.2–0.5 s (peak resident memory unchanged, about 710 MiB).
///
/// Process-wide, so the program decides, not the library: the command-line tool calls it at start
/// (a long-lived process that did would keep its resident memory at its peak). Returns whether both
/// settings were accepted; elsewhere than Linux it does nothing and returns false.
@discardableResult func reuseFreedMemoryForLargeBuffers() -> Bool {
    #if os(Linux)
    return mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, Int32.max) == 1
    #else
    return false
    #endif
}
