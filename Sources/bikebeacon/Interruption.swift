import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Runs a long operation until it ends, SIGINT/SIGTERM arrives, or an optional duration
/// passes. All three cancel its task instead of killing the process, so the operation's own
/// cleanup (disabling a scan, closing a file) runs before the command returns.
enum Interruption {
    static func run<T: Sendable>(duration: Double?, _ body: @escaping @Sendable () async -> T) async -> T {
        let task = Task { await body() }
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        let timer = duration.map { seconds in
            Task {
                try await Task.sleep(for: .seconds(seconds))
                task.cancel()
            }
        }
        let result = await task.value
        timer?.cancel()
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        return result
    }
}
