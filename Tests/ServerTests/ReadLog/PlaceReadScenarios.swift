import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// Every read of a bike's place is in the read log (#43): the account export, the bike's coverage (it carries the
/// newest place), and each sighting an event stream delivers, also on a stream opened before the bike went missing.
enum PlaceReadScenarios {
    static func exportCoverageAndStreamsLogged(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.owner("ann@example.org")
            let bob = try await client.owner("bob@example.org")
            let bike = try await client.bike(ann)
            let quiet = try await client.bike(ann, name: "Never heard", beacon: Fixture.beaconB)
            func rows() async throws -> [String] {
                try await harness.database.withSession { db in
                    try await db.raw("SELECT route, bike_id FROM sighting_reads ORDER BY time_ms, route").all().map {
                        "\(try $0.decode(column: "route", as: String.self)) \(try $0.decode(column: "bike_id", as: String.self))"
                    }
                }
            }
            /// The stream writes its row right after the event; the test reads the database until it is there.
            func rowsSettled(count: Int) async throws -> [String] {
                for _ in 0..<100 {
                    let found = try await rows()
                    if found.count >= count { return found }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return try await rows()
            }

            // A stream opened while no bike is missing reads nothing yet.
            let stream = await readEvents(port: port, token: ann, until: holdsASighting)
            #expect(try await rows() == [])
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel,
                                          json: Fixture.Batch(sightings: [Fixture.sighting()])).status == .ok)
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                stream.cancel()
            }
            #expect(holdsASighting(try await stream.value))
            watchdog.cancel()
            #expect(try await rowsSettled(count: 1) == ["\(ReadLog.Route.events.rawValue) \(bike.id)"])

            // Coverage carries the newest place: a read. A bike never heard has no place in it: none.
            clock.advance(1000)
            let coverage = try client.decode(BikeCoverage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/coverage", token: ann))
            #expect(coverage.place != nil)
            #expect(try await client.send(.get, "/v1/bikes/\(quiet.id)/coverage", token: ann).status == .ok)
            // Another owner's try is a 404 and no read.
            #expect(try await client.send(.get, "/v1/bikes/\(bike.id)/coverage", token: bob).status == .notFound)
            // The export: a read of each bike it carries sightings of.
            clock.advance(1000)
            #expect(try await client.send(.get, "/v1/account/export", token: ann).status == .ok)
            #expect(try await client.send(.get, "/v1/account/export", token: bob).status == .ok)
            #expect(try await rows() == ["\(ReadLog.Route.events.rawValue) \(bike.id)", "\(ReadLog.Route.coverage.rawValue) \(bike.id)",
                                         "\(ReadLog.Route.export.rawValue) \(bike.id)"])

            // The operator's record names the new routes, with the client.
            let record = try #require(try await ReadLogExport.load(database: harness.database, subject: "ann@example.org"))
            #expect(record.reads.map(\.route) == [ReadLog.Route.events, .coverage, .export].map(\.rawValue))
            #expect(record.reads.allSatisfy { $0.client == "127.0.0.1" && $0.reader == "account ann@example.org" })
        }
    }
}
