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
            // B's requests share one pipelined connection, each with HummingbirdTesting's 20 s read timeout counted
            // from when it is queued, and on SQLite every request of both replicas waits for the one connection: 12
            // batches and 8 reports once took B's last request past 20 s in CI's parallel suite. The same 60
            // sightings in 6 batches and 6 reports still race the release and each other.
            let batches = 6, perBatch = 10, reports = 6
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await AbuseStore(database: databaseB).end(id: first, closing: false, now: harness.options.now())
                }
                for index in 0..<reports {
                    group.addTask {
                        let client = index.isMultiple(of: 2) ? a : b
                        let response = try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: FoundTagScenarios.tag),
                                                             headers: [.xForwardedFor: "198.51.100.\(index + 1)"])
                        #expect(response.status == .created, "\(String(buffer: response.body))")
                    }
                }
                for batch in 0..<batches {
                    group.addTask {
                        let client = batch.isMultiple(of: 2) ? b : a
                        let items = (0..<perBatch).map { item in
                            Fixture.sighting(event: "arrived", time: String(format: "2026-11-21T10:%02d:%02dZ", batch, item))
                        }
                        let result = try client.decode(SightingResult.self, try await client.send(
                            .post, "/v1/sightings", token: sentinel, json: Fixture.Batch(sightings: items)))
                        #expect(result.accepted == perBatch && result.rejected.isEmpty)
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
