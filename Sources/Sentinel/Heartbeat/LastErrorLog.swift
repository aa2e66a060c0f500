#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Synchronization

/// The last warning or error the sentinel logged, for its heartbeat: the operator sees on the
/// server what `journalctl` on the Pi would have shown last.
public final class LastErrorLog: Sendable {
    public struct Entry: Sendable, Equatable {
        public var message: String
        public var time: Double
    }

    private let entry = Mutex<Entry?>(nil)

    public init() {}

    public var last: Entry? { entry.withLock { $0 } }

    func record(_ message: String, at time: Double) { entry.withLock { $0 = Entry(message: message, time: time) } }

    /// `handler` as it was, also recording what it logs at warning or above into `log`.
    public static func recording(_ handler: any LogHandler, into log: LastErrorLog) -> any LogHandler {
        Recorder(inner: handler, log: log)
    }

    private struct Recorder: LogHandler {
        var inner: any LogHandler
        let log: LastErrorLog

        var logLevel: Logger.Level {
            get { inner.logLevel }
            set { inner.logLevel = newValue }
        }

        var metadataProvider: Logger.MetadataProvider? {
            get { inner.metadataProvider }
            set { inner.metadataProvider = newValue }
        }

        var metadata: Logger.Metadata {
            get { inner.metadata }
            set { inner.metadata = newValue }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { inner[metadataKey: key] }
            set { inner[metadataKey: key] = newValue }
        }

        func log(event: LogEvent) {
            if event.level >= .warning {
                let error = event.metadata?["error"] ?? inner.metadata["error"]
                log.record(error.map { "\(event.message): \($0)" } ?? "\(event.message)", at: Date().timeIntervalSince1970)
            }
            inner.log(event: event)
        }
    }
}
