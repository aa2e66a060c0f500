import Synchronization

/// Scan totals shared between the task producing reports and whoever asks `counts()`.
final class SharedCounts: Sendable {
    private let value = Mutex(ScanCounts())

    var current: ScanCounts { value.withLock { $0 } }

    func set(_ counts: ScanCounts) { value.withLock { $0 = counts } }
}
