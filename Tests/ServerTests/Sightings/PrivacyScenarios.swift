import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
@testable import Server

/// Home sentinels stay private (#35, finding 3): a hostile owner who walks a tag of their own,
/// marked missing, past someone's home sentinel learns neither its name nor its exact place from
/// any answer (sightings as JSON, CSV and GeoJSON, the account export, the event stream's stored
/// events, the queued push/email/webhook notifications, a share link, the theft report). The
/// sentinel's owner still sees their own; the operator looks the exact place up by the reference.
enum PrivacyScenarios {
    static let home = (name: "Bob's garage, 12 Elm St", latitude: 52.123456, longitude: 4.654321)
    /// What the exact place must never be read as: its name, its parts, its coordinates to 3+ decimals.
    static let secrets = ["Bob", "Elm St", "garage", "52.123", "4.654", "52.1235", "4.6543"]

    /// `text` with its timestamps blanked: a time such as `08:44:52.123Z` is no leaked latitude.
    static func withoutTimes(_ text: String) -> String {
        text.replacing(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?/, with: "TIME")
    }

    static func hostileOwner(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.allowPrivateTargets = true })
        let (_, cafe) = try await harness.sentinel("Cafe Rosa", latitude: 52.09071234, longitude: 5.12149876)
        try await harness.run { client in
            let bob = try await client.owner("bob@example.org")
            let (_, bobsHome) = try await SentinelStore(database: harness.database).add(
                name: home.name, latitude: home.latitude, longitude: home.longitude, ownerEmail: "bob@example.org", now: Fixture.enrolled)
            let mallory = try await client.owner("mallory@example.org")
            let tag = try await client.bike(mallory, name: "Decoy")
            _ = try await client.send(.post, "/v1/bikes/\(tag.id)/missing", token: mallory)
            // Mallory subscribes to push (port 1 on loopback: nothing listens, so the rows stay queued to be read).
            #expect(try await client.send(.post, "/v1/push/subscriptions", token: mallory,
                                          json: PushScenarios.subscription("http://127.0.0.1:1/push")).status == .created)

            // Walked past Bob's house three times (each a new visit), and past the cafe once.
            for hour in 10...12 {
                let visit = Fixture.Batch(sightings: [Fixture.sighting(event: "arrived", time: "2026-11-21T\(hour):00:00Z"),
                                                      Fixture.sighting(event: "departed", time: "2026-11-21T\(hour):20:00Z")])
                let result = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: bobsHome, json: visit))
                #expect(result.accepted == 2, "\(result)")
            }
            _ = try await client.send(.post, "/v1/sightings", token: cafe,
                                      json: Fixture.Batch(sightings: [Fixture.sighting(event: "arrived", time: "2026-11-21T13:00:00Z")]))

            // The sightings: "a private sentinel" on one point of the ~500 m grid, the same for every visit.
            let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(tag.id)/sightings", token: mallory))
            let private_ = page.sightings.filter { $0.sentinel == SightingPrivacy.privateName }
            #expect(private_.count == 6)
            let snapped = SightingPrivacy.snapped(latitude: home.latitude, longitude: home.longitude)
            #expect(private_.allSatisfy { $0.latitude == snapped.latitude && $0.longitude == snapped.longitude && $0.accuracy == 500 })
            #expect(snapped.latitude == 52.125, "the grid's row is 0.005° of latitude")
            // The snapped point is hundreds of metres from the house, never on it.
            let metres = hypot((snapped.latitude - home.latitude) * 111_320, (snapped.longitude - home.longitude) * 111_320 * cos(home.latitude * .pi / 180))
            #expect(metres > 100 && metres < 600, "\(metres) m")
            // A public sentinel: its name, its place to 4 decimals.
            let public_ = try #require(page.sightings.first { $0.sentinel == "Cafe Rosa" })
            #expect(public_.latitude == 52.0907 && public_.longitude == 5.1215 && public_.place == "at Cafe Rosa (52.0907, 5.1215)")
            #expect(private_.first?.place == "at a private sentinel (52.1250, \(SightingRecord.degrees(snapped.longitude)), ±500 m)")

            var answers: [(String, String)] = []
            func read(_ what: String, _ path: String, token: String?) async throws {
                let response = try await client.send(.get, path, token: token)
                #expect(response.status == .ok, "\(what): \(response.status)")
                answers.append((what, String(buffer: response.body)))
            }
            try await read("sightings", "/v1/bikes/\(tag.id)/sightings?limit=500", token: mallory)
            try await read("CSV", "/v1/bikes/\(tag.id)/sightings?format=csv", token: mallory)
            try await read("GeoJSON", "/v1/bikes/\(tag.id)/sightings?format=geojson", token: mallory)
            try await read("account export", "/v1/account/export", token: mallory)
            let share = try client.decode(Share.self, try await client.send(.post, "/v1/bikes/\(tag.id)/shares", token: mallory,
                                                                             json: ShareRequest(expiresIn: 24)))
            let token = try #require(share.token)
            try await read("shared data", "/v1/shared/\(token)", token: nil)
            try await read("shared page", "/s/\(token)", token: nil)
            try await read("theft report", "/v1/bikes/\(tag.id)/report/\(token)", token: mallory)
            let stored = try await harness.database.withSession { db in
                let events = try await db.raw("SELECT payload FROM events").all().map { try $0.decode(column: "payload", as: String.self) }
                let queued = try await db.raw("SELECT payload FROM notification_deliveries").all().map { try $0.decode(column: "payload", as: String.self) }
                return (events, queued)
            }
            #expect(!stored.0.isEmpty && !stored.1.isEmpty, "events and notifications were made: \(stored)")
            answers += stored.0.map { ("event stream", $0) } + stored.1.map { ("notification", $0) }
            for (what, text) in answers {
                for secret in secrets {
                    #expect(!withoutTimes(text).contains(secret), "\(what) shows \(secret): \(text.prefix(2000))")
                }
            }
            #expect(stored.0.allSatisfy { $0.contains(SightingPrivacy.privateName) || $0.contains("Cafe Rosa") })

            // The report says where the exact place is, with a reference the operator can look up.
            let report = try #require(answers.first { $0.0 == "theft report" }?.1)
            #expect(report.contains("the exact place is available to the police from the network&#39;s operator, reference"))
            let reference = try #require(private_.first?.id)
            #expect(report.contains(reference))
            let found = try #require(try await SightingLookup(database: harness.database).find(id: reference))
            #expect(found.sighting.sentinel == home.name && found.sighting.latitude == home.latitude && found.sighting.longitude == home.longitude)
            #expect(found.sentinelOwnerEmail == "bob@example.org" && found.bikeOwnerEmail == "mallory@example.org")
            #expect(found.report.contains("52.123456, 4.654321") && found.report.contains(home.name))

            // Bob's own bike heard by his own home sentinel: he sees his garage (to 4 decimals); his share link does not.
            let own = try await client.bike(bob, name: "Bob's own", beacon: Fixture.beaconB)
            _ = try await client.send(.post, "/v1/bikes/\(own.id)/missing", token: bob)
            _ = try await client.send(.post, "/v1/sightings", token: bobsHome,
                                      json: Fixture.Batch(sightings: [Fixture.sighting(uuid: Fixture.beaconB, time: "2026-11-21T14:00:00Z")]))
            let mine = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(own.id)/sightings", token: bob))
            #expect(mine.sightings.map(\.sentinel) == [home.name] && mine.sightings.first?.latitude == 52.1235 && mine.sightings.first?.longitude == 4.6543)
            let bobsShare = try client.decode(Share.self, try await client.send(.post, "/v1/bikes/\(own.id)/shares", token: bob,
                                                                                 json: ShareRequest(expiresIn: 24)))
            let shared = String(buffer: try await client.send(.get, "/v1/shared/\(try #require(bobsShare.token))").body)
            #expect(!shared.contains("Bob's garage") && !shared.contains("52.1235") && shared.contains(SightingPrivacy.privateName))

            // Bob leaves (his sentinel's owner becomes NULL): his house is still a private sentinel's.
            #expect(try await client.send(.delete, "/v1/account", token: bob, json: AccountDeletion(password: "correct horse battery")).status == .noContent)
            let after = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: bobsHome,
                json: Fixture.Batch(sightings: [Fixture.sighting(event: "arrived", time: "2026-11-21T15:00:00Z")])))
            #expect(after.accepted == 1)
            let later = String(buffer: try await client.send(.get, "/v1/bikes/\(tag.id)/sightings", token: mallory).body)
            for secret in secrets { #expect(!withoutTimes(later).contains(secret), "after Bob left, the sightings show \(secret)") }
        }
    }
}
