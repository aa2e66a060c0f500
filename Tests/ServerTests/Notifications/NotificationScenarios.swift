import AsyncHTTPClient
import BikebeaconAPI
import Durable
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import Server
import TestSupport

/// Webhooks (signed, retried) and the server-sent-events stream.
enum NotificationScenarios {
    /// A local webhook receiver: answers 500 to the first `failFirst` calls, then 204; remembers what it got.
    actor Receiver {
        struct Call: Sendable {
            var body: [UInt8]
            var signature: String?
            var eventID: String?
        }
        private(set) var calls: [Call] = []
        let failFirst: Int
        init(failFirst: Int) { self.failFirst = failFirst }

        func record(_ call: Call) -> Bool {
            calls.append(call)
            return calls.count > failFirst
        }
    }

    static func receiverApp(_ receiver: Receiver) -> some ApplicationProtocol {
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let ok = await receiver.record(.init(body: Array(body.readableBytesView),
                                                 signature: request.headers[HTTPField.Name(WebhookSignature.header)!],
                                                 eventID: request.headers[HTTPField.Name("BikeBeacon-Event-ID")!]))
            return ok ? .noContent : .internalServerError
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Harness.logger)
    }

    static func webhookDelivery(_ backend: Backend) async throws {
        // The receiver is on loopback, which only --allow-private-targets permits.
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.allowPrivateTargets = true })
        let (_, sentinel) = try await harness.sentinel("cafe", latitude: 52.52, longitude: 13.405)
        let receiver = Receiver(failFirst: 2)
        try await receiverApp(receiver).test(.live) { receiverClient in
            let port = try #require(receiverClient.port)
            try await harness.run { client in
                let owner = try await client.owner("ann@example.org")
                let bike = try await client.bike(owner)
                _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
                let set = try await client.send(.put, "/v1/account/webhook", token: owner, json: ["url": "http://127.0.0.1:\(port)/hook"])
                let webhook = try client.decode(Webhook.self, set)

                let batch = Fixture.Batch(sightings: [
                    Fixture.sighting(event: "arrived", time: "2026-11-21T10:00:00Z"),
                    Fixture.sighting(event: "present", time: "2026-11-21T10:00:10Z"),
                ])
                #expect(try await client.send(.post, "/v1/sightings", token: sentinel, json: batch).status == .ok)
                // Two failures (500), then delivered on the third attempt after backoff. Generous: on a loaded machine a
                // failure SQLite could not record in time leaves the row to its 30 s lease (a helper's run saw one call in 10 s).
                #expect(try await eventually(within: 45) { await receiver.calls.count >= 3 })
                try await Task.sleep(for: .milliseconds(300))
                let calls = await receiver.calls
                #expect(calls.count == 3, "only arrived/departed notify, and a delivered event is not sent again")
                for call in calls {
                    let signature = try #require(call.signature)
                    #expect(WebhookSignature.verify(body: call.body, secret: webhook.secret, header: signature))
                    #expect(!WebhookSignature.verify(body: call.body, secret: "whsec_wrong", header: signature))
                }
                #expect(Set(calls.map(\.eventID)).count == 1)
                let event = try JSONDecoder().decode(NotificationEvent.self, from: Data(try #require(calls.last).body))
                #expect(event.event == "arrived" && event.bikeId == bike.id && event.sentinel == "cafe")
                #expect(event.latitude == 52.52 && event.time == "2026-11-21T10:00:00.000Z")
            }
        }
    }

    /// A delivery queued while the receiver is down survives a server restart and arrives once it is up.
    static func webhookSurvivesRestart(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.webhookBackoff = Backoff(initial: 0.05, maximum: 0.1, maxAttempts: 1_000, jitter: 0)
            $0.allowPrivateTargets = true
        })
        let (_, sentinel) = try await harness.sentinel("cafe")
        let receiver = Receiver(failFirst: 0)
        try await receiverApp(receiver).test(.live) { receiverClient in
            let port = try #require(receiverClient.port)
            // First server: the webhook points at a closed port, so delivery fails and stays queued.
            let secret = try await harness.run(keepDatabase: true) { client in
                let owner = try await client.owner("ann@example.org")
                let bike = try await client.bike(owner)
                _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
                let set = try await client.send(.put, "/v1/account/webhook", token: owner, json: ["url": "http://127.0.0.1:1/hook"])
                let secret = try client.decode(Webhook.self, set).secret
                #expect(try await client.send(.post, "/v1/sightings", token: sentinel,
                                              json: Fixture.Batch(sightings: [Fixture.sighting(event: "arrived")])).status == .ok)
                try await Task.sleep(for: .milliseconds(200))
                return secret
            }
            // The receiver "comes up" at its real address; point the queued delivery there, as an operator would after a move.
            try await harness.database.withSession {
                try await $0.raw("UPDATE deliveries SET url = \(bind: "http://127.0.0.1:\(port)/hook")").run()
            }
            #expect(await receiver.calls.isEmpty)
            // Second server on the same database: it finds the queued delivery and sends it.
            let delivered = try await harness.run { _ in try await eventually { await receiver.calls.count == 1 } }
            #expect(delivered)
            let call = try #require(await receiver.calls.first)
            #expect(WebhookSignature.verify(body: call.body, secret: secret, header: try #require(call.signature)))
        }
    }

    /// Two replicas' delivery workers draining one queue at the same moment send each event once.
    static func webhooksOncePerReplica(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.allowPrivateTargets = true })
        let (_, sentinel) = try await harness.sentinel("cafe")
        let receiver = Receiver(failFirst: 0)
        try await receiverApp(receiver).test(.live) { receiverClient in
            let port = try #require(receiverClient.port)
            // Events queued while the receiver is unreachable (a closed port), as after an outage.
            try await harness.run(keepDatabase: true) { client in
                let owner = try await client.owner("ann@example.org")
                let bike = try await client.bike(owner)
                _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
                _ = try await client.send(.put, "/v1/account/webhook", token: owner, json: ["url": "http://127.0.0.1:1/hook"])
                let batch = Fixture.Batch(sightings: (0..<12).map {
                    Fixture.sighting(event: $0 % 2 == 0 ? "arrived" : "departed", time: "2026-11-21T10:\(10 + $0):00Z")
                })
                #expect(try await client.send(.post, "/v1/sightings", token: sentinel, json: batch).status == .ok)
            }
            try await harness.database.withSession {
                try await $0.raw("UPDATE deliveries SET url = \(bind: "http://127.0.0.1:\(port)/hook"), next_attempt_ms = 0").run()
            }
            // Replica B has its own connections on PostgreSQL, as another process would.
            try await harness.withOtherPools(onSQLite: false) { pools in
                let workers = [harness.database, pools[0]].map { database in
                    WebhookWorker(database: database, backoff: .deliveries, http: OutboundHTTP(allowPrivateTargets: true),
                                  notifications: NotificationQueue(
                                    database: database, dispatcher: NotificationDispatcher(interval: 0, channels: [], flavor: database.flavor),
                                    senders: [:], backoff: .deliveries, logger: Harness.logger, now: ServerOptions.wallClock),
                                  logger: Harness.logger, now: ServerOptions.wallClock)
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in workers { group.addTask { try await worker.deliverDue() } }
                    try await group.waitForAll()
                }
            }
            let ids = await receiver.calls.compactMap(\.eventID)
            #expect(ids.count == 12 && Set(ids).count == 12, "each of the 12 events once, not once per replica: \(ids.sorted())")
        }
    }

    static func eventStream(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel("cafe")
        try await harness.run(.live) { client in
            let port = try #require(client.port)
            let owner = try await client.owner("ann@example.org")
            let other = try await client.owner("bob@example.org")
            let bike = try await client.bike(owner)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)

            let stream = await readEvents(port: port, token: owner, until: holdsASighting)
            // The other owner's stream must stay silent.
            let otherStream = await readEvents(port: port, token: other) { $0.contains("event:") }
            let batch = Fixture.Batch(sightings: [Fixture.sighting(event: "departed")])
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel, json: batch).status == .ok)
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                stream.cancel()
            }
            let text = try await stream.value
            watchdog.cancel()
            #expect(text.hasPrefix(": connected"))
            let data = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") })
            let event = try JSONDecoder().decode(NotificationEvent.self, from: Data(data.dropFirst("data: ".count).utf8))
            #expect(event.event == "departed" && event.bikeId == bike.id)
            #expect(text.contains("id: "))
            try await Task.sleep(for: .milliseconds(300))
            otherStream.cancel()
            let otherText = try await otherStream.value
            #expect(otherText.hasPrefix(": connected") && !otherText.contains("event:"), "\(otherText)")
            expectError(try await client.send(.get, "/v1/events", token: sentinel), .forbidden)
        }
    }
}
