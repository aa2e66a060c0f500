import Beacon
import Dispatch
import Foundation
import Logging
import Synchronization

/// One H4 packet as the controller delivered it, stamped when the socket handed it over.
public struct HCIPacket: Sendable {
    public var time: Double
    public var h4: [UInt8]
}

/// Raw HCI scanning through libbluetooth (`--backend hci`): takes the controller directly,
/// scans with duplicate filtering off at full duty cycle, and parses reports with the same
/// `HCIEventParser` that replays captures.
///
/// The blocking socket lives on a dedicated thread. Cancelling the consuming task (or dropping
/// the stream) stops the thread, which disables scanning and restores the socket filter before
/// the stream's iteration returns.
public final class HCIScanner: Scanner {
    public let adapter: String
    public let active: Bool
    private let logger: Logger
    private let totals = SharedCounts()

    public init(adapter: String = "hci0", active: Bool = false, logger: Logger = Logger(label: "bikebeacon.hci")) {
        self.adapter = adapter
        self.active = active
        self.logger = logger
    }

    public func advertisements() -> AsyncThrowingStream<Advertisement, any Error> {
        let totals = totals, logger = logger, adapter = adapter
        return stream { continuation in
            var decoder = AdvertisementDecoder()
            return { packet, time in
                if let error = decoder.decode(h4: packet, time: time, emit: { continuation.yield($0) }) {
                    logger.warning("\(adapter): skipped a malformed HCI event: \(error)")
                }
                totals.set(decoder.counts)
            }
        }
    }

    /// Every LE Meta event as received, for `bikebeacon record`.
    public func packets() -> AsyncThrowingStream<HCIPacket, any Error> {
        stream { continuation in
            { packet, time in continuation.yield(HCIPacket(time: time, h4: Array(packet))) }
        }
    }

    public func counts() async -> ScanCounts { totals.current }

    private func stream<Element: Sendable>(
        _ makeHandler: @escaping @Sendable (AsyncThrowingStream<Element, any Error>.Continuation) -> (ArraySlice<UInt8>, Double) -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let control = ScanControl()
        let adapter = adapter, active = active, logger = logger
        continuation.onTermination = { termination in
            // The thread finishing ends the stream itself (.finished); only a consumer that
            // went away needs to stop it and wait for scanning to be disabled.
            if case .cancelled = termination { control.stopAndWait() }
        }
        Thread.detachNewThread {
            let handler = makeHandler(continuation)
            do {
                try HCIScanLoop.run(adapter: adapter, active: active, logger: logger, control: control, onPacket: handler)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            control.done.signal()
        }
        return stream
    }
}

/// Stop request from the consumer side, and the thread's "cleanup finished" signal.
final class ScanControl: Sendable {
    let stopping = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)
    /// Bounded so a wedged controller cannot hang shutdown.
    static let cleanupTimeout: DispatchTimeInterval = .seconds(3)

    func stopAndWait() {
        stopping.store(true, ordering: .releasing)
        _ = done.wait(timeout: .now() + Self.cleanupTimeout)
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }
}

/// The scan session on the dedicated thread: open, configure, read until stopped, clean up.
enum HCIScanLoop {
    static let pollMilliseconds: Int32 = 100

    static func run(adapter: String, active: Bool, logger: Logger, control: ScanControl,
                    onPacket: (ArraySlice<UInt8>, Double) -> Void) throws(HCIError) {
        let device = try HCIDevice(adapter: adapter)
        // A scan left enabled (by us or another tool) makes Set Scan Parameters fail with Command Disallowed.
        try? device.setScanEnable(false)
        try device.setScanParameters(active: active)
        try device.filterLEMetaEvents()
        try device.setScanEnable(true)
        logger.info("\(adapter): raw HCI \(active ? "active" : "passive") scan started, duplicate filtering off")
        defer {
            do {
                try device.setScanEnable(false)
                logger.info("\(adapter): scanning disabled")
            } catch {
                logger.error("\(adapter): could not disable scanning (\(error)); the controller may keep scanning until `sudo hciconfig \(adapter) reset`")
            }
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !control.isStopping {
            guard let packet = try device.readPacket(timeoutMilliseconds: pollMilliseconds, into: &buffer) else { continue }
            onPacket(packet, wallClock())
        }
    }

    /// The moment the socket delivered a packet, as epoch seconds (the one clock read, at the edge).
    static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
