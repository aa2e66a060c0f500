#if canImport(Glibc)
import Glibc
#endif
import BikebeaconAPI
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import ServerClient

/// Moves sightings from the outbox to the server, deleting only what the server acknowledged.
///
/// Acknowledged means the server answered 200 for the batch: it then has processed every item,
/// each being accepted (stored now), a duplicate (stored before: an earlier send whose answer
/// was lost) or rejected. A per-item rejection is the server's verdict on that item's content;
/// sending the same bytes again cannot change it. When it names a position field (a fix time the
/// server finds impossible, a fix from a sentinel it knows at a fixed place), the sighting is
/// still a sighting without that position: it is repaired in the outbox and sent again. Any other
/// rejection (a time out of range, a beacon no longer on the missing list because the bike was
/// recovered) moves it to the outbox's `refused` table, counted with its reason in `bikebeacon
/// status`: never deleted silently. Anything else (no answer, a timeout, 429, 5xx, a refused
/// token) keeps the whole batch queued, and the reporter backs off exponentially with jitter.
/// Retrying is safe because the server is idempotent on the sighting id.
public actor Reporter {
    public struct Configuration: Sendable {
        public var batchSize: Int
        public var backoff: Backoff
        /// How often an idle reporter looks at the outbox, seconds.
        public var pollInterval: Double

        public init(batchSize: Int = 100, backoff: Backoff = Backoff(), pollInterval: Double = 1) {
            self.batchSize = max(1, min(batchSize, 500))
            self.backoff = backoff
            self.pollInterval = pollInterval
        }
    }

    public enum Pass: Equatable, Sendable {
        /// Everything queued was acknowledged; `sent` sightings went out.
        case drained(sent: Int)
        /// The server could not take a batch; `sent` went out before that.
        case failed(sent: Int, reason: String)
    }

    private let outbox: Outbox
    private let transport: any SightingTransport
    private let configuration: Configuration
    private let logger: Logger
    public private(set) var consecutiveFailures = 0
    public private(set) var delivered = 0
    /// Sightings the server refused for good (kept in the outbox's `refused` table).
    public private(set) var rejected = 0
    /// When the server last acknowledged a batch (epoch seconds); nil if never since start.
    public private(set) var lastDeliveryAt: Double?
    /// Sightings sent again without the position the server refused.
    public private(set) var repaired = 0

    public init(outbox: Outbox, transport: any SightingTransport, configuration: Configuration = .init(),
                logger: Logger = Logger(label: "bikebeacon.reporter")) {
        self.outbox = outbox
        self.transport = transport
        self.configuration = configuration
        self.logger = logger
    }

    /// Sends batches until the outbox is empty or a batch fails.
    public func drain() async -> Pass {
        var sent = 0
        while true {
            let batch: [Sighting]
            do {
                batch = try await outbox.peek(limit: configuration.batchSize)
            } catch {
                return fail(sent: sent, reason: "cannot read the outbox: \(error)")
            }
            if batch.isEmpty { break }
            let receipt: SightingResult
            do {
                receipt = try await transport.send(batch)
            } catch {
                return fail(sent: sent, reason: "\(error)", needsOperator: (error as? ServerError)?.isTransient == false)
            }
            let settled: Settled
            do {
                settled = try await settle(batch, receipt.rejected)
            } catch {
                return fail(sent: sent, reason: "cannot update the outbox: \(error)")
            }
            if consecutiveFailures > 0 {
                logger.info("the server takes sightings again", metadata: ["afterFailures": "\(consecutiveFailures)"])
            }
            consecutiveFailures = 0
            lastDeliveryAt = Date().timeIntervalSince1970
            sent += batch.count
            delivered += receipt.accepted + receipt.duplicates
            rejected += settled.refused
            repaired += settled.repaired
        }
        return .drained(sent: sent)
    }

    private struct Settled {
        var repaired = 0
        var refused = 0
    }

    /// Applies the server's answer to a batch: acknowledged sightings leave the outbox, those refused
    /// for their position are queued again without it, the rest are kept as refused.
    private func settle(_ batch: [Sighting], _ rejections: [Rejection]) async throws -> Settled {
        let verdicts = Dictionary(rejections.map { ($0.id.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var settled = Settled()
        var acknowledged: [UUID] = []
        for sighting in batch {
            guard let rejection = verdicts[sighting.id.uuidString.lowercased()] else {
                acknowledged.append(sighting.id)
                continue
            }
            let metadata: Logger.Metadata = ["id": "\(rejection.id)", "reason": "\(rejection.reason)", "field": "\(rejection.field ?? "-")"]
            if rejection.isAboutPosition, let repaired = sighting.withoutPosition {
                logger.warning("the server refused a sighting's position; it is sent again without it", metadata: metadata)
                try await outbox.replace(repaired)
                settled.repaired += 1
            } else {
                logger.warning("the server refused a sighting; it is kept in the outbox's 'refused' table ('bikebeacon status' counts them)",
                               metadata: metadata)
                try await outbox.refuse(sighting.id, reason: rejection.reason)
                settled.refused += 1
            }
        }
        try await outbox.acknowledge(acknowledged)
        return settled
    }

    /// Drains whenever there is something queued, backing off after failures, until cancelled.
    public func run(sleep: @escaping @Sendable (Double) async throws -> Void,
                    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) async {
        while !Task.isCancelled {
            let wait: Double
            switch await drain() {
            case .drained:
                wait = configuration.pollInterval
            case .failed:
                wait = configuration.backoff.delay(afterFailures: consecutiveFailures, random: random()) ?? configuration.backoff.maximum
            }
            do {
                try await sleep(wait)
            } catch {
                return
            }
        }
    }

    /// `needsOperator`: the server refuses us (bad token, bad request) rather than being away;
    /// retrying alone will not help, so it is logged as an error now and then, not just once.
    private func fail(sent: Int, reason: String, needsOperator: Bool = false) -> Pass {
        // Shutting down is not the server's fault.
        if Task.isCancelled { return .failed(sent: sent, reason: "cancelled") }
        consecutiveFailures += 1
        let metadata: Logger.Metadata = ["error": "\(reason)", "consecutiveFailures": "\(consecutiveFailures)"]
        if needsOperator, consecutiveFailures % 10 == 1 {
            logger.error("the server refuses the sentinel's sightings; they stay queued until this is fixed", metadata: metadata)
        } else if consecutiveFailures == 1 {
            logger.warning("cannot deliver sightings; they stay queued and will be retried", metadata: metadata)
        } else {
            logger.debug("delivery still failing", metadata: metadata)
        }
        return .failed(sent: sent, reason: reason)
    }
}
