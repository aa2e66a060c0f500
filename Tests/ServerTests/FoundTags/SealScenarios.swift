import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
import TestSupport
@testable import Server

/// A report seals, never destroys (#43, goals 1 and 2): the bike stays on the sentinels' list, its sightings are
/// stored sealed and reach nobody through the owner's account, share links pause, and the owner is told at once
/// (push, mail, stream), without the reporter's data; `abuse release` shows the sealed sightings marked held for
/// review, `abuse close` ends recording and keeps them for the police, read-logged, until `abuse purge`.
enum SealScenarios {
    typealias Clock = PushScenarios.Clock

    static let reporterWords = "Sewn into my bag's lining. I am at the library"
    static let reporterContact = "scared@example.net"

    static func sealsAndReleases(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try MailScenarios.options(sink, clock: clock) {
            $0.sentinelAlerts.operatorEmails = ["ops@example.org"]
        })
        let database = SealScenarios.databaseArguments(harness)
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            let link = try #require(try client.decode(Share.self, try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann,
                                                                                           json: ShareRequest(expiresIn: 24))).token)
            func post(_ time: String, _ event: String = "arrived") async throws -> SightingResult {
                try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel,
                                                                             json: Fixture.Batch(sightings: [Fixture.sighting(event: event, time: time)])))
            }
            #expect(try await post("2026-11-21T10:00:00Z").accepted == 1)
            // Sent before the report (a seal stops what is still queued of the bike's place).
            #expect(try await MailScenarios.received(sink, count: 1).map(\.parsed.subject) == ["Commuter was seen at garage"])

            // A stream open across the report: the sighting before it, then the notice, and nothing of the bike's place after.
            let stream = await readEvents(port: port, token: ann) { $0.contains("\"status\":\"released\"") && $0.hasSuffix("\n\n") }
            let reported = try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: FoundTagScenarios.tag, message: reporterWords,
                                                                                                contact: reporterContact))
            #expect(reported.status == .created)
            let reference = try client.decode(HiddenTagReceipt.self, reported).reference

            // The sentinels keep looking: the list is unchanged, and a sighting is accepted and stored, sealed.
            #expect(try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel)).beacons.count == 1)
            #expect(try await post("2026-11-21T11:00:00Z").accepted == 1)
            #expect(try await post("2026-11-21T11:30:00Z", "departed").accepted == 1)
            let sealed = try await sealedSightings(harness)
            #expect(sealed.count == 2 && Set(sealed.map(\.case)) == [reference])

            // Nothing sealed through the owner's account: API, CSV, GeoJSON, export, coverage, theft report, share.
            try await expectOwnerSees(1, of: bike.id, token: ann, client: client, sealed: sealed.map(\.id))
            let shares = try client.decode(ShareList.self, try await client.send(.get, "/v1/bikes/\(bike.id)/shares", token: ann)).shares
            #expect(shares.map(\.status) == ["paused"])
            expectError(try await client.send(.get, "/v1/shared/\(link)"), .gone, "share_paused")
            #expect(try await client.send(.get, "/s/\(link)").status == .gone)

            // The owner: told, "under review", still missing, and may renew it (no 409 trap).
            let held = try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann))
            #expect(held.underReview == true && held.missing)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            let notices = try await PushScenarios.queuedNotifications(harness)
            #expect(notices.map(\.event) == [.arrived, .reviewStarted], "no sealed sighting is pushed or mailed")
            let notice = try #require(notices.last)
            #expect(notice.contact == "ops@example.org" && notice.place == nil && notice.latitude == nil)
            #expect(notice.message?.contains("kept but not shown to you") == true)
            for secret in [reporterWords, reporterContact, "library"] {
                #expect(try JSONEncoder().encode(notice).range(of: Data(secret.utf8)) == nil, "the owner's notice holds the reporter's \(secret)")
            }
            let mails = try await MailScenarios.received(sink, count: 3)
            let toAnn = mails.filter { $0.rcpt_tos == ["ann@example.org"] }
            #expect(toAnn.map(\.parsed.subject) == ["Commuter was seen at garage", "Commuter's sightings are on hold for a review"], "\(toAnn.map(\.parsed.subject))")
            #expect(toAnn.last?.parsed.text?.contains("ops@example.org") == true)
            #expect(toAnn.last.map { !($0.parsed.text ?? "").contains("library") } == true)
            #expect(mails.contains { $0.rcpt_tos == ["ops@example.org"] && $0.parsed.subject.contains(reference) })

            // The operator's view: the report is open and seals the bike; the Network page counts it.
            let list = try await run("bikebeacon-server", ["abuse", "list"] + database)
            #expect(list.lines.count == 2 && list.lines[1].hasPrefix("\(reference)\topen\t") && list.lines[1].hasSuffix("\t\(reference)"), "\(list.stdout)")
            try await OperatorStore(database: harness.database).add(email: "ann@example.org", now: clock.read())
            let open = try client.decode(NetworkReportList.self, try await client.send(.get, "/v1/network/reports", token: ann))
            #expect(open.open == 1 && open.held == 0 && open.reports.map(\.reference) == [reference])

            // Released: the owner sees the sealed sightings, marked held for review; links open again; told again.
            let released = try await run("bikebeacon-server", ["abuse", "release", reference] + database)
            #expect(released.status == 0, "\(released.stderr)")
            // On PostgreSQL the command's NOTIFY wakes the stream; on SQLite another process cannot, so it is cut after a while.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(backend == .postgres ? 30 : 2))
                stream.cancel()
            }
            let text = try await stream.value
            watchdog.cancel()
            #expect(!text.contains("event: sighting"), "the stream carried a sealed sighting: \(text)")
            #expect(text.contains("\"status\":\"sealed\""))
            if backend == .postgres { #expect(text.contains("\"status\":\"released\"")) }
            #expect(!text.contains("library") && !text.contains(reporterContact))
            let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann))
            #expect(page.sightings.count == 3)
            #expect(page.sightings.filter { $0.heldForReview == true }.map(\.id).sorted() == sealed.map(\.id).sorted())
            let csv = String(buffer: try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=csv", token: ann).body)
            #expect(csv.split(separator: "\r\n").filter { $0.hasSuffix(",true") }.count == 2, "\(csv)")
            let geo = String(buffer: try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=geojson", token: ann).body)
            #expect(geo.components(separatedBy: "\"heldForReview\":true").count == 3)
            #expect(try client.decode(ShareList.self, try await client.send(.get, "/v1/bikes/\(bike.id)/shares", token: ann)).shares.map(\.status) == ["active"])
            #expect(try await client.send(.get, "/v1/shared/\(link)").status == .ok)
            #expect(try await PushScenarios.queuedNotifications(harness).map(\.event).last == .reviewReleased)
            #expect(try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann)).underReview == nil)
            let twice = try await run("bikebeacon-server", ["abuse", "release", reference] + database)
            #expect(twice.status != 0 && twice.stderr.contains("released, not open"), "\(twice.stderr)")
        }
    }

    /// `abuse close`: recording ends (off the list, for good), the sealed sightings stay for the police through
    /// `sightings show` (every read logged), survive the owner deleting the account, and `abuse purge` deletes them.
    static func closesForThePolice(_ backend: Backend) async throws {
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let database = databaseArguments(harness)
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            let reference = try client.decode(HiddenTagReceipt.self, try await client.send(
                .post, "/v1/found/report", json: HiddenTagReport(tag: FoundTagScenarios.tag))).reference
            #expect(try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel, json: Fixture.Batch(
                sightings: [Fixture.sighting(time: "2026-11-21T12:00:00Z")]))).accepted == 1)
            let sighting = try #require(try await sealedSightings(harness).first)

            let closed = try await run("bikebeacon-server", ["abuse", "close", reference] + database)
            #expect(closed.status == 0, "\(closed.stderr)")
            #expect(try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel)).beacons.isEmpty)
            expectError(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann), .conflict, "case_closed")
            #expect(try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann)).sightings.isEmpty)
            #expect(try await reviewEvents(harness) == ["sealed", "closed"])

            // The police's look-up, logged each time; after the owner leaves, from the kept copy.
            for round in 1...2 {
                let shown = try await run("bikebeacon-server", ["sightings", "show", sighting.id] + database)
                #expect(shown.status == 0 && shown.stdout.contains("sealed: stored while report case \(reference)"), "\(shown.stdout)\(shown.stderr)")
                #expect(try await operatorReads(harness) == round)
                if round == 1 {
                    #expect(try await client.send(.delete, "/v1/account", token: ann,
                                                  json: AccountDeletion(password: "correct horse battery")).status == .noContent)
                }
            }
            let purged = try await run("bikebeacon-server", ["abuse", "purge", reference] + database)
            #expect(purged.status == 0 && purged.stdout.contains("1 sealed sightings deleted"), "\(purged.stdout)\(purged.stderr)")
            #expect(try await run("bikebeacon-server", ["sightings", "show", sighting.id] + database).status != 0)
        }
    }

    /// A closed case's sealed sightings go when `serve --sealed-retention-days` has passed, not before.
    static func retentionEnds(_ backend: Backend) async throws {
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann)
            let reference = try client.decode(HiddenTagReceipt.self, try await client.send(
                .post, "/v1/found/report", json: HiddenTagReport(tag: FoundTagScenarios.tag))).reference
            _ = try await client.send(.post, "/v1/sightings", token: sentinel, json: Fixture.Batch(sightings: [Fixture.sighting()]))
            _ = try await AbuseStore(database: harness.database).end(id: reference, closing: true, now: clock.read())
            let retention = harness.options.sealedRetentionMilliseconds
            #expect(retention == 180 * 86_400_000)
            clock.advance(retention - 1000)
            #expect(try await SightingSeal.expire(retention: retention, now: clock.read(), database: harness.database).isEmpty)
            #expect(try await sealedSightings(harness).count == 1)
            clock.advance(2000)
            #expect(try await SightingSeal.expire(retention: retention, now: clock.read(), database: harness.database) == [reference])
            #expect(try await sealedSightings(harness).isEmpty)
        }
    }

    /// What the owner sees of the bike: `count` sightings by every owner-facing route, none of `sealed`.
    static func expectOwnerSees(_ count: Int, of bikeID: String, token: String, client: Client, sealed: [String],
                                sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bikeID)/sightings", token: token))
        #expect(page.sightings.count == count, sourceLocation: sourceLocation)
        var bodies = [String(buffer: try await client.send(.get, "/v1/bikes/\(bikeID)/sightings", token: token).body)]
        for path in ["/v1/bikes/\(bikeID)/sightings?format=csv", "/v1/bikes/\(bikeID)/sightings?format=geojson", "/v1/account/export",
                     "/v1/bikes/\(bikeID)/coverage", "/v1/bikes/\(bikeID)/report"] {
            let response = try await client.send(.get, path, token: token)
            #expect(response.status == .ok, "\(path): \(response.status)", sourceLocation: sourceLocation)
            bodies.append(String(buffer: response.body))
        }
        let export = try client.decode(AccountExport.self, try await client.send(.get, "/v1/account/export", token: token))
        #expect(export.sightings.count == count, sourceLocation: sourceLocation)
        for id in sealed {
            for body in bodies { #expect(!body.contains(id), "a sealed sighting in an owner-facing answer", sourceLocation: sourceLocation) }
        }
        // The coverage's place is the newest sighting the owner may see: not a sealed one's time.
        #expect(!bodies[4].contains("T11:"), "\(bodies[4])", sourceLocation: sourceLocation)
    }

    struct Sealed: Sendable { var id: String; var `case`: String }

    static func sealedSightings(_ harness: Harness) async throws -> [Sealed] {
        try await harness.database.withSession { db in
            try await db.raw("SELECT id, sealed_case FROM sightings WHERE sealed_case IS NOT NULL ORDER BY time_ms").all().map {
                Sealed(id: try $0.decode(column: "id", as: String.self), case: try $0.decode(column: "sealed_case", as: String.self))
            }
        }
    }

    /// The `review` events stored for owners' streams and webhooks, oldest first: their status.
    static func reviewEvents(_ harness: Harness) async throws -> [String] {
        try await harness.database.withSession { db in
            try await db.raw("SELECT payload FROM events WHERE kind = 'review' ORDER BY id").all().map {
                try JSONDecoder().decode(ReviewEvent.self, from: Data(try $0.decode(column: "payload", as: String.self).utf8)).status
            }
        }
    }

    static func operatorReads(_ harness: Harness) async throws -> Int {
        try await harness.database.withSession { db in
            try await db.raw("SELECT COUNT(*) AS n FROM sighting_reads WHERE reader = 'operator' AND route = \(bind: SightingLookup.route)")
                .first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    static func databaseArguments(_ harness: Harness) -> [String] {
        switch harness.database.url {
        case let .sqlite(path): ["--database", "sqlite://\(path)"]
        case let .postgres(url): ["--database", url]
        }
    }
}
