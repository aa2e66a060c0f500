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
/// was lost) or rejected. A per-item rejection is the server's verdict on that item's content
/// (malformed, or a beacon no longer on the missing list because the bike was recovered);
/// sending the same bytes again cannot change it, so it is logged and deleted too. Anything
/// else (no answer, a timeout, 429, 5xx, a refused token) keeps the whole batch queued, and the
/// reporter backs off exponentially with jitter. Retrying is safe because the server is
/// idempotent on the sighting id.
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
    public private(set) var rejected = 0
    /// When the server last acknowledged a batch (epoch seconds); nil if never since start.
    public private(set) var lastDeliveryAt: Double?

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
            for rejection in receipt.rejected {
                logger.warning("the server refused a sighting; it will not be sent again",
                               metadata: ["id": "\(rejection.id)", "reason": "\(rejection.reason)"])
            }
            do {
                try await outbox.acknowledge(batch.map(\.id))
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
            rejected += receipt.rejected.count
        }
        return .drained(sent: sent)
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
