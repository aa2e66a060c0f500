import BikebeaconAPI
import Foundation
import SQLKit

/// Migration 121: what step 90 did for sightings, for the events and notifications stored before it.
/// Their payloads were written with the sentinel's name and exact position; each is rewritten as its
/// owner may see it now (`SightingPrivacy.place`): another owner's home sentinel as "a private sentinel"
/// on the ~500 m grid, every other position rounded to 4 decimals. Payloads already private come out the
/// same. A payload names its sentinel, whose name is unique; a home sentinel is told by `sentinels.home`.
enum PrivacyBackfill {
    static let batch = 500

    @Sendable static func run(in db: any SQLDatabase) async throws {
        var homes: [String: String?] = [:]
        for row in try await db.raw("SELECT name, owner_id FROM sentinels WHERE home = 1").all() {
            homes[try row.decode(column: "name", as: String.self)] = try row.decode(column: "owner_id", as: String?.self)
        }
        func home(_ name: String, reader: String) -> SightingPrivacy.Home {
            guard let owner = homes[name] else { return .none }
            return SightingPrivacy.Home(sentinelOwner: owner ?? "", bikeOwner: reader)
        }
        try await rewrite(table: "events", where: "kind = 'sighting'", in: db) { (event: NotificationEvent, account) in
            var event = event
            let seen = SightingPrivacy.place(name: event.sentinel, latitude: event.latitude, longitude: event.longitude,
                                             home: home(event.sentinel, reader: account))
            event.sentinel = seen.name
            event.latitude = seen.latitude
            event.longitude = seen.longitude
            event.accuracy = seen.accuracy ?? event.accuracy
            return String(decoding: try JSONResponse.encoder.encode(event), as: UTF8.self)
        }
        func notification(_ notification: OwnerNotification, account: String) throws -> String {
            guard let place = notification.place else { return try notification.json() }
            var notification = notification
            let seen = SightingPrivacy.place(name: place, latitude: notification.latitude, longitude: notification.longitude,
                                             home: home(place, reader: account))
            notification.place = seen.name
            notification.latitude = seen.latitude
            notification.longitude = seen.longitude
            return try notification.json()
        }
        try await rewrite(table: "notification_deliveries", where: "1 = 1", in: db, notification)
        // A window's summary waiting to be sent; its bike's owner is the reader.
        for row in try await db.raw("""
            SELECT w.bike_id, w.place, w.pending, b.owner_id FROM notification_windows w JOIN bikes b ON b.id = w.bike_id
            WHERE w.pending IS NOT NULL
            """).all() {
            let pending = try row.decode(column: "pending", as: String.self)
            guard let decoded = try? JSONDecoder().decode(OwnerNotification.self, from: Data(pending.utf8)) else { continue }
            let rewritten = try notification(decoded, account: try row.decode(column: "owner_id", as: String.self))
            guard rewritten != pending else { continue }
            try await db.raw("""
                UPDATE notification_windows SET pending = \(bind: rewritten)
                WHERE bike_id = \(bind: try row.decode(column: "bike_id", as: String.self)) AND place = \(bind: try row.decode(column: "place", as: String.self))
                """).run()
        }
    }

    /// Rewrites the JSON `payload` of `table`'s rows (an `id`, an `account_id`) in batches; rows it cannot decode stay as they are.
    private static func rewrite<T: Decodable>(table: String, where condition: String, in db: any SQLDatabase,
                                              _ change: (T, String) throws -> String) async throws {
        var after: Int64 = 0
        while true {
            let rows = try await db.raw("""
                SELECT id, account_id, payload FROM \(unsafeRaw: table) WHERE \(unsafeRaw: condition) AND id > \(bind: after)
                ORDER BY id LIMIT \(literal: batch)
                """).all()
            guard !rows.isEmpty else { return }
            for row in rows {
                let id = try row.decode(column: "id", as: Int64.self)
                after = id
                let payload = try row.decode(column: "payload", as: String.self)
                guard let value = try? JSONDecoder().decode(T.self, from: Data(payload.utf8)) else { continue }
                let rewritten = try change(value, try row.decode(column: "account_id", as: String.self))
                if rewritten != payload {
                    try await db.raw("UPDATE \(unsafeRaw: table) SET payload = \(bind: rewritten) WHERE id = \(bind: id)").run()
                }
            }
        }
    }
}
