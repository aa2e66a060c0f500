import Beacon
import BikebeaconAPI
import Foundation
import SQLKit

/// The keyset position after a sighting in newest-first order: `TIME_MS~ID`.
struct SightingCursor: Sendable, Equatable {
    var time: Int64
    var id: String

    init(time: Int64, id: String) {
        self.time = time
        self.id = id
    }

    init?(_ text: String) {
        let parts = text.split(separator: "~", maxSplits: 1)
        guard parts.count == 2, let time = Int64(parts[0]), !parts[1].isEmpty, parts[1].count <= 64 else { return nil }
        self.init(time: time, id: String(parts[1]))
    }

    var text: String { "\(time)~\(id)" }
}

/// Sightings in the database: idempotent batch ingest and owners' paged reads.
struct SightingStore: Sendable {
    let database: Database
    let notifications: NotificationDispatcher
    /// Whether a sighting's event carries its bike's estimate (`ServerOptions.estimatesOnIngest`).
    var estimatesOnIngest = true

    struct IngestResult: Sendable {
        var accepted: Int
        var duplicates: Int
        var rejected: [Rejection]
        /// Accounts that got new events, to wake their streams and webhook deliveries.
        var notifiedAccounts: Set<String>
    }

    /// Stores the sightings of missing bikes; a client id this sentinel sent before counts as a duplicate.
    ///
    /// `listed`: the missing bikes as of the list's current version (`MissingBikeIndex`); a beacon not among
    /// them is looked up here. So the common batch is one round trip, an insert that skips what this sentinel
    /// sent before; a transaction only when a sighting notifies its owner, whose event must be stored with it.
    func ingest(_ sightings: [NewSighting], from sentinel: Sentinel, now: Int64,
                listed: [BeaconID: MissingBikeRow]) async throws -> IngestResult {
        guard !sightings.isEmpty else { return IngestResult(accepted: 0, duplicates: 0, rejected: [], notifiedAccounts: []) }
        var bikes = listed
        var sent = Set<String>()
        let unknown = Set(sightings.map(\.beacon).filter { listed[$0] == nil })
        if !unknown.isEmpty {
            let (found, seen) = try await database.withSession { db -> ([BeaconID: MissingBikeRow], Set<String>) in
                let found = try await missingBikes(for: unknown, in: db)
                // A retry of a sighting whose bike was recovered since is a duplicate, not a rejection.
                let unlisted = sightings.filter { found[$0.beacon] == nil && listed[$0.beacon] == nil }.map(\.clientID)
                return (found, unlisted.isEmpty ? [] : try await sentBefore(unlisted, by: sentinel, in: db))
            }
            bikes.merge(found) { held, _ in held }
            sent = seen
        }
        let rejected = sightings.filter { bikes[$0.beacon] == nil && !sent.contains($0.clientID) }.map {
            Rejection(id: $0.rawID, reason: "beacon \($0.beacon) is not on the missing list", field: "uuid")
        }
        let rows = sightings.compactMap { sighting in bikes[sighting.beacon].map { (sighting, $0, Tokens.id()) } }
        guard !rows.isEmpty else {
            return IngestResult(accepted: 0, duplicates: sightings.count - rejected.count, rejected: rejected, notifiedAccounts: [])
        }
        let inserted: [String: Bool], notified: Set<String>
        if rows.contains(where: { $0.0.event.notifies }) {
            (inserted, notified) = try await database.transaction { db -> ([String: Bool], Set<String>) in
                let inserted = try await insert(rows, from: sentinel, now: now, in: db)
                // A sealed sighting is stored, and nobody is told of it (#43).
                return (inserted, try await notify(rows.filter { inserted[$0.0.clientID] == false }, from: sentinel, now: now, in: db))
            }
        } else {
            inserted = try await database.withSession { try await insert(rows, from: sentinel, now: now, in: $0) }
            notified = []
        }
        return IngestResult(accepted: inserted.count, duplicates: sightings.count - rejected.count - inserted.count,
                            rejected: rejected, notifiedAccounts: notified)
    }

    /// The client ids among `ids` that `sentinel` sent before.
    private func sentBefore(_ ids: [String], by sentinel: Sentinel, in db: any SQLDatabase) async throws -> Set<String> {
        Set(try await db.raw("""
            SELECT client_id FROM sightings WHERE sentinel_id = \(bind: sentinel.id) AND client_id IN (\(binds: ids))
            """).all().map { try $0.decode(column: "client_id", as: String.self) })
    }

    /// Inserts the rows, skipping client ids this sentinel sent before (a retry, or a concurrent retry of the
    /// same batch that won the race: the unique key keeps one copy); the client ids inserted, each with whether it
    /// was sealed: stored under the case sealing its bike at that moment (`SightingSeal.caseOfBike`).
    private func insert(_ rows: [(NewSighting, MissingBikeRow, String)], from sentinel: Sentinel, now: Int64,
                        in db: any SQLDatabase) async throws -> [String: Bool] {
        let insert = db.insert(into: "sightings").columns(
            "id", "sentinel_id", "client_id", "bike_id", "beacon_uuid", "beacon_major", "beacon_minor", "event",
            "time_ms", "first_seen_ms", "last_seen_ms", "rssi", "distance", "zone", "latitude", "longitude",
            "fix", "accuracy_m", "fix_ms", "received_ms", "sentinel_home", "sealed_case")
        for (s, bike, id) in rows {
            let heard = StoredPlace(s.place, sentinel: sentinel)
            let values: [any Encodable & Sendable] = [
                id, sentinel.id, s.clientID, bike.id, s.beacon.uuid.uuidString, Int(s.beacon.major), Int(s.beacon.minor),
                s.event.rawValue, s.time, s.firstSeen, s.lastSeen, s.rssi, s.distance, s.zone,
                heard.latitude ?? 0, heard.longitude ?? 0, heard.fix, heard.accuracy, heard.fixTime, now,
                SightingPrivacy.Home(sentinel, bikeOwner: bike.ownerID).rawValue,
            ]
            insert.values(values.map { SQLBind($0) as any SQLExpression } + [SightingSeal.caseOfBike(bike.id, flavor: database.flavor)])
        }
        return Dictionary(try await insert.ignoringConflicts(with: ["sentinel_id", "client_id"])
            .returning("client_id", "sealed_case").all().map {
                (try $0.decode(column: "client_id", as: String.self), try $0.decode(column: "sealed_case", as: String?.self) != nil)
            }) { first, _ in first }
    }

    /// Stores the owner's event and queues the notification of each new sighting that notifies; the owners told.
    private func notify(_ rows: [(NewSighting, MissingBikeRow, String)], from sentinel: Sentinel, now: Int64,
                        in db: any SQLDatabase) async throws -> Set<String> {
        var notified = Set<String>()
        let notifying = rows.filter { $0.0.event.notifies }
        // Each bike's estimate with the batch's sightings stored, for its owner's eyes: all the batch's bikes in one query.
        let estimates = estimatesOnIngest
            ? try await SightingEstimates.estimates(bikeIDs: Set(notifying.map(\.1.id)), for: .owner, in: db) : [:]
        for (s, bike, id) in notifying {
            let heard = StoredPlace(s.place, sentinel: sentinel)
            // What the bike's owner is told: another owner's home sentinel stays "a private sentinel", about 500 m.
            let seen = SightingPrivacy.place(name: sentinel.name, latitude: heard.latitude, longitude: heard.longitude,
                                             home: SightingPrivacy.Home(sentinel, bikeOwner: bike.ownerID))
            var event = NotificationEvent(
                type: "sighting", sightingId: id, bikeId: bike.id, bikeName: bike.name, event: s.event.rawValue,
                time: Timestamp.format(milliseconds: s.time), beacon: s.beacon, zone: s.zone, rssi: s.rssi,
                distance: s.distance, sentinel: seen.name, latitude: seen.latitude, longitude: seen.longitude,
                accuracy: seen.accuracy ?? heard.accuracy)
            event.estimate = estimates[bike.id]
            try await EventStore.append(event, account: bike.ownerID, bikeID: bike.id, now: now, in: db)
            try await notifications.offer(OwnerNotification(
                event: s.event == .departed ? .departed : .arrived, bikeId: bike.id, bikeName: bike.name, ownerId: bike.ownerID,
                place: seen.name, latitude: seen.latitude, longitude: seen.longitude,
                time: event.time, zone: s.zone), now: now, in: db)
            notified.insert(bike.ownerID)
        }
        return notified
    }

    /// Where a sighting is stored as heard: its own fix, the sentinel's enrolled place, or nowhere
    /// (a roaming sentinel without a fix, or one that sent no position at all).
    struct StoredPlace {
        var latitude: Double?
        var longitude: Double?
        var accuracy: Double?
        var fixTime: Int64?
        /// The `fix` column: nil for the enrolled place.
        var fix: String?

        init(_ place: NewSighting.Place, sentinel: Sentinel) {
            switch place {
            case let .gps(latitude, longitude, accuracy, fixTime):
                self.latitude = latitude
                self.longitude = longitude
                self.accuracy = accuracy
                self.fixTime = fixTime
                fix = "gps"
            case .enrolled where sentinel.latitude != nil && sentinel.longitude != nil:
                latitude = sentinel.latitude
                longitude = sentinel.longitude
            case .enrolled, .none:
                fix = "none"
            }
        }
    }

    struct MissingBikeRow: Sendable {
        var id: String
        var ownerID: String
        var name: String
    }

    /// The missing bikes among `beacons`, from the database.
    private func missingBikes(for beacons: Set<BeaconID>, in db: any SQLDatabase) async throws -> [BeaconID: MissingBikeRow] {
        guard !beacons.isEmpty else { return [:] }
        // By all three parts, so the unique index on them finds the few rows: tags of one make share a UUID, and
        // by the UUID alone a batch read every missing bike of that make (10 000 rows in a city's list).
        let uuids = Array(Set(beacons.map(\.uuid.uuidString))), majors = Array(Set(beacons.map { Int($0.major) }))
        let minors = Array(Set(beacons.map { Int($0.minor) }))
        return try Self.missingBikes(await db.raw("""
            SELECT id, owner_id, name, beacon_uuid, beacon_major, beacon_minor FROM bikes
            WHERE missing_since_ms IS NOT NULL AND beacon_uuid IN (\(binds: uuids))
              AND beacon_major IN (\(binds: majors)) AND beacon_minor IN (\(binds: minors))
            """).all()).filter { beacons.contains($0.key) }
    }

    /// Rows of `bikes` (id, owner_id, name and the beacon's parts) by beacon.
    static func missingBikes(_ rows: [any SQLRow]) throws -> [BeaconID: MissingBikeRow] {
        var result: [BeaconID: MissingBikeRow] = [:]
        for row in rows {
            guard let beacon = try MissingListStore.beacon(row) else { continue }
            result[beacon] = MissingBikeRow(id: try row.decode(column: "id", as: String.self),
                                            ownerID: try row.decode(column: "owner_id", as: String.self),
                                            name: try row.decode(column: "name", as: String.self))
        }
        return result
    }

    /// A page of one bike's sightings, newest first, starting after `cursor`, as `audience` may see them: never a sealed one.
    func page(bikeID: String, after cursor: SightingCursor?, limit: Int, for audience: SightingPrivacy.Audience) async throws -> SightingPage {
        try await database.withSession { db in
            let rows: [any SQLRow]
            if let cursor {
                rows = try await db.raw("""
                    SELECT s.*, t.name AS sentinel_name FROM sightings s JOIN sentinels t ON t.id = s.sentinel_id
                    WHERE s.bike_id = \(bind: bikeID) AND \(unsafeRaw: SightingSeal.ownerVisible("s"))
                      AND (s.time_ms < \(bind: cursor.time) OR (s.time_ms = \(bind: cursor.time) AND s.id < \(bind: cursor.id)))
                    ORDER BY s.time_ms DESC, s.id DESC LIMIT \(literal: limit + 1)
                    """).all()
            } else {
                rows = try await db.raw("""
                    SELECT s.*, t.name AS sentinel_name FROM sightings s JOIN sentinels t ON t.id = s.sentinel_id
                    WHERE s.bike_id = \(bind: bikeID) AND \(unsafeRaw: SightingSeal.ownerVisible("s")) ORDER BY s.time_ms DESC, s.id DESC LIMIT \(literal: limit + 1)
                    """).all()
            }
            let sightings = try rows.prefix(limit).map { try Self.sighting($0, for: audience) }
            var next: String?
            if rows.count > limit, let last = sightings.last, let time = Timestamp.parse(last.time) {
                next = SightingCursor(time: time, id: last.id).text
            }
            return SightingPage(sightings: sightings, nextCursor: next)
        }
    }

    /// A stored sighting as `audience` may see it (`SightingPrivacy`); the bike's owner by default.
    static func sighting(_ row: any SQLRow) throws -> SightingRecord {
        try sighting(row, for: .owner)
    }

    static func sighting(_ row: any SQLRow, for audience: SightingPrivacy.Audience) throws -> SightingRecord {
        let home = SightingPrivacy.Home(rawValue: try row.decode(column: "sentinel_home", as: Int.self)) ?? .others
        return SightingPrivacy.view(try exact(row), home: home, audience: audience)
    }

    /// A stored sighting as it was heard: the sentinel's name and exact place. Only for the operator.
    static func exact(_ row: any SQLRow) throws -> SightingRecord {
        guard let beacon = try MissingListStore.beacon(row) else { throw StorageError.corruptRow("sightings row holds an invalid beacon") }
        let fix = try row.decode(column: "fix", as: String?.self)
        let hasPosition = fix != "none"
        return SightingRecord(
            id: try row.decode(column: "id", as: String.self),
            clientId: try row.decode(column: "client_id", as: String.self),
            bikeId: try row.decode(column: "bike_id", as: String.self),
            beacon: beacon,
            event: try row.decode(column: "event", as: String.self),
            time: Timestamp.format(milliseconds: try row.decode(column: "time_ms", as: Int64.self)),
            firstSeen: Timestamp.format(milliseconds: try row.decode(column: "first_seen_ms", as: Int64.self)),
            lastSeen: Timestamp.format(milliseconds: try row.decode(column: "last_seen_ms", as: Int64.self)),
            rssi: try row.decode(column: "rssi", as: Int.self),
            distance: try row.decode(column: "distance", as: Double?.self),
            zone: try row.decode(column: "zone", as: String.self),
            latitude: hasPosition ? try row.decode(column: "latitude", as: Double.self) : nil,
            longitude: hasPosition ? try row.decode(column: "longitude", as: Double.self) : nil,
            accuracy: try row.decode(column: "accuracy_m", as: Double?.self),
            fixTime: try row.decode(column: "fix_ms", as: Int64?.self).map { Timestamp.format(milliseconds: $0) },
            fix: fix,
            sentinel: try row.decode(column: "sentinel_name", as: String.self),
            receivedAt: Timestamp.format(milliseconds: try row.decode(column: "received_ms", as: Int64.self)),
            heldForReview: try row.decode(column: "sealed_case", as: String?.self) != nil ? true : nil)
    }
}
