import Logging
import Synchronization

/// Keeps the latest warning from the scanner for the range screen's notice line: while the
/// screen is up, lines on stderr would be drawn over at once.
public final class NoticeBoard: Sendable {
    private let latest = Mutex<String?>(nil)

    public init() {}

    public var current: String? { latest.withLock { $0 } }

    public func post(_ text: String) { latest.withLock { $0 = text } }

    public func logger(_ label: String) -> Logger {
        Logger(label: label) { _ in NoticeLogHandler(board: self) }
    }
}

struct NoticeLogHandler: LogHandler {
    let board: NoticeBoard
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        board.post("\(event.level): \(event.message)")
    }
}
