import Logging

/// The sighting committer: each sighting made is logged and counted, and written to the outbox in the order it
/// was made, or held in memory while the outbox cannot take it (a full disk must not stop the sentinel).
struct SightingCommitter {
    private var pending: PendingSightings
    private var warnedDropping = false
    private let append: @Sendable (Sighting) async throws -> Void
    /// The outbox's file, for the log.
    private let path: String
    private let logger: Logger
    /// Sightings made since the start, written or not.
    private(set) var created = 0

    init(outbox: Outbox, limit: Int, logger: Logger) {
        self.init(path: outbox.path, limit: limit, logger: logger) { try await outbox.append($0) }
    }

    /// `append`: writes one sighting to the outbox at `path`.
    init(path: String, limit: Int, logger: Logger, append: @escaping @Sendable (Sighting) async throws -> Void) {
        pending = PendingSightings(limit: limit)
        self.append = append
        self.path = path
        self.logger = logger
    }

    /// Sightings held in memory, waiting for the outbox.
    var held: [Sighting] { pending.held }

    mutating func commit(_ sightings: [Sighting]) async {
        for sighting in sightings {
            created += 1
            logger.info("sighting", metadata: ["event": "\(sighting.event.rawValue)", "beacon": "\(sighting.beacon)",
                                               "zone": "\(sighting.zone.rawValue)", "rssi": "\(sighting.rssi)", "id": "\(sighting.id)"])
        }
        if !sightings.isEmpty || !pending.held.isEmpty { await write(sightings) }
    }

    /// At the end: the held sightings get a last try; what is still held is lost, and the log says so.
    mutating func finish() async {
        if !pending.held.isEmpty { await write([]) }
        if !pending.held.isEmpty {
            logger.error("sightings held in memory could not be written to the outbox before the end and are lost",
                         metadata: ["lost": "\(pending.held.count)", "outbox": "\(path)"])
        }
    }

    /// Into the outbox, or held; the log has a line when holding starts or ends, and the first time some are dropped.
    private mutating func write(_ sightings: [Sighting]) async {
        let dropped = pending.dropped
        switch await pending.commit(sightings, append: append) {
        case .none:
            break
        case let .startedHolding(error):
            logger.error("cannot write to the outbox; new sightings are held in memory and written as soon as it takes writes again: is the state directory's disk full?",
                         metadata: ["error": "\(error)", "outbox": "\(path)", "held": "\(pending.held.count)",
                                    "heldAtMost": "\(pending.limit)"])
        case let .resumed(written):
            warnedDropping = false
            logger.notice("the outbox takes writes again; the sightings held in memory are written", metadata: ["written": "\(written)"])
        }
        if pending.dropped > dropped, !warnedDropping {
            warnedDropping = true
            logger.warning("too many sightings held in memory while the outbox cannot be written; the oldest 'present' ones are dropped",
                           metadata: ["held": "\(pending.held.count)", "dropped": "\(pending.dropped)"])
        }
    }
}
