import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// Report limits that cannot be turned against a victim (#43, goals 3 and 4): reports before a tag is registered
/// spend nothing of it, reports have their own budget per client apart from look-ups and messages, and past the
/// network's breaker a report is held for the operator (mailed at once) instead of sealing.
enum ReportLimitScenarios {
    typealias Clock = PushScenarios.Clock

    static func neverRefusedFirst(_ backend: Backend) async throws {
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.foundTagClientLimit = RateLimit(perSecond: 1.0 / 3600, burst: 4)
        })
        try await harness.run(.live) { client in
            func report(from address: String, tag: String = FoundTagScenarios.tag) async throws -> TestResponse {
                try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: tag), headers: [.xForwardedFor: address])
            }
            // A stalker spends reports on the tag before it is registered, from many networks: 404, nothing spent.
            for index in 1...5 { expectError(try await report(from: "198.51.100.\(index)"), .notFound, "not_registered") }
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann)

            // The victim's network spent its look-ups and messages: the report has a budget of its own.
            let victim = "203.0.113.7"
            for _ in 0..<4 {
                #expect(try await client.send(.post, "/v1/found/lookup", json: FoundTagLookup(tag: FoundTagScenarios.tag),
                                              headers: [.xForwardedFor: victim]).status == .ok)
            }
            expectError(try await client.send(.post, "/v1/found/lookup", json: FoundTagLookup(tag: FoundTagScenarios.tag),
                                              headers: [.xForwardedFor: victim]), .tooManyRequests, "rate_limited")
            #expect(try await report(from: victim).status == .created, "the first report of a registered, unsealed tag")
            #expect(try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann)).underReview == true)

            // Per client: a few reports a day (3); IPv6 counted per /64.
            _ = try await client.bike(ann, name: "Other", beacon: Fixture.beaconC)
            let other = "\(Fixture.beaconC)/1/25626"
            let v6 = "2001:db8:1:2::"
            for index in 1...3 {
                #expect(try await report(from: "\(v6)\(index)", tag: other).status == .created)
            }
            let fourth = try await report(from: "\(v6)99", tag: other)
            expectError(fourth, .tooManyRequests, "rate_limited")
            #expect(String(buffer: fourth.body).contains("too many reports from your network"), "\(String(buffer: fourth.body))")
            clock.advance(86_400_000 / 3 + 1_000)
            #expect(try await report(from: "\(v6)5", tag: other).status == .created, "a day's budget refills")
        }
    }

    /// Past `serve --report-breaker-per-hour` reports an hour network-wide, reports are held: recorded, sealing nothing,
    /// the operator mailed at once; `abuse seal` seals one as if it came now, `abuse dismiss` drops one.
    static func breakerHolds(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try MailScenarios.options(sink, clock: clock) {
            $0.sentinelAlerts.operatorEmails = ["ops@example.org"]
            $0.reportBreakerPerHour = 2
            $0.foundReportClientLimit = RateLimit(perSecond: 1, burst: 100)
        })
        let database = SealScenarios.databaseArguments(harness)
        try await harness.run(.live) { client in
            let ann = try await client.owner("ann@example.org")
            let minors = [1, 2, 3, 4]
            var bikes: [Bike] = []
            for minor in minors { bikes.append(try await client.bike(ann, name: "Bike \(minor)", minor: minor)) }
            var references: [String] = []
            for minor in minors {
                let response = try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: "\(Fixture.beaconA)/1/\(minor)"),
                                                     headers: [.xForwardedFor: "198.51.100.\(minor)"])
                #expect(response.status == .created, "a held report is taken all the same")
                references.append(try client.decode(HiddenTagReceipt.self, response).reference)
            }
            var review: [Bool] = []
            for bike in bikes {
                review.append(try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann)).underReview == true)
            }
            #expect(review == [true, true, false, false], "two sealed, then the breaker held the rest")
            let statuses = try await AbuseStore(database: harness.database).list()
            #expect(statuses.map(\.status).sorted() == ["held", "held", "open", "open"])
            let mails = try await MailScenarios.received(sink, count: 6)
            let held = mails.filter { $0.rcpt_tos == ["ops@example.org"] && $0.parsed.subject.contains("breaker held it") }
            #expect(held.count == 2, "\(mails.map(\.parsed.subject))")

            let heldReferences = statuses.filter { $0.status == "held" }.map(\.id)
            let sealed = try await run("bikebeacon-server", ["abuse", "seal", heldReferences[0]] + database)
            #expect(sealed.status == 0, "\(sealed.stderr)")
            let dismissed = try await run("bikebeacon-server", ["abuse", "dismiss", heldReferences[1]] + database)
            #expect(dismissed.status == 0, "\(dismissed.stderr)")
            let after = try await AbuseStore(database: harness.database).list(all: true)
            #expect(after.filter { $0.status == "open" }.count == 3 && after.filter { $0.status == "dismissed" }.count == 1)
            let wrong = try await run("bikebeacon-server", ["abuse", "seal", references[0]] + database)
            #expect(wrong.status != 0 && wrong.stderr.contains("not held"), "\(wrong.stderr)")
            // An hour later the breaker has room again.
            clock.advance(3_600_001)
            let bike = try await client.bike(ann, name: "Later", minor: 9)
            #expect(try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: "\(Fixture.beaconA)/1/9")).status == .created)
            #expect(try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann)).underReview == true)
        }
    }
}
