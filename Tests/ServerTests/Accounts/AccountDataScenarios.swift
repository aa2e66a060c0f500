import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import Server

/// An owner takes their data away, then leaves: nothing of theirs may stay behind, and sentinels stop looking for their bikes.
enum AccountDataScenarios {
    static func exportThenDelete(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel("Cafe Rosa", latitude: 52.0907, longitude: 5.1214)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bob = try await client.owner("bob@example.org")
            let commuter = try await client.bike(ann)
            _ = try await client.bike(ann, name: "Spare", beacon: Fixture.beaconB, major: 3838, minor: 4949)
            let bobs = try await client.bike(bob, name: "Bob's", beacon: Fixture.beaconC, major: 20597, minor: 62207)
            _ = try await client.send(.post, "/v1/bikes/\(commuter.id)/missing", token: ann)
            _ = try await client.send(.post, "/v1/bikes/\(bobs.id)/missing", token: bob)
            let heard = Fixture.Batch(sightings: [Fixture.sighting(event: "arrived"),
                                                  Fixture.sighting(uuid: Fixture.beaconC, major: 20597, minor: 62207)])
            #expect(try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel, json: heard)).accepted == 2)

            #expect(try await client.send(.post, "/v1/push/subscriptions", token: ann,
                                          json: PushScenarios.subscription("https://push.example.net/send/ann")).status == .created)
            #expect(try await client.send(.put, "/v1/account/notifications", token: ann,
                                          json: NotificationSettingsChange(email: false)).status == .ok)

            let exported = try await client.send(.get, "/v1/account/export", token: ann)
            #expect(exported.status == .ok)
            #expect(exported.headers[.contentDisposition]?.contains("attachment") == true)
            let data = try client.decode(AccountExport.self, exported)
            #expect(data.account.email == "ann@example.org")
            #expect(Set(data.bikes.map(\.name)) == ["Commuter", "Spare"])
            // Only Ann's sightings: Bob's bike was heard too, but it is not hers.
            #expect(data.sightings.map(\.bikeId) == [commuter.id] && data.sightings.first?.sentinel == "Cafe Rosa")
            // Her settings, where pushes go and where she is logged in, without keys or tokens.
            #expect(data.notifications == NotificationSettings(push: true, email: false))
            #expect(data.pushSubscriptions.map(\.endpoint) == ["https://push.example.net/send/ann"])
            #expect(data.sessions.count == 1 && data.sessions.first?.current == true && data.sessions.first?.kind == "token")
            #expect(!String(buffer: exported.body).contains("p256dh") && !String(buffer: exported.body).contains(ann))

            let listBefore = try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel))
            expectError(try await client.send(.delete, "/v1/account", token: ann, json: AccountDeletion(password: "not my password")),
                        .forbidden, "invalid_credentials")
            #expect(try await client.send(.get, "/v1/account", token: ann).status == .ok)
            #expect(try await client.send(.delete, "/v1/account", token: ann, json: AccountDeletion(password: "correct horse battery")).status == .noContent)

            expectError(try await client.send(.get, "/v1/account", token: ann), .unauthorized, "unauthenticated")
            expectError(try await client.send(.post, "/v1/sessions", json: Credentials(email: "ann@example.org", password: "correct horse battery")),
                        .unauthorized, "invalid_credentials")
            // Sentinels drop the deleted missing bike at their next refresh (a new version, and the delta says so).
            let listAfter = try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel))
            #expect(listAfter.version > listBefore.version)
            #expect(listAfter.beacons.map(\.bike.beacon) == [bobs.beacon])
            let delta = try client.decode(MissingDelta.self, try await client.send(.get, "/v1/missing?since=\(listBefore.version)", token: sentinel))
            #expect(delta.removed == [commuter.beacon])

            let left = try await harness.database.withSession { db in
                let bikes = try await db.raw("SELECT COUNT(*) AS n FROM bikes").first(decodingColumn: "n", as: Int.self)
                let sightings = try await db.raw("SELECT COUNT(*) AS n FROM sightings").first(decodingColumn: "n", as: Int.self)
                let sessions = try await db.raw("SELECT COUNT(*) AS n FROM sessions").first(decodingColumn: "n", as: Int.self)
                return [bikes, sightings, sessions]
            }
            // Bob's bike, his sighting and his session remain; nothing of Ann's does.
            #expect(left == [1, 1, 1])
            #expect(try await client.send(.get, "/v1/bikes/\(bobs.id)", token: bob).status == .ok)
        }
    }
}
