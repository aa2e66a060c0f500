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
    /// Whether the bike was on the missing list when it was reported.
    public var wasMissing: Bool
    public var message: String
    public var contact: String
    /// The reporter's client address key (`ClientAddress`).
    public var client: String
    public var createdMilliseconds: Int64
    /// `open` (its case seals the bike), `held` (past the breaker: waits for the operator, seals nothing),
    /// `released`, `closed` (genuine: recording ended, sealed sightings kept for the police) or `dismissed`.
    public var status: String
    public var resolvedMilliseconds: Int64?
    /// The case the report belongs to: the id of the report that sealed the bike; nil while held or once dismissed.
    public var caseID: String?
    /// When the case's sealed sightings were deleted (`abuse purge`, or the retention's end).
    public var purgedMilliseconds: Int64?
    /// How the owner was told to reach the operator (`serve --operator-email`), for the notices at the case's end.
    public var operatorContact: String?
}

/// Reports of hidden tags (#35, #43). A report **seals**, never destroys: the bike stays on the missing list, its
/// sightings are still stored but each under the case that sealed it, out of every owner-facing read
/// (`SightingSeal`), its share links pause, and the owner is told (`ReviewNotice`). The seal is one conditional
/// update of `bikes.sealed_case` under the bike's row lock, so two reports (or a report and a release) on two
/// replicas seal once; a later report joins the open case. Past `breakerPerHour` reports network-wide in the last
/// hour, a report is `held` for the operator instead of sealing (`abuse seal` or `abuse dismiss`).
public struct AbuseStore: Sendable {
    let database: Database
    let missingList: MissingListStore
    /// Queues the owner's notices. The operator's commands queue on every channel: the server sends those it can.
    let notifications: NotificationDispatcher

    public init(database: Database, deltaRetention: Int64 = ServerOptions.defaultDeltaRetention) {
        self.database = database
        missingList = MissingListStore(database: database, retention: deltaRetention)
        notifications = NotificationDispatcher(interval: 0, channels: Set(NotificationChannel.allCases), flavor: database.flavor)
    }

    static let prefix = "ar_"
    /// The PostgreSQL advisory lock that serialises the breaker's count and the report it lets through.
    static let breakerLock = 4_343_043

    /// A SQL condition on a row of `bikes` (unaliased): a case closed as genuine names this bike or its beacon, so
    /// its owner cannot put it back on the missing list.
    static let closedOnBike = """
        EXISTS (SELECT 1 FROM abuse_reports r WHERE r.status = 'closed' AND (r.bike_id = bikes.id
          OR (r.beacon_uuid = bikes.beacon_uuid AND r.beacon_major = bikes.beacon_major AND r.beacon_minor = bikes.beacon_minor)))
        """

    static let closedCase = APIError(.conflict, "case_closed",
        "the network's operator closed a report about this bike's tag: it cannot go on the missing list again; write to the operator if you think this is wrong")

    /// What a report did.
    struct Outcome: Sendable, Equatable {
        var reference: String
        /// The bike's owner, told of the seal; nil when the report was held or joined an open case.
        var sealedOwner: String?
        var held: Bool
    }

    /// Records a report of the bike that carries `beacon` and seals it, or holds the report past the breaker;
    /// nil when no bike carries it. `operatorEmails` each get a mail; `operatorContact` is what the owner is told.
    func report(beacon: BeaconID, message: String, contact: String, client: String, operatorEmails: [String], operatorContact: String?,
                breakerPerHour: Int, notifications: NotificationDispatcher, now: Int64) async throws -> Outcome? {
        let id = Self.prefix + Tokens.id()
        let lock = database.flavor == .postgres ? " FOR UPDATE OF b" : ""
        return try await database.transaction { db in
            guard let row = try await db.raw("""
                SELECT b.id, b.owner_id, b.missing_since_ms, a.email FROM bikes b JOIN accounts a ON a.id = b.owner_id
                WHERE b.beacon_uuid = \(bind: beacon.uuid.uuidString) AND b.beacon_major = \(bind: Int(beacon.major))
                  AND b.beacon_minor = \(bind: Int(beacon.minor))\(unsafeRaw: lock)
                """).first() else { return nil }
            let bikeID = try row.decode(column: "id", as: String.self)
            // Reports count against the breaker one at a time across replicas (taken after the bike's lock, never before).
            if database.flavor == .postgres { try await db.raw("SELECT pg_advisory_xact_lock(\(bind: Self.breakerLock))").run() }
            let lastHour = try await db.raw("SELECT COUNT(*) AS n FROM abuse_reports WHERE created_ms > \(bind: now - 3_600_000)")
                .first()?.decode(column: "n", as: Int.self) ?? 0
            let held = lastHour >= breakerPerHour
            try await db.raw("""
                INSERT INTO abuse_reports (id, bike_id, owner_id, owner_email, beacon_uuid, beacon_major, beacon_minor, was_missing,
                  message, contact, client, created_ms, status, resolved_ms, case_id, operator_contact)
                VALUES (\(bind: id), \(bind: bikeID), \(bind: try row.decode(column: "owner_id", as: String.self)),
                  \(bind: try row.decode(column: "email", as: String.self)), \(bind: beacon.uuid.uuidString), \(bind: Int(beacon.major)),
                  \(bind: Int(beacon.minor)), \(bind: try row.decode(column: "missing_since_ms", as: Int64?.self) != nil ? 1 : 0),
                  \(bind: message), \(bind: contact), \(bind: client), \(bind: now), \(bind: held ? "held" : "open"), NULL, NULL,
                  \(bind: operatorContact))
                """).run()
            var owner: String?
            if !held { owner = try await seal(reportID: id, bikeID: bikeID, notifications: notifications, now: now, in: db) }
            for address in operatorEmails {
                try await db.raw("""
                    INSERT INTO abuse_mails (report_id, address, attempts, next_attempt_ms, created_ms)
                    VALUES (\(bind: id), \(bind: address), 0, \(bind: now), \(bind: now))
                    """).run()
            }
            return Outcome(reference: id, sealedOwner: owner, held: held)
        }
    }

    /// Seals the bike under the report's case, once: the conditional update makes this report the case when the
    /// bike is not sealed yet, else it joins the open case. Returns the owner when this call sealed (they are told).
    private func seal(reportID: String, bikeID: String, notifications: NotificationDispatcher, now: Int64,
                      in db: any SQLDatabase) async throws -> String? {
        let sealed = try await db.raw("""
            UPDATE bikes SET sealed_case = \(bind: reportID) WHERE id = \(bind: bikeID) AND sealed_case IS NULL RETURNING owner_id, name
            """).first()
        if let sealed {
            try await db.raw("UPDATE abuse_reports SET status = 'open', case_id = \(bind: reportID) WHERE id = \(bind: reportID)").run()
            try await SightingSeal.stopDisclosure(bikeID: bikeID, now: now, in: db)
            let owner = try sealed.decode(column: "owner_id", as: String.self)
            let report = try await find(id: reportID, in: db)
            try await ReviewNotice.tell(.reviewStarted, bikeID: bikeID, bikeName: try sealed.decode(column: "name", as: String.self),
                                        owner: owner, operatorContact: report?.operatorContact, notifications: notifications, now: now, in: db)
            return owner
        }
        try await db.raw("""
            UPDATE abuse_reports SET status = 'open', case_id = (SELECT sealed_case FROM bikes WHERE id = \(bind: bikeID))
            WHERE id = \(bind: reportID)
            """).run()
        return nil
    }

    /// Reports, newest first: the open and held ones, or all with `all`.
    public func list(all: Bool = false) async throws -> [AbuseReport] {
        try await database.withSession { db in
            try await db.raw("""
                SELECT * FROM abuse_reports \(unsafeRaw: all ? "" : "WHERE status IN ('open', 'held')") ORDER BY created_ms DESC, id
                """).all().map(Self.report)
        }
    }

    public func find(id: String) async throws -> AbuseReport? {
        try await database.withSession { db in try await find(id: id, in: db) }
    }

    func find(id: String, in db: any SQLDatabase) async throws -> AbuseReport? {
        try await db.raw("SELECT * FROM abuse_reports WHERE id = \(bind: id)").first().map(Self.report)
    }

    /// Seals the bike of a held report (the breaker held it): as if it had come in now.
    public func seal(id: String, now: Int64) async throws -> AbuseReport {
        try await database.transaction { db in
            guard let report = try await find(id: id, in: db) else { throw Self.noReport(id) }
            guard report.status == "held" else {
                throw AbuseError("report \(id) is \(report.status), not held; only a report the breaker held waits for `abuse seal`")
            }
            if database.flavor == .postgres { try await db.raw("SELECT id FROM bikes WHERE id = \(bind: report.bikeID) FOR UPDATE").run() }
            guard try await db.raw("SELECT id FROM bikes WHERE id = \(bind: report.bikeID)").first() != nil else {
                throw AbuseError("the bike of report \(id) is gone (deleted with its account); `abuse dismiss \(id)` clears the report")
            }
            _ = try await seal(reportID: id, bikeID: report.bikeID, notifications: notifications, now: now, in: db)
            return try await find(id: id, in: db) ?? report
        }
    }

    /// Dismisses a held report: it never sealed anything.
    public func dismiss(id: String, now: Int64) async throws -> AbuseReport {
        try await database.transaction { db in
            guard let report = try await find(id: id, in: db) else { throw Self.noReport(id) }
            guard report.status == "held" else {
                throw AbuseError("report \(id) is \(report.status), not held; an open case ends with `abuse release` or `abuse close`")
            }
            try await db.raw("UPDATE abuse_reports SET status = 'dismissed', resolved_ms = \(bind: now) WHERE id = \(bind: id)").run()
            return report
        }
    }

    /// Ends the report's case, `released` (the owner sees its sealed sightings, marked held for review) or `closed`
    /// (genuine stalking: the bike leaves the missing list and stays off it; its sealed sightings stay for the police).
    /// Every report of the case ends with it; the owner is told. Unsealing is one conditional update of the bike,
    /// so a release and a report at once on two replicas leave the bike sealed by exactly one case.
    public func end(id: String, closing: Bool, now: Int64) async throws -> AbuseReport {
        try await database.transaction { db in
            guard let report = try await find(id: id, in: db) else { throw Self.noReport(id) }
            guard report.status == "open", let caseID = report.caseID else {
                throw AbuseError("report \(id) is \(report.status), not open; `abuse list --all` shows every report")
            }
            let status = closing ? "closed" : "released"
            // The sealed bikes' row locks first: a report in flight on another replica (which holds its bike's lock from
            // its first read) commits before this reads the case's reports, so none joins a case as it ends.
            if database.flavor == .postgres {
                try await db.raw("SELECT id FROM bikes WHERE sealed_case = \(bind: caseID) FOR UPDATE").run()
            }
            try await db.raw("""
                UPDATE abuse_reports SET status = \(bind: status), resolved_ms = \(bind: now) WHERE case_id = \(bind: caseID) AND status = 'open'
                """).run()
            let bikes = try await db.raw("""
                UPDATE bikes SET sealed_case = NULL WHERE sealed_case = \(bind: caseID)
                RETURNING id, owner_id, name, missing_since_ms, beacon_uuid, beacon_major, beacon_minor
                """).all()
            for bike in bikes {
                let bikeID = try bike.decode(column: "id", as: String.self)
                if closing, try bike.decode(column: "missing_since_ms", as: Int64?.self) != nil {
                    try await db.raw("""
                        UPDATE bikes SET missing_since_ms = NULL, missing_until_ms = NULL, missing_reminded_ms = NULL, updated_ms = \(bind: now)
                        WHERE id = \(bind: bikeID)
                        """).run()
                    if let beacon = try MissingListStore.beacon(bike) { try await missingList.recordChange(of: [beacon], in: db) }
                    try await ShareStore.revokeAll(bikeID: bikeID, now: now, in: db)
                }
                try await ReviewNotice.tell(closing ? .reviewClosed : .reviewReleased, bikeID: bikeID,
                                            bikeName: try bike.decode(column: "name", as: String.self),
                                            owner: try bike.decode(column: "owner_id", as: String.self),
                                            operatorContact: report.operatorContact, notifications: notifications, now: now, in: db)
            }
            return try await find(id: id, in: db) ?? report
        }
    }

    /// Deletes a closed case's sealed sightings (and their kept copies); the reports stay, marked purged.
    public func purge(id: String, now: Int64) async throws -> (report: AbuseReport, deleted: Int) {
        try await database.transaction { db in
            guard let report = try await find(id: id, in: db) else { throw Self.noReport(id) }
            guard report.status == "closed", let caseID = report.caseID else {
                throw AbuseError("report \(id) is \(report.status); only a closed case's sealed sightings are purged (release shows them to the owner instead)")
            }
            let deleted = try await SightingSeal.purge(caseID: caseID, now: now, in: db)
            return (try await find(id: id, in: db) ?? report, deleted)
        }
    }

    /// Closes the account of the report's bike owner: their bikes and sessions are deleted, missing bikes leave the
    /// list, every open report on that owner is closed, and sealed sightings are kept for the police (`SightingSeal`).
    /// Returns the account's e-mail; open streams of it on other replicas close (PostgreSQL `NOTIFY`).
    public func closeAccount(reportID: String, now: Int64) async throws -> String {
        try await database.transaction { db in
            guard let report = try await find(id: reportID, in: db) else { throw Self.noReport(reportID) }
            guard try await db.raw("SELECT id FROM accounts WHERE id = \(bind: report.ownerID)").first() != nil else {
                throw AbuseError("the account of '\(report.ownerEmail)' (report \(report.id)) is already gone")
            }
            try await db.raw("""
                UPDATE abuse_reports SET status = 'closed', resolved_ms = \(bind: now) WHERE owner_id = \(bind: report.ownerID) AND status = 'open'
                """).run()
            try await AccountData.delete(accountID: report.ownerID, missingList: missingList, now: now, in: db)
            return report.ownerEmail
        }
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
            resolvedMilliseconds: try row.decode(column: "resolved_ms", as: Int64?.self),
            caseID: try row.decode(column: "case_id", as: String?.self),
            purgedMilliseconds: try row.decode(column: "purged_ms", as: Int64?.self),
            operatorContact: try row.decode(column: "operator_contact", as: String?.self))
    }
}

/// An operator command on a report that cannot be done, saying what to do instead.
public struct AbuseError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
