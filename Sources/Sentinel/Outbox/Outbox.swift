import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import SQLiteNIO

public enum OutboxError: Error, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case cannotEncode(id: UUID, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open the outbox database at \(path): \(reason); check that the state directory exists and is writable"
        case let .cannotEncode(id, reason):
            "cannot encode sighting \(id): \(reason)"
        }
    }
}

/// The durable queue between deciding a sighting and the server acknowledging it.
///
/// A sighting is committed here before anything is sent, and leaves only when the server has
/// acknowledged it, so a crash, a power cut or a server outage loses nothing; the server is
/// idempotent on the sighting id, so sending one twice after a crash is harmless.
///
/// SQLite in WAL mode with `synchronous=FULL`: every commit syncs the WAL, so a sighting that
/// `append` returned for survives power loss, not just a process kill. Sightings are rare
/// (a few per minute even in a busy place), so one fsync per sighting costs nothing that matters.
///
/// Bounded: past `maxRows` the oldest `present` rows are dropped with a warning (a later
/// `present` or the `departed` says the same). `arrived` and `departed` are never dropped: if
/// nothing but those is queued, the outbox grows past its limit and says so.
///
/// Every operation is a single SQL statement, hence atomic on its own; the actor's reentrancy
/// across awaits therefore cannot interleave half-done work.
public actor Outbox {
    private let connection: SQLiteConnection
    private let logger: Logger
    public let path: String
    public let maxRows: Int

    private init(connection: SQLiteConnection, path: String, maxRows: Int, logger: Logger) {
        self.connection = connection
        self.path = path
        self.maxRows = maxRows
        self.logger = logger
    }

    /// Opens (creating if needed) the outbox at `path`.
    public static func open(path: String, maxRows: Int = 10_000, logger: Logger = Logger(label: "bikebeacon.outbox")) async throws -> Outbox {
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        } catch {
            throw OutboxError.cannotOpen(path: path, reason: String(describing: error))
        }
        do {
            for statement in [
                "PRAGMA journal_mode = WAL",
                "PRAGMA synchronous = FULL",
                "PRAGMA busy_timeout = 5000",
                // `seq` is the rowid: a new row takes the largest plus one, so the queue keeps its
                // order. AUTOINCREMENT would also write its sqlite_sequence page on every commit.
                """
                CREATE TABLE IF NOT EXISTS outbox (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    event TEXT NOT NULL,
                    body TEXT NOT NULL
                )
                """,
                // Sightings the server refused and the sentinel could not repair: kept (never deleted
                // silently) for the operator, counted in `bikebeacon status`.
                """
                CREATE TABLE IF NOT EXISTS refused (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    reason TEXT NOT NULL,
                    body TEXT NOT NULL
                )
                """,
                // Earlier outboxes indexed (event, seq) for `trim`, which deletes only when the outbox
                // is full: a page more written per sighting on the SD card, for a scan of ≤ maxRows rows.
                "DROP INDEX IF EXISTS outbox_event_seq",
            ] {
                _ = try await connection.query(statement)
            }
        } catch {
            // Often the error is cancellation (SIGTERM during start-up), which the plain close would also obey.
            try? await closeEvenIfCancelled(connection)
            throw OutboxError.cannotOpen(path: path, reason: String(describing: error))
        }
        return Outbox(connection: connection, path: path, maxRows: max(1, maxRows), logger: logger)
    }

    /// Commits `sighting` durably. Appending the same id again changes nothing.
    public func append(_ sighting: Sighting) async throws {
        let body = try Self.body(sighting)
        _ = try await connection.query(
            "INSERT INTO outbox (id, event, body) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING",
            [.text(Self.key(sighting.id)), .text(sighting.event.rawValue), .text(body)]
        )
        try await trim()
    }

    /// Up to `limit` of the oldest queued sightings, oldest first; they stay queued.
    public func peek(limit: Int) async throws -> [Sighting] {
        let rows = try await connection.query(
            "SELECT id, body FROM outbox ORDER BY seq LIMIT ?", [.integer(max(0, limit))]
        )
        var sightings: [Sighting] = []
        var unreadable: [String] = []
        for row in rows {
            guard let id = row.column("id")?.string else { continue }
            if let body = row.column("body")?.string,
               let sighting = try? JSONDecoder().decode(Sighting.self, from: Data(body.utf8)) {
                sightings.append(sighting)
            } else {
                unreadable.append(id)
            }
        }
        if !unreadable.isEmpty {
            // A row we wrote but cannot read would block the queue forever; it can never be sent.
            logger.error("outbox rows are unreadable and were removed; the database file may be damaged",
                         metadata: ["ids": "\(unreadable)", "path": "\(path)"])
            _ = try await delete(keys: unreadable)
        }
        return sightings
    }

    /// Removes the acknowledged sightings; returns how many were queued.
    @discardableResult
    public func acknowledge(_ ids: some Sequence<UUID>) async throws -> Int {
        try await delete(keys: ids.map(Self.key))
    }

    /// Puts a repaired sighting (the same id) in place of the queued one, keeping its place in the queue.
    public func replace(_ sighting: Sighting) async throws {
        let body = try Self.body(sighting)
        _ = try await connection.query("UPDATE outbox SET body = ? WHERE id = ?", [.text(body), .text(Self.key(sighting.id))])
    }

    /// Moves a sighting the server refused for good out of the queue into `refused`, with the
    /// server's reason. Copied first, then removed: a crash in between leaves it queued, to be sent
    /// and refused again, never lost. The newest `maxRefused` are kept.
    public func refuse(_ id: UUID, reason: String) async throws {
        _ = try await connection.query(
            "INSERT INTO refused (id, reason, body) SELECT id, ?, body FROM outbox WHERE id = ? ON CONFLICT(id) DO UPDATE SET reason = excluded.reason",
            [.text(reason), .text(Self.key(id))]
        )
        _ = try await delete(keys: [Self.key(id)])
        _ = try await connection.query(
            "DELETE FROM refused WHERE seq <= (SELECT seq FROM refused ORDER BY seq DESC LIMIT 1 OFFSET ?)", [.integer(Self.maxRefused)]
        )
    }

    /// How many refused sightings to keep.
    public static let maxRefused = 1000

    /// The refused sightings kept, and the newest one's reason.
    public func refused() async throws -> (count: Int, newestReason: String?) {
        let count = try await connection.query("SELECT count(*) AS n FROM refused").first?.column("n")?.integer ?? 0
        let newest = try await connection.query("SELECT reason FROM refused ORDER BY seq DESC LIMIT 1").first?.column("reason")?.string
        return (count, newest)
    }

    /// Sightings queued now.
    public func count() async throws -> Int {
        let rows = try await connection.query("SELECT count(*) AS n FROM outbox")
        return rows.first?.column("n")?.integer ?? 0
    }

    /// Queued sightings per event kind.
    public func counts() async throws -> [SightingEvent: Int] {
        let rows = try await connection.query("SELECT event, count(*) AS n FROM outbox GROUP BY event")
        var result: [SightingEvent: Int] = [:]
        for row in rows {
            if let event = row.column("event")?.string.flatMap(SightingEvent.init(rawValue:)) {
                result[event] = row.column("n")?.integer ?? 0
            }
        }
        return result
    }

    /// Closes the database, even when the calling task is cancelled (as on SIGTERM).
    public func close() async throws {
        try await Self.closeEvenIfCancelled(connection)
    }

    /// The thread pool refuses work for a cancelled task, so a plain `close()` there would leave
    /// the handle open (and trip SQLiteNIO's assertion when the connection is freed).
    static func closeEvenIfCancelled(_ connection: SQLiteConnection) async throws {
        try await Task { try await connection.close() }.value
    }

    private func delete(keys: [String]) async throws -> Int {
        var deleted = 0
        var start = keys.startIndex
        while start < keys.endIndex {
            let chunk = keys[start..<min(start + 500, keys.endIndex)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try await connection.query(
                "DELETE FROM outbox WHERE id IN (\(placeholders)) RETURNING id", chunk.map { .text($0) }
            )
            deleted += rows.count
            start = chunk.endIndex
        }
        return deleted
    }

    /// Drops the oldest `present` rows beyond the limit, in one statement.
    private func trim() async throws {
        let dropped = try await connection.query(
            """
            DELETE FROM outbox WHERE seq IN (
                SELECT seq FROM outbox WHERE event = 'present' ORDER BY seq
                LIMIT max(0, (SELECT count(*) FROM outbox) - ?)
            ) RETURNING id
            """,
            [.integer(maxRows)]
        )
        if !dropped.isEmpty {
            logger.warning("outbox full: dropped the oldest 'present' sightings; is the server reachable?",
                           metadata: ["dropped": "\(dropped.count)", "limit": "\(maxRows)"])
        }
        let total = try await count()
        if total > maxRows {
            logger.warning("outbox holds only arrivals and departures and is over its limit; they are kept, none is dropped",
                           metadata: ["queued": "\(total)", "limit": "\(maxRows)"])
        }
    }

    private static func key(_ id: UUID) -> String { id.uuidString.lowercased() }

    /// A sighting as a row stores it: its wire form.
    private static func body(_ sighting: Sighting) throws -> String {
        do {
            return String(decoding: try JSONEncoder().encode(sighting), as: UTF8.self)
        } catch {
            throw OutboxError.cannotEncode(id: sighting.id, reason: String(describing: error))
        }
    }
}
