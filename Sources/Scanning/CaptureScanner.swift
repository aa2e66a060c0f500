import Beacon
import Captures
import Logging
import Synchronization

/// Replays a capture file (btsnoop, pcap or pcapng) as a `Scanner`.
///
/// Pull-based: each `next()` of the stream reads only as far as the next `ScanBatch.limit`
/// iBeacon reports, so a slow consumer never makes the whole file pile up in memory. Damage ends the stream with the
/// `CaptureError` that names the byte offset, after every valid report before it.
public final class CaptureScanner: Scanner {
    public let path: String
    private let logger: Logger
    private let totals = SharedCounts()

    public init(path: String, logger: Logger = Logger(label: "bikebeacon.capture")) {
        self.path = path
        self.logger = logger
    }

    public func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        let session = CaptureSession(path: path, logger: logger, totals: totals)
        return AsyncThrowingStream(unfolding: { () async throws -> [Advertisement]? in
            if Task.isCancelled { return nil }
            return try session.next()
        })
    }

    public func counts() async -> ScanCounts { totals.current }
}

/// One pass over the file; the stream's unfolding closure drives it.
private final class CaptureSession: Sendable {
    struct State {
        var reader: CaptureReader<FileBytes>?
        var started = false
        var decoder = AdvertisementDecoder()
        var pending: [Advertisement] = []
        /// Damage found while reports before it were still pending: thrown once they are delivered.
        var failure: CaptureError?

        mutating func takeBatch() -> [Advertisement] {
            guard pending.count > ScanBatch.limit else {
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            defer { pending.removeFirst(ScanBatch.limit) }
            return Array(pending.prefix(ScanBatch.limit))
        }
    }

    private let path: String
    private let logger: Logger
    private let state = Mutex(State())
    private let totals: SharedCounts

    init(path: String, logger: Logger, totals: SharedCounts) {
        self.path = path
        self.logger = logger
        self.totals = totals
    }

    /// The next batch of iBeacon reports, nil at the end of the capture.
    func next() throws(CaptureError) -> [Advertisement]? {
        try state.withLock { (s: inout State) throws(CaptureError) -> [Advertisement]? in
            defer { totals.set(s.decoder.counts) }
            if let failure = s.failure, s.pending.isEmpty {
                s.failure = nil
                throw failure
            }
            do throws(CaptureError) {
                if !s.started {
                    s.started = true
                    s.reader = try CaptureReader(FileBytes(path: path))
                }
                while s.pending.count < ScanBatch.limit, s.reader != nil {
                    guard let packet = try s.reader?.next() else {
                        if let skipped = s.reader?.skippedPackets, skipped > 0 {
                            logger.info("skipped packets on links that are not Bluetooth HCI", metadata: ["capture": "\(path)", "skipped": "\(skipped)"])
                        }
                        s.reader = nil
                        break
                    }
                    let error = s.decoder.decode(h4: packet.h4, time: packet.time) { s.pending.append($0) }
                    if let error {
                        logger.warning("skipped a malformed HCI event", metadata: ["capture": "\(path)", "offset": "\(packet.offset)", "error": "\(error)"])
                    }
                }
            } catch {
                s.decoder.countError()
                s.reader = nil
                // Every valid report before the damage is delivered first; the error comes after them.
                guard s.pending.isEmpty else {
                    s.failure = error
                    return s.takeBatch()
                }
                throw error
            }
            return s.pending.isEmpty ? nil : s.takeBatch()
        }
    }
}
