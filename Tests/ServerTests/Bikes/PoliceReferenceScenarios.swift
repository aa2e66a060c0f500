import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// A police reference that lets a new tag past the hold is never silent (#43): `x` is no reference, the operator is
/// mailed at the time, and `reads` marks the report. A reference given when no hold applies is only recorded.
enum PoliceReferenceScenarios {
    static let hour = NewTagHold.hour

    static func passingTheHoldIsTold(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = PushScenarios.Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try MailScenarios.options(sink, clock: clock) {
            $0.newTagHold = NewTagHold()
            $0.sentinelAlerts.operatorEmails = ["ops@example.org"]
        })
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            let missing = "/v1/bikes/\(bike.id)/missing"
            // What is no report's number: too short, or no digit.
            for bogus in ["x", "123", "none given", "-----"] {
                let refused = try await client.send(.post, missing, token: ann, json: MissingRequest(policeReference: bogus))
                expectError(refused, .badRequest, "invalid_request")
                #expect(try client.decode(ErrorBody.self, refused).message.contains("at least 4 characters, with a digit"), "\(bogus)")
            }
            #expect(try sink.received().isEmpty)

            clock.advance(2 * hour)
            #expect(try await client.send(.post, missing, token: ann, json: MissingRequest(policeReference: "PR-2026-1234")).status == .ok)
            /// The operator's mails; the owner gets mails of their own (recovered, …).
            func operatorMails() throws -> [SMTPSink.Received] { try sink.received().filter { $0.rcpt_tos == ["ops@example.org"] } }
            _ = try await MailScenarios.received(sink, count: 1)
            let mail = try #require(try operatorMails().first)
            let text = mail.parsed.text ?? ""
            #expect(text.contains("police reference: PR-2026-1234") && text.contains("owner: ann@example.org")
                && text.contains("bikebeacon-server reads \(bike.id)") && text.contains("on the bike for 2.0 h"), "\(text)")

            // A renewal is no new pass: no second mail. Past the hold, a reference is only recorded.
            clock.advance(1000)
            #expect(try await client.send(.post, missing, token: ann, json: MissingRequest(policeReference: "PR-2026-1234")).status == .ok)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: ann).status == .ok)
            clock.advance(24 * hour)
            #expect(try await client.send(.post, missing, token: ann, json: MissingRequest(policeReference: "PR-2026-9999")).status == .ok)
            try await Task.sleep(for: .milliseconds(500))
            let subjects = try sink.received().map(\.parsed.subject)
            #expect(try operatorMails().count == 1, "\(subjects)")

            let record = try #require(try await ReadLogExport.load(database: harness.database, subject: bike.id))
            #expect(record.reports.map(\.passedHold) == [true, false, false])
            let lines = record.text.split(separator: "\n").filter { $0.contains("marked missing") }
            #expect(lines.count == 3 && lines[0].hasSuffix("police reference \"PR-2026-1234\" [PASSED THE NEW-TAG HOLD on this reference alone: check it with the police]")
                && !lines[1].contains("PASSED") && !lines[2].contains("PASSED"), "\(record.text)")
        }
    }
}
