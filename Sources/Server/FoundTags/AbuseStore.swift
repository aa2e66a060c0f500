import Beacon
import BikebeaconAPI
import Foundation
import SQLKit

/// One report of a tag found hidden on someone, as the operator reviews it.
public struct AbuseReport: Sendable, Equatable {
    /// The reference the reporter was given, `ar_…`.
    public var id: String
    public var bikeID: String
    public var ownerID: String
    /// The owner's e-mail when the report was made: still readable after the account is closed.
    public var ownerEmail: String
    public var beacon: BeaconID
    /// Whether the bike was on the missing list when it was frozen.
    public var wasMissing: Bool
    public var message: String
    public var contact: String
    /// The reporter's client address key (`ClientAddress`).
    public var client: String
    public var createdMilliseconds: Int64
    /// `open`, `released` (the operator lifted the freeze) or `closed` (the owner's account was closed).
    public var status: String
    public var resolvedMilliseconds: Int64?
}

/// Reports of hidden tags (#35). An open report freezes its bike: the bike leaves the missing list in the
/// report's own transaction (so sentinels drop it at their next refresh, delta or full, and sightings of it are
/// refused from then on: `SightingStore` stores only missing bikes'), its share links stop, and the owner cannot
/// mark it missing again (`BikeStore.setMissing`) until the operator releases it. A report matches its bike by id
/// and by beacon, so neither deleting the bike and adding the tag again nor moving the tag to another bike escapes it.
public struct AbuseStore: Sendable {
    let database: Database
    let missingList: MissingListStore

    public init(database: Database, deltaRetention: Int64 = ServerOptions.defaultDeltaRetention) {
        self.database = database
        missingList = MissingListStore(database: database, retention: deltaRetention)
    }

    static let prefix = "ar_"

    /// A SQL condition on a row of `bikes` (unaliased): an open report names this bike or its beacon.
    static let openOnBike = """
        EXISTS (SELECT 1 FROM abuse_reports r WHERE r.status = 'open' AND (r.bike_id = bikes.id
          OR (r.beacon_uuid = bikes.beacon_uuid AND r.beacon_major = bikes.beacon_major AND r.beacon_minor = bikes.beacon_minor)))
        """

    static let underReview = APIError(.conflict, "under_review",
        "this bike is under review: someone reported its tag hidden on them, so it cannot be marked missing until the network's operator has looked at the report; write to the operator if you think this is wrong")

    /// Freezes the bike that carries `beacon` and records the report; nil when no bike carries it.
    /// `operatorEmails` each get a mail through the delivery worker.
    func report(beacon: BeaconID, message: String, contact: String, client: String, operatorEmails: [String],
                now: Int64) async throws -> String? {
        let id = Self.prefix + Tokens.id()
        let lock = database.flavor == .postgres ? " FOR UPDATE OF b" : ""
        return try await database.transaction { db in
            guard let row = try await db.raw("""
                SELECT b.id, b.owner_id, b.missing_since_ms, a.email FROM bikes b JOIN accounts a ON a.id = b.owner_id
                WHERE b.beacon_uuid = \(bind: beacon.uuid.uuidString) AND b.beacon_major = \(bind: Int(beacon.major))
                  AND b.beacon_minor = \(bind: Int(beacon.minor))\(unsafeRaw: lock)
                """).first() else { return nil }
            let bikeID = try row.decode(column: "id", as: String.self)
            let wasMissing = try row.decode(column: "missing_since_ms", as: Int64?.self) != nil
            try await db.raw("""
                INSERT INTO abuse_reports (id, bike_id, owner_id, owner_email, beacon_uuid, beacon_major, beacon_minor, was_missing,
                  message, contact, client, created_ms, status, resolved_ms)
                VALUES (\(bind: id), \(bind: bikeID), \(bind: try row.decode(column: "owner_id", as: String.self)),
                  \(bind: try row.decode(column: "email", as: String.self)), \(bind: beacon.uuid.uuidString), \(bind: Int(beacon.major)),
                  \(bind: Int(beacon.minor)), \(bind: wasMissing ? 1 : 0), \(bind: message), \(bind: contact), \(bind: client),
                  \(bind: now), 'open', NULL)
                """).run()
            if wasMissing {
                try await db.raw("""
                    UPDATE bikes SET missing_since_ms = NULL, missing_until_ms = NULL, missing_reminded_ms = NULL, updated_ms = \(bind: now)
                    WHERE id = \(bind: bikeID)
                    """).run()
                try await missingList.recordChange(of: [beacon], in: db)
            }
            // Nothing more of the bike's whereabouts goes out: its links stop, and sightings held back for a summary are dropped.
            try await ShareStore.revokeAll(bikeID: bikeID, now: now, in: db)
            try await db.raw("UPDATE notification_windows SET pending = NULL WHERE bike_id = \(bind: bikeID)").run()
            for address in operatorEmails {
                try await db.raw("""
                    INSERT INTO abuse_mails (report_id, address, attempts, next_attempt_ms, created_ms)
                    VALUES (\(bind: id), \(bind: address), 0, \(bind: now), \(bind: now))
                    """).run()
            }
            return id
        }
    }

    /// Reports, newest first: the open ones, or all with `all`.
    public func list(all: Bool = false) async throws -> [AbuseReport] {
        try await database.withSession { db in
            try await db.raw("""
                SELECT * FROM abuse_reports \(unsafeRaw: all ? "" : "WHERE status = 'open'") ORDER BY created_ms DESC, id
                """).all().map(Self.report)
        }
    }

    public func find(id: String) async throws -> AbuseReport? {
        try await database.withSession { db in try await find(id: id, in: db) }
    }

    func find(id: String, in db: any SQLDatabase) async throws -> AbuseReport? {
        try await db.raw("SELECT * FROM abuse_reports WHERE id = \(bind: id)").first().map(Self.report)
    }

    /// Lifts the freeze of an open report. The bike stays off the missing list: its owner marks it missing again
    /// if it still is, which starts a new missing period. Another open report on the same bike keeps it frozen.
    public func release(id: String, now: Int64) async throws -> AbuseReport {
        try await database.transaction { db in
            let report = try await openReport(id: id, in: db)
            try await db.raw("UPDATE abuse_reports SET status = 'released', resolved_ms = \(bind: now) WHERE id = \(bind: report.id)").run()
            return report
        }
    }

    /// Closes the account of the report's bike owner: their bikes (and with them sightings and share links) and
    /// sessions are deleted, missing bikes leave the list, and every open report on that owner is closed.
    /// Returns the account's e-mail; open streams of it on other replicas close (PostgreSQL `NOTIFY`).
    public func closeAccount(reportID: String, now: Int64) async throws -> String {
        try await database.transaction { db in
            guard let report = try await find(id: reportID, in: db) else { throw Self.noReport(reportID) }
            guard try await db.raw("SELECT id FROM accounts WHERE id = \(bind: report.ownerID)").first() != nil else {
                throw AbuseError("the account of '\(report.ownerEmail)' (report \(report.id)) is already gone")
            }
            try await AccountData.delete(accountID: report.ownerID, missingList: missingList, in: db)
            try await db.raw("""
                UPDATE abuse_reports SET status = 'closed', resolved_ms = \(bind: now) WHERE owner_id = \(bind: report.ownerID) AND status = 'open'
                """).run()
            return report.ownerEmail
        }
    }

    private func openReport(id: String, in db: any SQLDatabase) async throws -> AbuseReport {
        guard let report = try await find(id: id, in: db) else { throw Self.noReport(id) }
        guard report.status == "open" else {
            throw AbuseError("report \(id) is \(report.status) already; `abuse list --all` shows every report")
        }
        return report
    }

    static func noReport(_ id: String) -> AbuseError {
        AbuseError("no report '\(id)'; `bikebeacon-server abuse list` shows the open ones")
    }

    static func report(_ row: any SQLRow) throws -> AbuseReport {
        guard let beacon = try MissingListStore.beacon(row) else { throw StorageError.corruptRow("abuse_reports row holds an invalid beacon") }
        return AbuseReport(
            id: try row.decode(column: "id", as: String.self),
            bikeID: try row.decode(column: "bike_id", as: String.self),
            ownerID: try row.decode(column: "owner_id", as: String.self),
            ownerEmail: try row.decode(column: "owner_email", as: String.self),
            beacon: beacon,
            wasMissing: try row.decode(column: "was_missing", as: Int.self) != 0,
            message: try row.decode(column: "message", as: String.self),
            contact: try row.decode(column: "contact", as: String.self),
            client: try row.decode(column: "client", as: String.self),
            createdMilliseconds: try row.decode(column: "created_ms", as: Int64.self),
            status: try row.decode(column: "status", as: String.self),
            resolvedMilliseconds: try row.decode(column: "resolved_ms", as: Int64?.self))
    }
}

/// An operator command on a report that cannot be done, saying what to do instead.
public struct AbuseError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
