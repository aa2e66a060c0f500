import BikebeaconAPI
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// The per-bike read log (#35): every read of a bike's sightings (the owner's API and exports, the theft
/// report, a share link's page and API) is logged with who, when, which route and the client address,
/// at most once a minute per reader, bike and route; the operator exports it with `bikebeacon-server reads`.
enum ReadLogScenarios {
    static func everyReadLogged(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run(.live) { client in
            let ann = try await client.owner("ann@example.org")
            let bob = try await client.owner("bob@example.org")
            let bike = try await client.bike(ann)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann,
                                          json: MissingRequest(policeReference: "PR-77")).status == .ok)
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel,
                                          json: Fixture.Batch(sightings: [Fixture.sighting()])).status == .ok)
            let share = try client.decode(Share.self, try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann,
                                                                             json: ShareRequest(expiresIn: 72, label: "Police case 1234")))
            let token = try #require(share.token)
            let start = clock.read()
            func rows() async throws -> Int {
                try await harness.database.withSession { db in
                    try await db.raw("SELECT COUNT(*) AS n FROM sighting_reads").first()?.decode(column: "n", as: Int.self) ?? 0
                }
            }
            #expect(try await rows() == 0, "marking missing, posting and sharing read no sightings")

            // A dashboard polling the sightings three times in a minute: one row.
            for _ in 0..<3 {
                #expect(try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann).status == .ok)
                clock.advance(10_000)
            }
            #expect(try await rows() == 1)
            // The share link's holder is behind the proxy on loopback (whose X-Forwarded-For is believed).
            let forwarded: HTTPFields = [.xForwardedFor: "203.0.113.7"]
            for (path, owner) in [("/v1/bikes/\(bike.id)/sightings?format=csv", true), ("/v1/bikes/\(bike.id)/sightings?format=geojson", true),
                                  ("/v1/bikes/\(bike.id)/report?owner=Ann", true), ("/s/\(token)", false), ("/v1/shared/\(token)", false),
                                  ("/v1/shared/\(token)", false)] {
                let read = try await client.send(.get, path, token: owner ? ann : nil, headers: owner ? [:] : forwarded)
                #expect(read.status == .ok, "\(path)")
                clock.advance(1000)
            }
            #expect(try await rows() == 6)
            // Another owner's try is a 404 and no read.
            #expect(try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: bob).status == .notFound)
            // Renewed without a reference: the reads after it were still made under PR-77, which put the tag on the list.
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            // A minute later the same poll is a read again.
            clock.advance(60_000)
            let later = clock.read()
            #expect(try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann).status == .ok)
            #expect(try await rows() == 7)

            let record = try #require(try await ReadLogExport.load(database: harness.database, subject: "ANN@example.org"))
            #expect(record.reads.map(\.route) == [
                ReadLog.Route.sightings, .sightingsCSV, .sightingsGeoJSON, .report, .sharePage, .shared, .sightings,
            ].map(\.rawValue))
            #expect(record.reads.first?.time == start && record.reads.last?.time == later)
            let shareReader = "share link \(share.id) \"Police case 1234\""
            #expect(record.reads.map(\.reader) == Array(repeating: "account ann@example.org", count: 4) + [shareReader, shareReader]
                + ["account ann@example.org"])
            #expect(record.reads.map(\.client) == ["127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1", "203.0.113.7", "203.0.113.7", "127.0.0.1"])
            #expect(record.reads.allSatisfy { $0.bikeID == bike.id && $0.policeReference == "PR-77" })
            #expect(record.reports.map(\.policeReference) == ["PR-77", nil])
            let since = try #require(try await ReadLogExport.load(database: harness.database, subject: bike.id, since: later))
            #expect(since.reads.count == 1 && since.reports.isEmpty)
            #expect(try await ReadLogExport.load(database: harness.database, subject: "nobody@example.org") == nil)

            // The operator's command, on this very database. A name holding a terminal escape prints it defused.
            #expect(try await client.send(.patch, "/v1/bikes/\(bike.id)", token: ann, json: BikeFields(name: "Commuter\u{1B}[2J")).status == .ok)
            let database = ["--database", Self.commandLine(harness.database.url)]
            let text = try await run("bikebeacon-server", ["reads", "ann@example.org"] + database)
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.contains("bike \(bike.id) \"Commuter\\u{1B}[2J\" of ann@example.org") && text.stdout.contains("police reference \"PR-77\"")
                && !text.stdout.contains("\u{1B}"), "\(text.stdout)")
            #expect(text.stdout.contains("GET /v1/shared/{token}  \(shareReader)  from 203.0.113.7"), "\(text.stdout)")
            let csv = try await run("bikebeacon-server", ["reads", bike.id, "--csv", "--since", Timestamp.format(milliseconds: later)] + database)
            #expect(csv.status == 0, "\(csv.stderr)")
            #expect(csv.stdout == "time,bike,reader,route,client,policeReference\r\n"
                + "\(Timestamp.format(milliseconds: later)),\(bike.id),account ann@example.org,GET /v1/bikes/{id}/sightings,127.0.0.1,PR-77\r\n")
            let unknown = try await run("bikebeacon-server", ["reads", "nobody@example.org"] + database)
            #expect(unknown.status != 0 && unknown.stderr.contains("no bike, owner or read on record matches 'nobody@example.org'"))
            let badSince = try await run("bikebeacon-server", ["reads", bike.id, "--since", "yesterday"] + database)
            #expect(badSince.status != 0 && badSince.stderr.contains("--since 'yesterday' is not an RFC 3339 time"))

            // Deleting the bike keeps its record; rows older than the retention go with the next read logged.
            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)", token: ann).status == .noContent)
            let deleted = try #require(try await ReadLogExport.load(database: harness.database, subject: bike.id))
            #expect(deleted.reads.count == 7 && deleted.bikes.map(\.name) == [nil])
            clock.advance(ReadLog.retention - (clock.read() - later))
            let other = try await client.bike(ann, name: "Other", beacon: Fixture.beaconB)
            #expect(try await client.send(.get, "/v1/bikes/\(other.id)/sightings", token: ann).status == .ok)
            let pruned = try #require(try await ReadLogExport.load(database: harness.database, subject: "ann@example.org"))
            #expect(pruned.reads.map(\.bikeID) == [bike.id, other.id], "the reads older than the retention are gone; the last one, exactly as old, stays")

            // The live event stream carries a missing bike's sightings as they come: opening it is a read of each missing bike.
            #expect(try await client.send(.post, "/v1/bikes/\(other.id)/missing", token: ann).status == .ok)
            let stream = await readEvents(port: try #require(client.port), token: ann) { _ in false }
            stream.cancel()
            _ = try? await stream.value
            let watched = try #require(try await ReadLogExport.load(database: harness.database, subject: other.id))
            #expect(watched.reads.map(\.route) == [ReadLog.Route.sightings, .events].map(\.rawValue))
            #expect(watched.reads.last?.client == "127.0.0.1")
            // That report pruned the deleted bike's reports, older than the retention.
            #expect(try await ReadLogExport.load(database: harness.database, subject: bike.id)?.reports == [])
        }
    }

    /// The database URL as `--database` takes it.
    static func commandLine(_ url: DatabaseURL) -> String {
        switch url {
        case .sqlite(let path): "sqlite://" + path
        case .postgres(let url): url
        }
    }
}
