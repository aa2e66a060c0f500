import Beacon
import BikebeaconAPI
import Foundation
import SQLKit
import Testing
@testable import Server

/// Migration 121 (#35): events and notifications stored before migration 90 named another owner's home
/// sentinel at its exact place, and `/v1/events` replays stored events from any Last-Event-ID. After the
/// step they read as the owner may see them now; the home's own owner still sees it by name.
enum PrivacyBackfillScenarios {
    static let garage = "Bob's garage, 12 Elm St"

    static func rewritesOldPayloads(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        try await harness.run { client in
            let annToken = try await client.owner("ann@example.org")
            let bobToken = try await client.owner("bob@example.org")
            let annBike = try await client.bike(annToken)
            let bobBike = try await client.bike(bobToken, name: "Bob's", beacon: Fixture.beaconB)
            _ = try await SentinelStore(database: harness.database).add(name: garage, latitude: 52.123456, longitude: 4.654321,
                                                                        ownerEmail: "bob@example.org", now: Fixture.enrolled)
            _ = try await harness.sentinel("Cafe Rosa", latitude: 52.0907123, longitude: 5.1214567)
            let accounts = try await harness.database.withSession { db in
                try await db.raw("SELECT id, email FROM accounts").all().reduce(into: [String: String]()) {
                    $0[try $1.decode(column: "email", as: String.self)] = try $1.decode(column: "id", as: String.self)
                }
            }
            let ann = try #require(accounts["ann@example.org"]), bob = try #require(accounts["bob@example.org"])

            // What the server stored before migration 90: the sentinel's name and exact position, whoever read it.
            func event(_ bike: Bike, at sentinel: String, _ latitude: Double, _ longitude: Double) -> NotificationEvent {
                NotificationEvent(type: "sighting", sightingId: UUID().uuidString, bikeId: bike.id, bikeName: bike.name, event: "arrived",
                                  time: "2026-11-21T10:00:00.000Z", beacon: bike.beacon, zone: "near", rssi: -60, distance: 1.5,
                                  sentinel: sentinel, latitude: latitude, longitude: longitude)
            }
            let notification = OwnerNotification(event: .arrived, bikeId: annBike.id, bikeName: annBike.name, ownerId: ann, place: garage,
                                                 latitude: 52.123456, longitude: 4.654321, time: "2026-11-21T10:00:00.000Z", zone: "near")
            let stored = [(event(annBike, at: garage, 52.123456, 4.654321), ann), (event(annBike, at: "Cafe Rosa", 52.0907123, 5.1214567), ann),
                          (event(bobBike, at: garage, 52.123456, 4.654321), bob)]
            // Due long after the test, so the server's delivery worker leaves the queued row and the window's summary alone.
            let later = ServerOptions.wallClock() + 365 * MissingPeriod.day
            try await harness.database.transaction { db in
                for (event, account) in stored { try await EventStore.append(event, account: account, now: Fixture.enrolled, in: db) }
                try await db.raw("""
                    INSERT INTO notification_deliveries (account_id, channel, target, payload, attempts, next_attempt_ms, created_ms)
                    VALUES (\(bind: ann), 'email', '', \(bind: try notification.json()), 0, \(bind: later), 0)
                    """).run()
                try await db.raw("""
                    INSERT INTO notification_windows (bike_id, place, last_sent_ms, pending)
                    VALUES (\(bind: annBike.id), \(bind: garage), \(bind: later), \(bind: try notification.json()))
                    """).run()
                try await db.raw("DELETE FROM schema_migrations WHERE version = 121").run()
            }

            try await Migrations.run(on: harness.database, now: Fixture.afterSightings)

            let snapped = SightingPrivacy.snapped(latitude: 52.123456, longitude: 4.654321)
            let annEvents = try await EventStore.events(account: ann, after: 0, limit: 10, database: harness.database)
            for stored in annEvents { #expect(!stored.payload.contains("Elm St") && !stored.payload.contains("52.123456"), "\(stored.payload)") }
            let annSeen = try annEvents.map { try JSONDecoder().decode(NotificationEvent.self, from: Data($0.payload.utf8)) }
            #expect(annSeen.map(\.sentinel) == [SightingPrivacy.privateName, "Cafe Rosa"])
            #expect(annSeen.first?.latitude == snapped.latitude && annSeen.first?.longitude == snapped.longitude
                && annSeen.first?.accuracy == SightingPrivacy.gridAccuracy)
            #expect(annSeen.last?.latitude == 52.0907 && annSeen.last?.longitude == 5.1215, "a public sentinel's place, rounded to 4 decimals")
            let bobSeen = try await EventStore.events(account: bob, after: 0, limit: 10, database: harness.database)
                .map { try JSONDecoder().decode(NotificationEvent.self, from: Data($0.payload.utf8)) }
            #expect(bobSeen.map(\.sentinel) == [garage] && bobSeen.first?.latitude == 52.1235, "Bob still sees his own home by name")

            let (queued, pending) = try await harness.database.withSession { db in
                (try await db.raw("SELECT payload FROM notification_deliveries").first()?.decode(column: "payload", as: String.self),
                 try await db.raw("SELECT pending FROM notification_windows").first()?.decode(column: "pending", as: String.self))
            }
            for payload in [queued, pending] {
                let told = try JSONDecoder().decode(OwnerNotification.self, from: Data(try #require(payload).utf8))
                #expect(told.place == SightingPrivacy.privateName && told.latitude == snapped.latitude && told.longitude == snapped.longitude,
                        "\(payload ?? "")")
            }

            // Run again (as after a restore of an older backup): nothing changes.
            let before = try await EventStore.events(account: ann, after: 0, limit: 10, database: harness.database)
            try await harness.database.withSession { try await $0.raw("DELETE FROM schema_migrations WHERE version = 121").run() }
            try await Migrations.run(on: harness.database, now: Fixture.afterSightings)
            #expect(try await EventStore.events(account: ann, after: 0, limit: 10, database: harness.database) == before)
        }
    }
}
