#if canImport(Glibc)
import Glibc
#endif
import NIOPosix
import Synchronization

/// Gives the memory of closed event streams back to the system after a burst of closes.
///
/// glibc keeps what the server frees: after 19 000 streams had closed, the server still held 862 MB with
/// none open, and `malloc_trim` brought it to 50 MB (README, "Open streams"). So every `every`-th closed
/// stream (a restart's reconnections, a city's dashboards closing at night) trims, on NIO's thread pool,
/// since a trim walks the whole heap.
final class MemoryTrim: Sendable {
    let every: Int
    private let trim: @Sendable () -> Void
    private let closedSinceTrim = Mutex(0)

    init(every: Int = 1_000, trim: @escaping @Sendable () -> Void = MemoryTrim.mallocTrim) {
        self.every = every
        self.trim = trim
    }

    func streamClosed() {
        let due = closedSinceTrim.withLock { closed in
            closed += 1
            guard closed >= every else { return false }
            closed = 0
            return true
        }
        if due { trim() }
    }

    @Sendable static func mallocTrim() {
        guard let trim = mallocTrimFunction else { return }
        Task { try? await NIOThreadPool.singleton.runIfActive { _ = trim(0) } }
    }

    /// glibc's `malloc_trim`, looked up at run time: the Glibc module does not declare it, and a target
    /// depending on CMalloc (which does) would change the package manifest for one call.
    private static let mallocTrimFunction: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
