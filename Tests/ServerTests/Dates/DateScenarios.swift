import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
import TestSupport
@testable import Server

/// A bike's dates: the owner keeps them, each reminder goes out once at its time (however many
/// replicas run), a changed date is reminded of again, and they leave with the bike.
enum DateScenarios {
    static func reminders(_ backend: Backend) async throws {
        // 2026-11-18T11:06:40Z.
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.allowPrivateTargets = true
        })
        let queue = NotificationQueue(
            database: harness.database, dispatcher: NotificationDispatcher(interval: 0, channels: [.push], flavor: harness.database.flavor),
            senders: [:], backoff: .deliveries, logger: Harness.logger, now: clock.read)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            // Port 1 on loopback: nothing listens, so rows stay queued for the test to read.
            #expect(try await client.send(.post, "/v1/push/subscriptions", token: ann,
                                          json: PushScenarios.subscription("http://127.0.0.1:1/push")).status == .created)
            let path = "/v1/bikes/\(bike.id)/dates"

            let made = try await client.send(.post, path, token: ann, json: BikeDateRequest(
                name: "  Insurance renewal ", due: "2026-11-28", remindDaysBefore: 7, timeZone: "Europe/Amsterdam"))
            #expect(made.status == .created, "\(String(buffer: made.body))")
            let insurance = try client.decode(BikeDate.self, made)
            #expect(insurance.name == "Insurance renewal" && insurance.reminder == "scheduled" && insurance.remindedAt == nil)
            #expect(insurance.remindAt == "2026-11-21T08:00:00.000Z", "09:00 in Amsterdam a week before")
            let service = try client.decode(BikeDate.self, try await client.send(.post, path, token: ann,
                                                                                 json: BikeDateRequest(name: "Service", due: "2026-11-20")))
            #expect(service.remindDaysBefore == 7 && service.timeZone == "UTC" && service.remindAt == "2026-11-13T09:00:00.000Z")
            #expect(service.reminder == "scheduled", "a reminder day already gone still reminds while the date is ahead")
            let lastYear = try client.decode(BikeDate.self, try await client.send(.post, path, token: ann,
                                                                                  json: BikeDateRequest(name: "Inspection", due: "2025-11-20")))
            #expect(lastYear.reminder == "past")
            let listed = try client.decode(BikeDateList.self, try await client.send(.get, path, token: ann))
            #expect(listed.dates.map(\.name) == ["Inspection", "Service", "Insurance renewal"], "soonest first")

            // What is wrong is said.
            for bad in [BikeDateRequest(name: "", due: "2027-03-01"), BikeDateRequest(name: String(repeating: "x", count: 101), due: "2027-03-01"),
                        BikeDateRequest(name: "MOT", due: "2027-02-30"), BikeDateRequest(name: "MOT", due: "1/3/2027"),
                        BikeDateRequest(name: "MOT", due: "2027-03-01", remindDaysBefore: -1),
                        BikeDateRequest(name: "MOT", due: "2027-03-01", remindDaysBefore: 366),
                        BikeDateRequest(name: "MOT", due: "2027-03-01", timeZone: "Mars/Olympus_Mons")] {
                expectError(try await client.send(.post, path, token: ann, json: bad), .badRequest, "invalid_request")
            }
            // Nobody else's.
            let bob = try await client.owner("bob@example.org")
            expectError(try await client.send(.get, path, token: bob), .notFound)
            expectError(try await client.send(.post, path, token: bob, json: BikeDateRequest(name: "x", due: "2027-03-01")), .notFound)
            expectError(try await client.send(.put, "\(path)/\(insurance.id)", token: bob, json: BikeDateRequest(name: "x", due: "2027-03-01")), .notFound)
            expectError(try await client.send(.delete, "\(path)/\(insurance.id)", token: bob), .notFound)

            // Due now: the service (its reminder day passed before it was saved). Saving it woke the server's delivery
            // worker, which queues it without waiting for its idle check.
            #expect(try await eventually(within: 5) { try await PushScenarios.queuedNotifications(harness).count == 1 })
            try await queue.deliverDue()
            var queued = try await PushScenarios.queuedNotifications(harness)
            #expect(queued.map(\.event) == [.reminder] && queued.first?.dateName == "Service" && queued.first?.due == "2026-11-20")
            #expect(queued.first?.bikeName == "Commuter" && queued.first?.place == nil)
            #expect(queued.first?.headline == "Commuter: Service is due on 2026-11-20")

            // The insurance reminder: not a millisecond early; then once, though two replicas read it as due before either sent it.
            let store = BikeDateStore(database: harness.database)
            let remindAt = try #require(Timestamp.parse(insurance.remindAt))
            clock.advance(remindAt - clock.read() - 1)
            #expect(try await store.due(now: clock.read()).isEmpty)
            clock.advance(1)
            #expect(try await store.due(now: clock.read()) == [insurance.id])
            let claims = [try await store.remind(id: insurance.id, now: clock.read(), dispatcher: queue.dispatcher),
                          try await store.remind(id: insurance.id, now: clock.read(), dispatcher: queue.dispatcher)]
            // The server's own worker may claim first (CI of b1a2a82 read [false, false]); the reminder is queued once (below).
            expectOneClaimAtMost(claims)
            try await queue.deliverDue()
            queued = try await PushScenarios.queuedNotifications(harness)
            #expect(queued.map { $0.dateName ?? "" } == ["Service", "Insurance renewal"])
            var dates = try client.decode(BikeDateList.self, try await client.send(.get, path, token: ann)).dates
            #expect(dates.map(\.reminder) == ["past", "sent", "sent"] && dates.last?.remindedAt == insurance.remindAt)

            // Renewed for a year: reminded again next year, not now.
            let renewed = try client.decode(BikeDate.self, try await client.send(.put, "\(path)/\(insurance.id)", token: ann, json: BikeDateRequest(
                name: "Insurance renewal", due: "2027-11-28", remindDaysBefore: 14, timeZone: "Europe/Amsterdam")))
            #expect(renewed.reminder == "scheduled" && renewed.remindedAt == nil && renewed.remindAt == "2027-11-14T08:00:00.000Z")
            try await queue.deliverDue()
            #expect(try await PushScenarios.queuedNotifications(harness).count == 2)

            // Deleted: gone, and a second delete says so.
            #expect(try await client.send(.delete, "\(path)/\(lastYear.id)", token: ann).status == .noContent)
            expectError(try await client.send(.delete, "\(path)/\(lastYear.id)", token: ann), .notFound)

            // A bike has at most 20.
            for n in 0..<18 {
                _ = try await client.send(.post, path, token: ann, json: BikeDateRequest(name: "Date \(n)", due: "2030-01-01"))
            }
            expectError(try await client.send(.post, path, token: ann, json: BikeDateRequest(name: "One more", due: "2030-01-01")),
                        .conflict, "too_many_dates")

            // The export holds them; they leave with the bike.
            dates = try client.decode(BikeDateList.self, try await client.send(.get, path, token: ann)).dates
            let export = try client.decode(AccountExport.self, try await client.send(.get, "/v1/account/export", token: ann))
            #expect(export.dates.map(\.id).sorted() == dates.map(\.id).sorted() && export.dates.count == 20)
            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)", token: ann).status == .noContent)
            let left = try await harness.database.withSession { db in
                try await db.raw("SELECT COUNT(*) AS n FROM bike_dates").first()?.decode(column: "n", as: Int.self)
            }
            #expect(left == 0)
        }
    }
}
