#if canImport(Glibc)
import Glibc
#endif
import Beacon
import HCI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
/// A watchdog enables scanning again after `watchdog` seconds without a report: another program on
/// the same controller (`bikebeacon record`, `bluetoothctl scan off`) can turn our scan off, and
/// nothing tells a raw socket that it did.
///
/// The blocking socket lives on a dedicated thread. Cancelling the consuming task (or dropping
/// the stream) tells the thread to stop; it then disables scanning and restores the socket
/// filter. Await `waitUntilStopped()` before exiting so that cleanup has happened. (Blocking
/// inside the stream's termination handler instead would deadlock: task cancellation runs it
/// while holding the task's status lock, which the thread's final `finish()` needs.)
public final class HCIScanner: Scanner {
    public let adapter: String
    public let active: Bool
    /// Seconds without any LE report after which scanning is enabled again.
    public let watchdog: Double
    private let logger: Logger
    private let totals = SharedCounts()
    private let sessions = Mutex<[ScanControl]>([])
    private let open: @Sendable (String) throws(HCIError) -> any HCIController

    public convenience init(adapter: String = "hci0", active: Bool = false, watchdog: Double = 5, logger: Logger = Logger(label: "bikebeacon.hci")) {
        self.init(adapter: adapter, active: active, watchdog: watchdog, logger: logger) { (name: String) throws(HCIError) -> any HCIController in
            try HCIDevice(adapter: name)
        }
    }

    /// `open` is the seam to the radio: libbluetooth in production, a scripted controller in tests.
    init(adapter: String, active: Bool, watchdog: Double = 5, logger: Logger,
         open: @escaping @Sendable (String) throws(HCIError) -> any HCIController) {
        self.adapter = adapter
        self.active = active
        self.watchdog = watchdog
        self.logger = logger
        self.open = open
    }

    /// Batches of iBeacon reports: one per burst the socket held, read without waiting.
    public func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        let totals = totals, logger = logger, adapter = adapter
        return stream { continuation in
            var decoder = AdvertisementDecoder()
            var batch: [Advertisement] = []
            return PacketHandler(
                packet: { packet, time in
                    if let error = decoder.decode(h4: packet, time: time, emit: { batch.append($0) }) {
                        logger.warning("skipped a malformed HCI event", metadata: ["adapter": "\(adapter)", "error": "\(error)"])
                    }
                    totals.set(decoder.counts)
                    return batch.count < ScanBatch.limit
                },
                flush: {
                    guard !batch.isEmpty else { return }
                    continuation.yield(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            )
        }
    }

    /// Every LE Meta event as received, for `bikebeacon record`.
    public func packets() -> AsyncThrowingStream<HCIPacket, any Error> {
        stream { continuation in
            PacketHandler(packet: { packet, time in
                continuation.yield(HCIPacket(time: time, h4: Array(packet)))
                return false
            }, flush: {})
        }
    }

    public func counts() async -> ScanCounts { totals.current }

    /// Returns once every scan this scanner started has disabled scanning and closed its socket.
    public func waitUntilStopped() async {
        for session in sessions.withLock({ $0 }) { await session.waitUntilFinished() }
        sessions.withLock { $0.removeAll { $0.isFinished } }
    }

    private func stream<Element: Sendable>(
        _ makeHandler: @escaping @Sendable (AsyncThrowingStream<Element, any Error>.Continuation) -> PacketHandler
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        let control = ScanControl()
        sessions.withLock { $0.append(control) }
        let adapter = adapter, active = active, watchdog = watchdog, logger = logger, open = open
        continuation.onTermination = { _ in control.requestStop() }
        do {
            try BlockingThread.start {
                Self.scan(adapter: adapter, active: active, watchdog: watchdog, logger: logger, control: control, open: open,
                          continuation: continuation, handler: makeHandler(continuation))
            }
        } catch {
            continuation.finish(throwing: error)
            control.markFinished()
        }
        return stream
    }

    /// The scan thread's whole life: open, scan, finish the stream, tell waiters cleanup is done.
    private static func scan<Element>(
        adapter: String, active: Bool, watchdog: Double, logger: Logger, control: ScanControl,
        open: @Sendable (String) throws(HCIError) -> any HCIController,
        continuation: AsyncThrowingStream<Element, any Error>.Continuation, handler: PacketHandler
    ) {
        do {
            let device = try open(adapter)
            try HCIScanLoop.run(device, adapter: adapter, active: active, watchdog: watchdog, logger: logger, control: control,
                                handler: handler)
            continuation.finish()
        } catch {
            // The reports read before the failure go out before it.
            handler.flush()
            continuation.finish(throwing: error)
        }
        control.markFinished()
    }
}

/// What the scan thread does with each packet, and when a burst is over.
struct PacketHandler {
    /// Takes one packet; false once the pending batch is full and must be flushed.
    var packet: (ArraySlice<UInt8>, Double) -> Bool
    /// Hands the pending batch to the stream.
    var flush: () -> Void
}

/// Stop request from the consumer side, and the thread's "cleanup finished" notice.
final class ScanControl: Sendable {
    private struct State {
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let stopping = Atomic<Bool>(false)
    private let state = Mutex(State())

    func requestStop() { stopping.store(true, ordering: .releasing) }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Called by the thread after its cleanup.
    func markFinished() {
        let waiters = state.withLock { s in
            s.finished = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitUntilFinished() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s in
                if !s.finished { s.waiters.append(waiter) }
                return s.finished
            }
            if done { waiter.resume() }
        }
    }
}

/// The scan session on the dedicated thread: open, configure, read until stopped, clean up.
enum HCIScanLoop {
    static let pollMilliseconds: Int32 = 100
    static let burstReads = 64

    static func run(_ device: any HCIController, adapter: String, active: Bool, watchdog: Double, logger: Logger,
                    control: ScanControl, handler: PacketHandler) throws(HCIError) {
        // A scan left enabled (by us or another tool) makes Set Scan Parameters fail with Command Disallowed.
        try? device.setScanEnable(false)
        try device.setScanParameters(active: active)
        try device.filterLEMetaEvents()
        try device.setScanEnable(true)
        logger.info("raw HCI scan started, duplicate filtering off", metadata: ["adapter": "\(adapter)", "scan": "\(active ? "active" : "passive")"])
        defer {
            do {
                try device.setScanEnable(false)
                logger.info("scanning disabled", metadata: ["adapter": "\(adapter)"])
            } catch {
                logger.error("could not disable scanning; the controller may keep scanning until `sudo hciconfig ADAPTER reset`", metadata: ["adapter": "\(adapter)", "error": "\(error)"])
            }
        }
        var buffer = [UInt8](repeating: 0, count: 1024)
        var lastPacket = monotonicClock()
        var restartedInThisSilence = false
        while !control.isStopping {
            // What the socket already holds joins the same batch (one hand-over per burst), up to
            // `burstReads` reads so a stream of other devices' events cannot hold reports back.
            var wait = pollMilliseconds
            var reads = 0
            while reads < burstReads, let packet = try device.readPacket(timeoutMilliseconds: wait, into: &buffer) {
                wait = 0
                reads += 1
                lastPacket = monotonicClock()
                restartedInThisSilence = false
                guard handler.packet(packet, wallClock()) else { break }
            }
            handler.flush()
            if monotonicClock() - lastPacket >= watchdog {
                try? device.setScanEnable(false)
                try device.setScanParameters(active: active)
                try device.setScanEnable(true)
                lastPacket = monotonicClock()
                // Once per silence: a quiet street repeats it every few seconds, and that is not news.
                if !restartedInThisSilence {
                    logger.notice("no advertisements on \(adapter) for \(watchdog) s: scanning enabled again (another program, e.g. `bikebeacon record` or `bluetoothctl scan off`, may have turned it off)",
                                  metadata: ["adapter": "\(adapter)"])
                }
                restartedInThisSilence = true
            }
        }
    }

    static func monotonicClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The moment the socket delivered a packet, as epoch seconds (the one clock read, at the edge).
    static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
