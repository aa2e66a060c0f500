#if canImport(Glibc)
import Glibc
#endif

/// A dedicated OS thread for a backend's blocking I/O (libdbus, the HCI socket), so Swift's
/// cooperative pool never waits on the radio. (Foundation's `Thread` would pull in all of
/// Foundation and ICU.)
enum BlockingThread {
    /// Why no thread could be started: the process is out of threads or memory.
    struct StartError: Error, CustomStringConvertible {
        var code: Int32
        var description: String { "could not start the scanning thread (error \(code)): the system is out of threads or memory" }
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread.
    static func start(_ body: @escaping @Sendable () -> Void) throws(StartError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            if let raw {
                let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
                body.run()
            }
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw StartError(code: result)
        }
    }
}
