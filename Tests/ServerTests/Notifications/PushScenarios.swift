import BikebeaconAPI
import Durable
import Crypto
import Foundation
import HTTPTypes
import SQLKit
import Synchronization
import Testing
@testable import Server
import TestSupport

/// Web Push subscriptions, notification settings, the SSRF refusals and the no-spam window,
/// through the HTTP API. Decryption by an independent implementation is scripts/test-push.
enum PushScenarios {
    /// A browser's `PushSubscription.toJSON()` with a fresh key pair.
    static func subscription(_ endpoint: String, auth: Data = Data((0..<16).map { UInt8($0) })) -> [String: AnySendableJSON] {
        let key = P256.KeyAgreement.PrivateKey()
        return ["endpoint": .string(endpoint),
                "keys": .object(["p256dh": Base64URL.encode(key.publicKey.x963Representation), "auth": Base64URL.encode(auth)])]
    }

    static func api(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let firstKey = try await PushSubscriptionStore.vapidKey(database: harness.database, now: 0).rawRepresentation
        try await harness.run { client in
            let key = try await client.send(.get, "/v1/push/key")
            #expect(key.status == .ok)
            let publicKey = try client.decode(PushKey.self, key).publicKey
            let raw = try #require(Base64URL.decode(publicKey))
            #expect(raw.count == 65 && raw.first == 4)
            // Every replica signs with the key the first start stored.
            #expect(try P256.Signing.PrivateKey(rawRepresentation: firstKey).publicKey.x963Representation == raw)

            let owner = try await client.owner("ann@example.org")
            let endpoint = "https://push.example.net/send/1"
            expectError(try await client.send(.post, "/v1/push/subscriptions", json: subscription(endpoint)), .unauthorized)
            let created = try await client.send(.post, "/v1/push/subscriptions", token: owner, json: subscription(endpoint))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let id = try client.decode(PushSubscriptionCreated.self, created).id
            // The same endpoint again (the browser re-subscribed) keeps its id.
            let again = try await client.send(.post, "/v1/push/subscriptions", token: owner, json: subscription(endpoint))
            #expect(try client.decode(PushSubscriptionCreated.self, again).id == id)

            for (body, what) in [
                (subscription("http://push.example.net/send/1"), "plain http"),
                (subscription("https://127.0.0.1/send"), "loopback"),
                (subscription("https://2130706433/send"), "loopback in decimal"),
                (subscription("https://[::ffff:169.254.169.254]/latest"), "metadata, IPv4-mapped"),
                (subscription("https://10.0.0.8/send"), "private"),
                (subscription("not a url"), "not a URL"),
                (subscription(endpoint, auth: Data(count: 5)), "short auth"),
                (["endpoint": .string(endpoint), "keys": .object(["p256dh": "BAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"])], "bad p256dh"),
            ] {
                let response = try await client.send(.post, "/v1/push/subscriptions", token: owner, json: body)
                expectError(response, .badRequest)
                #expect(response.status == .badRequest, "\(what)")
            }
            let refused = try await client.send(.put, "/v1/account/webhook", token: owner, json: ["url": "http://0177.0.0.1:8080/hook"])
            expectError(refused, .badRequest, "forbidden_target")
            #expect(String(buffer: refused.body).contains("--allow-private-targets"))

            for n in 2...PushSubscriptionStore.limit {
                #expect(try await client.send(.post, "/v1/push/subscriptions", token: owner,
                                              json: subscription("https://push.example.net/send/\(n)")).status == .created)
            }
            expectError(try await client.send(.post, "/v1/push/subscriptions", token: owner,
                                              json: subscription("https://push.example.net/send/21")), .conflict, "too_many_subscriptions")
            let list = try client.decode(PushSubscriptionList.self,
                                         try await client.send(.get, "/v1/push/subscriptions", token: owner))
            #expect(list.subscriptions.count == PushSubscriptionStore.limit && list.subscriptions.first?.id == id)
            // Another owner neither sees nor deletes them.
            let other = try await client.owner("bob@example.org")
            #expect(try client.decode(PushSubscriptionList.self,
                                      try await client.send(.get, "/v1/push/subscriptions", token: other)).subscriptions.isEmpty)
            expectError(try await client.send(.delete, "/v1/push/subscriptions/\(id)", token: other), .notFound)
            #expect(try await client.send(.delete, "/v1/push/subscriptions/\(id)", token: owner).status == .noContent)
            expectError(try await client.send(.delete, "/v1/push/subscriptions/\(id)", token: owner), .notFound)

            let defaults = try await client.send(.get, "/v1/account/notifications", token: owner)
            #expect(try client.decode(NotificationSettings.self, defaults) == NotificationSettings(push: true, email: true))
            let changed = try await client.send(.put, "/v1/account/notifications", token: owner, json: ["push": false])
            #expect(try client.decode(NotificationSettings.self, changed) == NotificationSettings(push: false, email: true))
            #expect(try client.decode(NotificationSettings.self, try await client.send(.get, "/v1/account/notifications", token: owner))
                == NotificationSettings(push: false, email: true))
            expectError(try await client.send(.put, "/v1/account/notifications", token: owner, raw: "{}"), .badRequest)
            expectError(try await client.send(.put, "/v1/account/notifications", token: owner, raw: #"{"push": "yes"}"#), .badRequest)
        }
    }

    /// A target saved while allowed is still checked at every send: a server without
    /// --allow-private-targets refuses to connect to it, records why and does not retry.
    static func refusedAtSend(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.allowPrivateTargets = true })
        let (_, sentinel) = try await harness.sentinel("cafe")
        try await harness.run(keepDatabase: true) { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
            #expect(try await client.send(.post, "/v1/push/subscriptions", token: owner,
                                          json: subscription("http://127.0.0.1:9/push")).status == .created)
        }
        let strict = Harness(database: harness.database, options: Harness.testOptions(), cleanup: harness.cleanup)
        try await strict.run { client in
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel,
                                          json: Fixture.Batch(sightings: [Fixture.sighting(event: "arrived")])).status == .ok)
            let refused = try await eventually {
                let row = try? await harness.database.withSession { db in
                    try await db.raw("SELECT failed_ms, last_error FROM notification_deliveries").first()
                }
                let error = (try? row?.decode(column: "last_error", as: String?.self)) ?? nil
                let failed = (try? row?.decode(column: "failed_ms", as: Int64?.self)) ?? nil
                return failed != nil && error?.contains("refused to call 127.0.0.1") == true
            }
            #expect(refused, "the loopback push endpoint is refused at send time and not retried")
        }
    }

    /// A clock the test moves.
    final class Clock: Sendable {
        let now: Mutex<Int64>
        /// 2026-11-18T11:06:40Z unless told; `Fixture.afterSightings` for a scenario that posts the fixtures' sightings.
        init(start: Int64 = 1_795_000_000_000) { now = Mutex(start) }
        func advance(_ milliseconds: Int64) { now.withLock { $0 += milliseconds } }
        var read: @Sendable () -> Int64 { { [self] in now.withLock { $0 } } }
    }

    static func queuedNotifications(_ harness: Harness) async throws -> [OwnerNotification] {
        try await harness.database.withSession { db in
            try await db.raw("SELECT payload FROM notification_deliveries ORDER BY id").all().map {
                try JSONDecoder().decode(OwnerNotification.self, from: Data(try $0.decode(column: "payload", as: String.self).utf8))
            }
        }
    }

    /// Per bike and place one notification per window, `present` never, held-back events summarised when it ends.
    static func noSpam(_ backend: Backend) async throws {
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.allowPrivateTargets = true
            $0.notifyIntervalMilliseconds = 30 * 60_000
        })
        let (_, cafe) = try await harness.sentinel("Cafe Rosa", latitude: 52.09, longitude: 5.12)
        let (_, station) = try await harness.sentinel("Station", latitude: 52.08, longitude: 5.11)
        try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner, name: "Ana's commuter")
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
            // Port 1 on loopback: nothing listens, so rows stay queued for the test to read.
            #expect(try await client.send(.post, "/v1/push/subscriptions", token: owner,
                                          json: subscription("http://127.0.0.1:1/push")).status == .created)
            func post(_ token: String, _ events: [String]) async throws {
                let batch = Fixture.Batch(sightings: events.map { Fixture.sighting(event: $0) })
                #expect(try await client.send(.post, "/v1/sightings", token: token, json: batch).status == .ok)
            }
            try await post(cafe, ["arrived", "present", "present"])
            clock.advance(60_000)
            try await post(cafe, ["departed"])
            clock.advance(60_000)
            try await post(cafe, ["arrived", "present"])
            try await post(station, ["present"])
            var queued = try await queuedNotifications(harness)
            #expect(queued.map(\.event) == [.arrived], "one notification for Cafe Rosa in the window; present never notifies")
            #expect(queued.first?.place == "Cafe Rosa" && queued.first?.bikeName == "Ana's commuter" && queued.first?.zone == "near")
            #expect(queued.first?.latitude == 52.09 && queued.first?.ownerId != nil)
            try await post(station, ["arrived"])
            queued = try await queuedNotifications(harness)
            #expect(queued.map(\.place) == ["Cafe Rosa", "Station"], "another place has its own window")

            // The window ends: the two held-back Cafe Rosa events go out as one summary.
            clock.advance(30 * 60_000)
            try await NotificationQueue(
                database: harness.database,
                dispatcher: NotificationDispatcher(interval: 30 * 60_000, channels: [.push], flavor: harness.database.flavor),
                senders: [:], backoff: .deliveries, logger: Harness.logger, now: clock.read).deliverDue()
            queued = try await queuedNotifications(harness)
            #expect(queued.count == 3)
            #expect(queued.last?.place == "Cafe Rosa" && queued.last?.count == 2 && queued.last?.event == .arrived)

            // Switched off: nothing is queued, and recovery is a bike-level event with no place.
            _ = try await client.send(.put, "/v1/account/notifications", token: owner, json: ["push": false])
            clock.advance(31 * 60_000)
            try await post(cafe, ["departed"])
            #expect(try await queuedNotifications(harness).count == 3)
            _ = try await client.send(.put, "/v1/account/notifications", token: owner, json: ["push": true])
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: owner)
            queued = try await queuedNotifications(harness)
            #expect(queued.count == 4 && queued.last?.event == .recovered && queued.last?.place == nil)
        }
    }
}

/// JSON bodies mixing strings and objects, for `Client.send(json:)`.
enum AnySendableJSON: Encodable, Sendable, ExpressibleByStringLiteral {
    case string(String)
    case object([String: String])

    init(stringLiteral value: String) { self = .string(value) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }
}
