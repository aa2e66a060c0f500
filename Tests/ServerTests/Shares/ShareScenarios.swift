import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import Server

/// Share links: what a holder sees without an account, what they never see, and how a link ends.
enum ShareScenarios {
    static func linkLifecycle(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let (_, sentinel) = try await harness.sentinel("Cafe Rosa", latitude: 52.0907, longitude: 5.1214)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann)
            _ = try await client.send(.post, "/v1/sightings", token: sentinel, json: Fixture.Batch(sightings: [Fixture.sighting()]))

            let made = try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann, json: ShareRequest(expiresIn: 2, label: "Police case 1234"))
            #expect(made.status == .created, "\(String(buffer: made.body))")
            let share = try client.decode(Share.self, made)
            let token = try #require(share.token)
            // Without serve --public-url and no trusted proxy in front, the link's origin is the listen address, never the Host header.
            #expect(share.url == "http://127.0.0.1:0/s/\(token)" && share.status == "active" && share.label == "Police case 1234")
            // Only the digest is stored.
            let stored = try await harness.database.withSession { db in
                try await db.raw("SELECT token_hash FROM shares").all().map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(stored == [Tokens.digest(token)])

            // The page opens without an account, and counts the view; its data names the bike and where it was heard, not the owner.
            let page = try await client.send(.get, "/s/\(token)")
            #expect(page.status == .ok && page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'self'") == true)
            let data = try await client.send(.get, "/v1/shared/\(token)")
            #expect(data.status == .ok)
            let shared = try client.decode(SharedBike.self, data)
            #expect(shared.name == "Commuter" && shared.frameNumber == "BR123" && shared.missing && shared.notes == nil)
            #expect(shared.sightings.map(\.place) == ["at Cafe Rosa (52.0907, 5.1214)"])
            let text = String(buffer: data.body)
            for secret in ["ann@example.org", bike.id, Fixture.beaconA, "Police case", "bell on the left"] {
                #expect(!text.contains(secret), "the shared data holds \(secret)")
            }
            let listed = try client.decode(ShareList.self, try await client.send(.get, "/v1/bikes/\(bike.id)/shares", token: ann))
            #expect(listed.shares.map(\.views) == [1] && listed.shares.first?.token == nil && listed.shares.first?.lastViewedAt != nil)

            // Notes only when the owner says so.
            let withNotes = try client.decode(Share.self, try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann,
                                                                                json: ShareRequest(expiresIn: 720, includeNotes: true)))
            let notes = try client.decode(SharedBike.self, try await client.send(.get, "/v1/shared/\(try #require(withNotes.token))"))
            #expect(notes.notes == "bell on the left")

            // Someone else's bike, a bad lifetime, an unknown token.
            let bob = try await client.owner("bob@example.org")
            expectError(try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: bob, json: ShareRequest(expiresIn: 1)), .notFound)
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/shares", token: bob), .notFound)
            expectError(try await client.send(.delete, "/v1/bikes/\(bike.id)/shares/\(share.id)", token: bob), .notFound)
            for hours in [0, 721] {
                expectError(try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann, json: ShareRequest(expiresIn: hours)), .badRequest)
            }
            #expect(try await client.send(.get, "/s/bbl_nonsense").status == .notFound)
            expectError(try await client.send(.get, "/v1/shared/bbl_nonsense"), .notFound)

            // Two hours on, the first link has expired: a plain 410 page, and the data is gone too.
            clock.advance(2 * 3_600_000 + 1)
            let expired = try await client.send(.get, "/s/\(token)")
            #expect(expired.status == .gone && String(buffer: expired.body).contains("expired"))
            expectError(try await client.send(.get, "/v1/shared/\(token)"), .gone, "share_expired")

            // Revoked: at once.
            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)/shares/\(withNotes.id)", token: ann).status == .noContent)
            let revoked = try await client.send(.get, "/s/\(try #require(withNotes.token))")
            #expect(revoked.status == .gone && String(buffer: revoked.body).contains("revoked"))
            let statuses = try client.decode(ShareList.self, try await client.send(.get, "/v1/bikes/\(bike.id)/shares", token: ann)).shares
                .reduce(into: [String: String]()) { $0[$1.id] = $1.status }
            #expect(statuses == [share.id: "expired", withNotes.id: "revoked"])

            // The export lists them; deleting the bike deletes them.
            let export = try client.decode(AccountExport.self, try await client.send(.get, "/v1/account/export", token: ann))
            #expect(export.shares.map(\.id).sorted() == [share.id, withNotes.id].sorted())
            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)", token: ann).status == .noContent)
            let left = try await harness.database.withSession { db in
                try await db.raw("SELECT COUNT(*) AS n FROM shares").first()?.decode(column: "n", as: Int.self)
            }
            #expect(left == 0)
        }
    }

    /// At most 10 active links a bike; a recovered bike's links stop at once; links start with
    /// `serve --public-url` (also without email), never with the Host header a client sent.
    static func limitsAndOrigin(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.publicURL = "https://bikes.example.org"
        })
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann)
            func make(hours: Int = 24) async throws -> TestResponse {
                try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann, json: ShareRequest(expiresIn: hours),
                                      headers: [HTTPField.Name("Host")!: "evil.example", HTTPField.Name("X-Forwarded-Proto")!: "http"])
            }
            var shares: [Share] = []
            // One expires within the hour: it stops counting when it expires.
            shares.append(try client.decode(Share.self, try await make(hours: 1)))
            for _ in 1..<ShareStore.maxActivePerBike { shares.append(try client.decode(Share.self, try await make())) }
            #expect(shares.allSatisfy { $0.url?.hasPrefix("https://bikes.example.org/s/bbl_") == true }, "\(shares.map(\.url))")
            let eleventh = try await make()
            expectError(eleventh, .conflict, "share_limit")
            #expect(String(buffer: eleventh.body).contains("revoke one"))
            // A revoked link frees a place; so does an expired one.
            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)/shares/\(shares[5].id)", token: ann).status == .noContent)
            #expect(try await make().status == .created)
            expectError(try await make(), .conflict, "share_limit")
            clock.advance(3_600_001)
            #expect(try await make().status == .created)
            // Another bike has its own ten.
            let other = try await client.bike(ann, name: "Second", beacon: Fixture.beaconB)
            #expect(try await client.send(.post, "/v1/bikes/\(other.id)/shares", token: ann, json: ShareRequest(expiresIn: 24)).status == .created)

            // Recovered: every link of the bike answers 410 revoked, the other bike's still opens.
            let live = try #require(shares[1].token)
            #expect(try await client.send(.get, "/v1/shared/\(live)").status == .ok)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: ann).status == .ok)
            expectError(try await client.send(.get, "/v1/shared/\(live)"), .gone, "share_revoked")
            let statuses = try client.decode(ShareList.self, try await client.send(.get, "/v1/bikes/\(bike.id)/shares", token: ann)).shares.map(\.status)
            #expect(Set(statuses).isSubset(of: ["revoked", "expired"]) && statuses.count == 12, "\(statuses)")
            #expect(try client.decode(ShareList.self, try await client.send(.get, "/v1/bikes/\(other.id)/shares", token: ann)).shares.map(\.status) == ["active"])
        }
    }
}

/// Where links point: `--public-url` first; else only a trusted proxy's Host and X-Forwarded-Proto.
@Suite struct PublicOriginTests {
    @Test func linksStartWithTheConfiguredURLOrWhatATrustedProxySays() throws {
        let listen = "127.0.0.1:8080"
        func origin(_ configured: String?, peer: String?, host: String?, proto: String?, trusted: TrustedProxies = .loopback) -> String {
            PublicOrigin.of(configured: configured, peer: peer, host: host, forwardedProto: proto, trusted: trusted, listen: listen)
        }
        #expect(origin("https://bikes.example.org", peer: "203.0.113.9", host: "evil.example", proto: "http") == "https://bikes.example.org")
        // The packaged proxy on loopback says https: links are https.
        #expect(origin(nil, peer: "127.0.0.1", host: "bikes.example.org", proto: "https") == "https://bikes.example.org")
        #expect(origin(nil, peer: "::1", host: "bikes.example.org", proto: nil) == "http://bikes.example.org")
        // A client straight on the port: neither its Host nor its X-Forwarded-Proto is believed.
        #expect(origin(nil, peer: "203.0.113.9", host: "evil.example", proto: "https") == "http://127.0.0.1:8080")
        #expect(origin(nil, peer: nil, host: "evil.example", proto: "https") == "http://127.0.0.1:8080")
        // A proxy on another host, named by --trusted-proxy; without any, not even loopback is believed.
        let remote = try TrustedProxies(parsing: ["10.0.0.0/24"])
        #expect(origin(nil, peer: "10.0.0.2", host: "bikes.example.org", proto: "https", trusted: remote) == "https://bikes.example.org")
        #expect(origin(nil, peer: "127.0.0.1", host: "bikes.example.org", proto: "https", trusted: remote) == "http://127.0.0.1:8080")
        #expect(origin(nil, peer: "127.0.0.1", host: "bikes.example.org", proto: "https", trusted: .none) == "http://127.0.0.1:8080")
        // A Host that would break out of the URL's authority is not used.
        #expect(origin(nil, peer: "127.0.0.1", host: "evil.example/@x", proto: "https") == "http://127.0.0.1:8080")
    }
}
