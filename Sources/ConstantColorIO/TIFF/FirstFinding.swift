import Foundation

/// Keeps the finding with the lowest order among those recorded by parallel row bands.
///
/// Invariant for `@unchecked Sendable`: `order` and `stored` are only touched under `lock`.
final class FirstFinding<Value>: @unchecked Sendable {
    private let lock = NSLockBox()
    private var order = Int.max
    private var stored: Value?

    /// Records `value` if `order` is lower than any recorded so far.
    func record(order: Int, _ value: Value) {
        lock.withLock {
            if order < self.order {
                self.order = order
                stored = value
            }
        }
    }

    /// The recorded value with the lowest order.
    var value: Value? { lock.withLock { stored } }
}

/// A lock (Foundation's `NSLock`) with a closure API.
struct NSLockBox: @unchecked Sendable {
    private let lock = NSLock()
    /// Runs `body` while holding the lock.
    func withLock<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
