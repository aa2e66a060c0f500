import Beacon
import Logging
import Scanning
import Synchronization
import TestSupport

/// Runs a scanner in the background and records what it reports and logs, for assertions.
final class ScanProbe: Sendable {
    let scanner: DBusScanner
    private let record = Record()
    private let logs: LogLines
    private let task: Task<Void, Never>

    private final class Record: Sendable {
        let batches = Mutex<[[Advertisement]]>([])
        let failure = Mutex<String?>(nil)
    }

    /// A scanner on the mock's bus with short call timeouts, logging at debug level. A `retry`
    /// longer than the test leaves recovery to the signals alone (NameOwnerChanged, InterfacesAdded,
    /// PropertiesChanged), so a test shows the scanner reacts to them rather than polling.
    init(bus: MockBlueZ, watchdog: Duration = .seconds(60), retry: Duration = .milliseconds(300), adapter: String? = nil,
         resetsStuckDiscovery: Bool = true) {
        let logs = LogLines()
        var logger = Logger(label: "test.dbus") { _ in CapturingLogHandler(lines: logs) }
        logger.logLevel = .debug
        self.logs = logs
        scanner = DBusScanner(
            configuration: DBusScannerConfiguration(
                adapter: adapter, busAddress: bus.address, watchdogInterval: watchdog,
                retryInterval: retry, callTimeout: .seconds(3), resetsStuckDiscovery: resetsStuckDiscovery
            ),
            logger: logger
        )
        let stream = scanner.advertisementBatches()
        task = Task { [record] in
            do {
                for try await batch in stream { record.batches.withLock { $0.append(batch) } }
            } catch {
                record.failure.withLock { $0 = "\(error)" }
            }
        }
    }

    var advertisements: [Advertisement] { record.batches.withLock { Array($0.joined()) } }
    /// The batches as the stream handed them out.
    var batches: [[Advertisement]] { record.batches.withLock { $0 } }
    var logLines: [String] { logs.all }
    var error: String? { record.failure.withLock { $0 } }

    /// Occurrences of log lines containing `text`.
    func logged(_ text: String) -> Int { logLines.filter { $0.contains(text) }.count }

    /// Waits until the scanner has started discovery `times` times in total.
    func waitUntilScanning(times: Int = 1, within seconds: Double = 5) async throws {
        guard try await eventually(within: seconds, { logged("scanning for iBeacons on") >= times }) else {
            throw MockError("the scanner did not start discovery (\(times)x) within \(seconds) s; logs:\n" + logLines.joined(separator: "\n"))
        }
    }

    /// Waits until at least `count` reports came out.
    func waitForReports(_ count: Int, within seconds: Double = 5) async throws -> [Advertisement] {
        _ = try await eventually(within: seconds) { advertisements.count >= count }
        return advertisements
    }

    /// Ends the stream (the scanner stops discovery) and returns the final counts.
    func stop() async -> ScanCounts {
        task.cancel()
        await task.value
        return await scanner.counts()
    }
}

final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Keeps "level message key=value…" lines, as the stderr handler prints them, so tests can check
/// what an operator would read.
struct CapturingLogHandler: LogHandler {
    let lines: LogLines
    var logLevel = Logger.Level.debug
    var metadata = Logger.Metadata()
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let values = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lines.append(([String(describing: event.level), "\(event.message)"] + values).joined(separator: " "))
    }
}
