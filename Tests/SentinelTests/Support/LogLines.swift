import Logging
import Synchronization

/// What a stage logs, level and message, so a test can check what the operator is told.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func count(_ prefix: String) -> Int { all.count { $0.hasPrefix(prefix) } }

    func logger() -> Logger {
        var logger = Logger(label: "test") { _ in Handler(lines: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel = Logger.Level.trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
