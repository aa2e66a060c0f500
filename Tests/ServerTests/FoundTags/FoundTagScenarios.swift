import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
import TestSupport
@testable import Server

/// "Found a tag?" (#35): anyone looks a tag up and learns only whether it is registered, writes to its owner
/// (by email, through the queue, escaped, rate-limited per client and per tag), or reports it hidden on them,
/// which freezes the bike at once; the operator resolves reports with `bikebeacon-server abuse …`.
enum FoundTagScenarios {
    typealias Clock = PushScenarios.Clock

    static let tag = "\(Fixture.beaconA)/1/25626"

    static func lookupAndMessage(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try MailScenarios.options(sink, clock: clock) {
            $0.foundTagClientLimit = RateLimit(perSecond: 1.0 / 3600, burst: 6)
        })
        // Over a socket from loopback, where the test options' trusted proxy is: X-Forwarded-For names each finder.
        try await harness.run(.live) { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann, name: "Ann's <b>Pendler</b>")
            var serial = 0
            /// Each call from a fresh address unless told, so only the limit under test is spent.
            func post(_ path: String, _ body: some Encodable & Sendable, from address: String? = nil) async throws -> TestResponse {
                serial += 1
                return try await client.send(.post, path, json: body, headers: [.xForwardedFor: address ?? "198.51.100.\(serial)"])
            }

            // The formats the owners' paste box reads; the answer holds nothing but `registered`.
            for text in [tag, "uuid: \(Fixture.beaconA.lowercased()) major: 1 minor: 25626", "\(Fixture.beaconA):1:25626"] {
                let found = try await post("/v1/found/lookup", FoundTagLookup(tag: text))
                #expect(found.status == .ok && found.headers[.cacheControl] == "no-store")
                let keys = try #require(try JSONSerialization.jsonObject(with: Data(found.body.readableBytesView)) as? [String: Any]).keys
                #expect(Array(keys) == ["registered"])
                #expect(try client.decode(FoundTagAnswer.self, found) == FoundTagAnswer(registered: true), "\(text)")
            }
            #expect(try client.decode(FoundTagAnswer.self, try await post("/v1/found/lookup", FoundTagLookup(tag: "\(Fixture.beaconB)/1/2")))
                == FoundTagAnswer(registered: false))
            #expect(try await client.send(.get, "/found").status == .ok)

            // Bad input: 400 naming the field, before anything is sent.
            func refused(_ response: TestResponse, _ field: String) throws {
                expectError(response, .badRequest)
                let body = try client.decode(ErrorBody.self, response)
                #expect(body.message.contains("'\(field)'"), "\(body.message)")
            }
            try refused(try await post("/v1/found/lookup", FoundTagLookup(tag: "not a tag")), "tag")
            try refused(try await post("/v1/found/lookup", FoundTagLookup(tag: String(repeating: "a", count: 2001))), "tag")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconA)/1/70000", message: "here")), "tag")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "<script>alert(1)</script>")), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: String(repeating: "x", count: 501))), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "at\u{0}the station")), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "  ")), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "here", contact: "me\nBcc: x")), "contact")
            try refused(try await post("/v1/found/report", HiddenTagReport(tag: tag, message: "<img src=x onerror=alert(1)>")), "message")
            expectError(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconB)/1/2", message: "here")),
                        .notFound, "not_registered")
            #expect(try sink.received().isEmpty)

            // A message, escaped in the mail's HTML; the contact only because it was given.
            let words = "Found at Tom & Jerry's <3 rack 4"
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: words, contact: "tel 0612")).status == .accepted)
            let mail = try #require(try await MailScenarios.received(sink, count: 1).first)
            #expect(mail.rcpt_tos == ["ann@example.org"])
            #expect(mail.parsed.subject == "Someone found Ann's <b>Pendler</b> and wrote to you")
            let text = try #require(mail.parsed.text)
            #expect(text.contains("Their message: \(words)") && text.contains("Their contact: tel 0612"))
            let html = try #require(mail.parsed.html)
            #expect(html.contains("Found at Tom &amp; Jerry&#39;s &lt;3 rack 4") && !html.contains("<3") && !html.contains("<b>Pendler"))
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "still here")).status == .accepted)
            let second = try #require(try await MailScenarios.received(sink, count: 2).last)
            #expect(second.parsed.text?.contains("Their contact: they left none") == true, "\(second.parsed.text ?? "")")
            #expect(try await PushScenarios.queuedNotifications(harness).map(\.event) == [.found, .found])

            // Per tag: three a day from anyone, so a fourth from a new address waits; another tag is not held up.
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "third")).status == .accepted)
            let flood = try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "fourth"))
            expectError(flood, .tooManyRequests, "rate_limited")
            #expect(Int(flood.headers[.retryAfter] ?? "") ?? 0 > 0)
            let other = try await client.bike(ann, name: "Other", beacon: Fixture.beaconC)
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconC)/1/25626", message: "here")).status == .accepted)
            clock.advance(86_400_000 / 3 + 1_000)
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "next day")).status == .accepted)
            #expect(try await PushScenarios.queuedNotifications(harness).filter { $0.bikeId == bike.id }.count == 4)
            #expect(try await PushScenarios.queuedNotifications(harness).filter { $0.bikeId == other.id }.count == 1)

            // Per client: six requests an hour, look-ups, bad requests and messages alike; another client is not held up.
            for _ in 0..<6 {
                #expect(try await post("/v1/found/lookup", FoundTagLookup(tag: tag), from: "203.0.113.9").status == .ok)
            }
            let limited = try await post("/v1/found/lookup", FoundTagLookup(tag: tag), from: "203.0.113.9")
            expectError(limited, .tooManyRequests, "rate_limited")
            expectError(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconC)/1/25626", message: "x"), from: "203.0.113.9"),
                        .tooManyRequests, "rate_limited")
            #expect(try await post("/v1/found/lookup", FoundTagLookup(tag: tag), from: "203.0.113.10").status == .ok)
        }
    }

    /// A tag reported hidden on someone: off the list (full and delta), sightings refused and never notified,
    /// links stopped, the operator mailed, the owner sees "under review" and cannot mark it missing; then the
    /// operator's commands, run as the binary against the same database.
    static func hiddenTagFreezes(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try MailScenarios.options(sink, clock: clock) {
            $0.sentinelAlerts.operatorEmails = ["ops@example.org"]
        })
        let database = switch harness.database.url {
        case let .sqlite(path): ["--database", "sqlite://\(path)"]
        case let .postgres(url): ["--database", url]
        }
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            let share = try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann, json: ShareRequest(expiresIn: 24))
            let link = try #require(try client.decode(Share.self, share).token)
            let before = try await client.send(.get, "/v1/missing", token: sentinel)
            let listed = try client.decode(MissingList.self, before)
            #expect(listed.beacons.map(\.uuid.uuidString) == [Fixture.beaconA])
            let batch = { (time: String) in Fixture.Batch(sightings: [Fixture.sighting(time: time)]) }
            #expect(try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel,
                                                                                  json: batch("2026-11-21T10:00:00Z"))).accepted == 1)
            // A second sighting within the no-spam window is held back for a summary.
            #expect(try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel,
                                                                                  json: batch("2026-11-21T10:05:00Z"))).accepted == 1)
            #expect(try await PushScenarios.queuedNotifications(harness).map(\.event) == [.arrived])

            let reported = try await client.send(.post, "/v1/found/report", json: HiddenTagReport(
                tag: "https://tags.example.com/r?uuid=\(Fixture.beaconA)&major=1&minor=25626", message: "Sewn into my bag's lining.\nFound today & scared", contact: "me@example.net"))
            #expect(reported.status == .created)
            let reference = try client.decode(HiddenTagReceipt.self, reported).reference
            #expect(reference.hasPrefix("ar_"))

            // Sentinels drop it at their next refresh: the full list (a new ETag) and the delta both say so.
            let full = try await client.send(.get, "/v1/missing", token: sentinel, headers: [.ifNoneMatch: try #require(before.headers[.eTag])])
            #expect(full.status == .ok && full.headers[.eTag] != before.headers[.eTag])
            #expect(try client.decode(MissingList.self, full).beacons.isEmpty)
            let delta = try client.decode(MissingDelta.self, try await client.send(.get, "/v1/missing?since=\(listed.version)", token: sentinel))
            #expect(delta.added.isEmpty && delta.removed.map(\.description) == ["\(Fixture.beaconA):1:25626"])

            // A sentinel that has not refreshed yet: its sighting is refused, not stored, and nobody is told.
            let late = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel,
                                                                                     json: batch("2026-11-21T11:00:00Z")))
            #expect(late.accepted == 0 && late.rejected.count == 1)
            clock.advance(3_600_000)
            try await NotificationDispatcher(interval: harness.options.notifyIntervalMilliseconds, channels: [.push, .email],
                                             flavor: harness.database.flavor).flushDue(now: clock.read(), database: harness.database)
            #expect(try await PushScenarios.queuedNotifications(harness).map(\.event) == [.arrived])
            let trail = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann))
            #expect(trail.sightings.count == 2, "the sightings stored before the report stay, as evidence")
            expectError(try await client.send(.get, "/v1/shared/\(link)"), .gone)

            // The owner sees "under review" and cannot put it back on the list; finders cannot write to them.
            let frozen = try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann))
            #expect(frozen.underReview == true && !frozen.missing && frozen.missingUntil == nil)
            expectError(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann), .conflict, "under_review")
            expectError(try await client.send(.post, "/v1/found/message", json: FoundTagMessage(tag: tag, message: "here")),
                        .conflict, "under_review")
            // Nor does deleting the bike and adding the tag again escape the report.
            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)", token: ann).status == .noContent)
            let again = try await client.bike(ann)
            #expect(again.underReview == true)
            expectError(try await client.send(.post, "/v1/bikes/\(again.id)/missing", token: ann), .conflict, "under_review")
            #expect(try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel)).beacons.isEmpty)

            // The operator's mail, with the reporter's words escaped.
            let mails = try await MailScenarios.received(sink, count: 2)
            #expect(mails.map(\.rcpt_tos) == [["ann@example.org"], ["ops@example.org"]], "the sighting before the report, then the operator; nothing since")
            let mail = try #require(mails.last)
            #expect(mail.parsed.subject.contains(reference))
            #expect(mail.parsed.text?.contains("Owner: ann@example.org") == true && mail.parsed.text?.contains("Reporter's contact: me@example.net") == true)
            #expect(mail.parsed.html?.contains("Found today &amp; scared") == true)

            // The operator's commands against the same database.
            let list = try await run("bikebeacon-server", ["abuse", "list"] + database)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.lines.count == 2 && list.lines[1].hasPrefix("\(reference)\topen\t") && list.lines[1].hasSuffix("\tann@example.org\tyes"),
                    "\(list.stdout)")
            let shown = try await run("bikebeacon-server", ["abuse", "show", reference] + database)
            #expect(shown.lines.contains("contact: me@example.net") && shown.lines.contains("    Found today & scared"), "\(shown.stdout)")
            #expect(shown.lines.contains("owner: ann@example.org") && shown.lines.contains("status: open"))
            let unknown = try await run("bikebeacon-server", ["abuse", "show", "ar_nothing"] + database)
            #expect(unknown.status != 0 && unknown.stderr.contains("no report 'ar_nothing'"))

            let released = try await run("bikebeacon-server", ["abuse", "release", reference] + database)
            #expect(released.status == 0 && released.stdout.contains("may mark the bike missing again"), "\(released.stderr)")
            let twice = try await run("bikebeacon-server", ["abuse", "release", reference] + database)
            #expect(twice.status != 0 && twice.stderr.contains("released already"))
            let freed = try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(again.id)", token: ann))
            #expect(freed.underReview == nil && !freed.missing, "released to not missing: the owner decides again")
            #expect(try await client.send(.post, "/v1/bikes/\(again.id)/missing", token: ann).status == .ok)
            #expect(try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel)).beacons.count == 1)

            // Reported again; this time the operator closes the owner's account.
            let second = try client.decode(HiddenTagReceipt.self, try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: tag)))
            let closed = try await run("bikebeacon-server", ["abuse", "close-account", second.reference] + database)
            #expect(closed.status == 0 && closed.stdout.contains("closed the account 'ann@example.org'"), "\(closed.stderr)")
            expectError(try await client.send(.get, "/v1/bikes", token: ann), .unauthorized)
            #expect(try client.decode(FoundTagAnswer.self, try await client.send(.post, "/v1/found/lookup", json: FoundTagLookup(tag: tag)))
                == FoundTagAnswer(registered: false))
            let gone = try await run("bikebeacon-server", ["abuse", "close-account", second.reference] + database)
            #expect(gone.status != 0 && gone.stderr.contains("already gone"))
            #expect(try await run("bikebeacon-server", ["abuse", "list"] + database).lines.count == 1)
            let all = try await run("bikebeacon-server", ["abuse", "list", "--all"] + database)
            #expect(all.lines.dropFirst().map { $0.split(separator: "\t")[1] } == ["closed", "released"], "\(all.stdout)")
        }
    }
}
