import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// A bike stays on the missing list for a period (#35): its owner is reminded before it ends, may
/// renew it, and otherwise it leaves the list by itself, so no tag is followed for good. Each
/// reminder and each end happens once, however many replicas run the pass.
enum MissingPeriodScenarios {
    static func endsUnlessRenewed(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.allowPrivateTargets = true
        })
        let dispatcher = NotificationDispatcher(interval: 0, channels: [.push], flavor: harness.database.flavor)
        let expiry = MissingExpiry(database: harness.database, missingList: MissingListStore(database: harness.database, retention: 100),
                                   dispatcher: dispatcher, period: MissingPeriod(days: 30, reminderDays: 3))
        let day = MissingPeriod.day
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            // Port 1 on loopback: nothing listens, so rows stay queued for the test to read.
            #expect(try await client.send(.post, "/v1/push/subscriptions", token: ann,
                                          json: PushScenarios.subscription("http://127.0.0.1:1/push")).status == .created)
            let (_, sentinel) = try await harness.sentinel()
            func listed() async throws -> Bool {
                let list = try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel))
                return list.beacons.contains { $0.uuid == bike.beacon.uuid && $0.minor == bike.beacon.minor }
            }
            func events() async throws -> [OwnerNotification.Event] {
                try await PushScenarios.queuedNotifications(harness).map(\.event).filter { $0 != .recovered }
            }

            let marked = try client.decode(Bike.self, try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann))
            let start = clock.read()
            #expect(marked.missingUntil == Timestamp.format(milliseconds: start + 30 * day))
            #expect(try await listed())

            // Three days before the end, one reminder; not a millisecond early, and once though two passes claim it (or the
            // server's own worker before them: `expectOneClaimAtMost`); that each notice is queued once, `events()` shows below.
            clock.advance(27 * day - 1)
            #expect(try await expiry.run(now: clock.read()) == .init())
            clock.advance(1)
            let reminds = [try await expiry.remind(id: bike.id, now: clock.read()), try await expiry.remind(id: bike.id, now: clock.read())]
            expectOneClaimAtMost(reminds)
            #expect(try await expiry.run(now: clock.read()) == .init())
            let reminder = try await PushScenarios.queuedNotifications(harness).last
            #expect(reminder?.event == .missingEnding && reminder?.due == String(Timestamp.format(milliseconds: start + 30 * day).prefix(10)))
            #expect(reminder?.headline.hasSuffix("unless you renew it") == true)

            // Renewed: another 30 days from now, reminded again before that end; the list's version does not move.
            let version = try await MissingListStore(database: harness.database, retention: 100).version()
            clock.advance(day)
            let renewed = try client.decode(Bike.self, try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann))
            #expect(renewed.missingUntil == Timestamp.format(milliseconds: clock.read() + 30 * day))
            #expect(renewed.missingSince == marked.missingSince, "still the same report")
            #expect(try await MissingListStore(database: harness.database, retention: 100).version() == version)
            clock.advance(2 * day)
            #expect(try await expiry.run(now: clock.read()) == .init(), "the old end passed, but the period was renewed")
            #expect(try await listed())

            // Not renewed again: reminded, then off the list at the end, with its owner told; once.
            clock.advance(25 * day)
            #expect(try await [[], [bike.id]].contains(expiry.run(now: clock.read()).reminded), "this pass or the worker's")
            clock.advance(3 * day)
            let ends = [try await expiry.end(id: bike.id, now: clock.read()), try await expiry.end(id: bike.id, now: clock.read())]
            expectOneClaimAtMost(ends)
            #expect(try await expiry.run(now: clock.read()) == .init())
            let ended = try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann))
            #expect(!ended.missing && ended.missingUntil == nil && ended.missingSince == nil)
            #expect(try await !listed(), "sentinels drop it at their next refresh")
            #expect(try await MissingListStore(database: harness.database, retention: 100).version() == version + 1)
            #expect(try await events() == [.missingEnding, .missingEnding, .missingEnded])

            // Marked missing again, it starts a fresh period.
            let again = try client.decode(Bike.self, try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann))
            #expect(again.missingUntil == Timestamp.format(milliseconds: clock.read() + 30 * day))
        }
    }

    /// A bike made missing before periods existed gets one from the first pass, not an end in the past.
    static func olderReportsGetAPeriod(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let dispatcher = NotificationDispatcher(interval: 0, channels: [.push], flavor: harness.database.flavor)
        let expiry = MissingExpiry(database: harness.database, missingList: MissingListStore(database: harness.database, retention: 100),
                                   dispatcher: dispatcher, period: MissingPeriod())
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann)
            try await harness.database.withSession { db in
                try await db.raw("UPDATE bikes SET missing_since_ms = 0, missing_until_ms = NULL").run()
            }
            #expect(try await expiry.run(now: clock.read()) == .init())
            let after = try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann))
            #expect(after.missing && after.missingUntil == Timestamp.format(milliseconds: clock.read() + 30 * MissingPeriod.day))
        }
    }
}
