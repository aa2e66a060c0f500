import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
@testable import Server

/// Reports, a release and sightings at the same moment on two replicas of one database (#43, "Bad input and
/// faults"): each seal happens once (one case, one notice), every report lands in a case, and no sighting is lost.
enum SealRaceScenarios {
    static func onceAcrossReplicas(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.foundReportClientLimit = RateLimit(perSecond: 1000, burst: 1000)
            $0.foundTagPerTagLimit = RateLimit(perSecond: 1000, burst: 1000)
            $0.reportBreakerPerHour = 1000
        })
        let (_, sentinel) = try await harness.sentinel()
        try await harness.withReplica(.live) { a, b, databaseB in
            let ann = try await a.owner("ann@example.org")
            let bike = try await a.bike(ann)
            #expect(try await a.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            let first = try a.decode(HiddenTagReceipt.self, try await a.send(.post, "/v1/found/report",
                                                                             json: HiddenTagReport(tag: FoundTagScenarios.tag))).reference
            // Each replica's client sends its requests one after another: HummingbirdTesting's 20 s read timeout counts
            // from when a request is queued on its connection, and on SQLite every request of both replicas waits for the
            // one database connection, so requests pipelined on one client (12 batches and 8 reports, then 6 and 6) took
            // the last past 20 s twice in CI's parallel suite. The two replicas' sequences and the release still race.
            let batches = 6, perBatch = 10, reports = 6
            @Sendable func report(_ client: Client, _ index: Int) async throws {
                let response = try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: FoundTagScenarios.tag),
                                                     headers: [.xForwardedFor: "198.51.100.\(index + 1)"])
                #expect(response.status == .created, "\(String(buffer: response.body))")
            }
            @Sendable func batch(_ client: Client, _ batch: Int) async throws {
                let items = (0..<perBatch).map { item in
                    Fixture.sighting(event: "arrived", time: String(format: "2026-11-21T10:%02d:%02dZ", batch, item))
                }
                let result = try client.decode(SightingResult.self, try await client.send(
                    .post, "/v1/sightings", token: sentinel, json: Fixture.Batch(sightings: items)))
                #expect(result.accepted == perBatch && result.rejected.isEmpty)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await AbuseStore(database: databaseB).end(id: first, closing: false, now: harness.options.now())
                }
                for (client, parity) in [(a, 0), (b, 1)] {
                    group.addTask {
                        for index in 0..<max(reports, batches) {
                            if index < reports, index % 2 == parity { try await report(client, index) }
                            if index < batches, index % 2 != parity { try await batch(client, index) }
                        }
                    }
                }
                try await group.waitForAll()
            }

            let state = try await harness.database.withSession { db in
                (reports: try await db.raw("SELECT id, status, case_id FROM abuse_reports").all().map {
                    (id: try $0.decode(column: "id", as: String.self), status: try $0.decode(column: "status", as: String.self),
                     case: try $0.decode(column: "case_id", as: String?.self))
                },
                 sealedBy: try await db.raw("SELECT sealed_case FROM bikes WHERE id = \(bind: bike.id)").first()?
                    .decode(column: "sealed_case", as: String?.self),
                 sightings: try await db.raw("SELECT sealed_case FROM sightings WHERE bike_id = \(bind: bike.id)").all().map {
                    try $0.decode(column: "sealed_case", as: String?.self)
                 })
            }
            // No sighting lost: every one stored, under no case or under one of the cases.
            #expect(state.sightings.count == batches * perBatch)
            let cases = Set(state.reports.filter { $0.case == $0.id }.map(\.id))
            #expect(state.sightings.allSatisfy { $0 == nil || cases.contains($0 ?? "") })
            // Every report in a case; the open ones all in the one case sealing the bike now.
            #expect(state.reports.count == reports + 1 && state.reports.allSatisfy { $0.case != nil })
            let open = state.reports.filter { $0.status == "open" }
            #expect(Set(open.map(\.case)).count <= 1)
            #expect(open.isEmpty ? state.sealedBy == nil : state.sealedBy == open.first?.case)
            #expect(state.reports.first { $0.id == first }?.status == "released")
            // Each seal once: one `sealed` notice per case, one `released` for the first.
            let notices = try await SealScenarios.reviewEvents(harness)
            #expect(notices.filter { $0 == "sealed" }.count == cases.count, "\(notices) for \(cases.count) cases")
            #expect(notices.filter { $0 == "released" }.count == 1)
            // The owner sees exactly the sightings stored unsealed or under the released case.
            let visible = state.sightings.filter { $0 == nil || $0 == first }.count
            let page = try a.decode(SightingPage.self, try await b.send(.get, "/v1/bikes/\(bike.id)/sightings?limit=100", token: ann))
            #expect(page.sightings.count == visible)

            // An event stored just before a seal and not yet sent is withheld while the bike is sealed.
            if state.sealedBy != nil {
                let account = try #require(try await harness.database.withSession { db in
                    try await db.raw("SELECT owner_id FROM bikes WHERE id = \(bind: bike.id)").first()?.decode(column: "owner_id", as: String.self)
                })
                let before = try await EventStore.latestID(account: account, database: harness.database)
                try await harness.database.withSession { db in
                    try await EventStore.append(["type": "sighting", "bikeId": bike.id], account: account, bikeID: bike.id, now: 0, in: db)
                }
                #expect(try await EventStore.events(account: account, after: before, limit: 10, database: harness.database).isEmpty)
            }
        }
    }

    /// The breaker holds across replicas: reports of many bikes at once on two servers seal exactly the breaker's number.
    static func breakerAcrossReplicas(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.foundReportClientLimit = RateLimit(perSecond: 1000, burst: 1000)
            $0.reportBreakerPerHour = 3
        })
        try await harness.withReplica(.live) { a, b, _ in
            let ann = try await a.owner("ann@example.org")
            for minor in 1...8 { _ = try await a.bike(ann, name: "Bike \(minor)", minor: minor) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for minor in 1...8 {
                    group.addTask {
                        let response = try await (minor.isMultiple(of: 2) ? a : b).send(
                            .post, "/v1/found/report", json: HiddenTagReport(tag: "\(Fixture.beaconA)/1/\(minor)"),
                            headers: [.xForwardedFor: "198.51.100.\(minor)"])
                        #expect(response.status == .created)
                    }
                }
                try await group.waitForAll()
            }
            let statuses = try await AbuseStore(database: harness.database).list().map(\.status)
            #expect(statuses.filter { $0 == "open" }.count == 3 && statuses.filter { $0 == "held" }.count == 5, "\(statuses)")
        }
    }
}
