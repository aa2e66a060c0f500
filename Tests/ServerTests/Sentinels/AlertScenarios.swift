import BikebeaconAPI
import Foundation
import Testing
import TestSupport
@testable import Server

/// Alerts about sentinels through a real SMTP server (aiosmtpd, `scripts/smtp-sink`): the host and
/// the operator get one mail when a sentinel goes silent and one when it recovers, none for a flap.
enum AlertScenarios {
    static func silentThenRecovered(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = MailScenarios.Clock()
        let harness = try await Harness.make(backend, options: try MailScenarios.options(sink, clock: clock) {
            $0.sentinelSweepInterval = .milliseconds(50)
            $0.sentinelAlerts.operatorEmails = ["ops@example.org"]
        })
        let store = SentinelHealthStore(database: harness.database)
        let (cafe, token) = try await SentinelStore(database: harness.database).add(
            name: "Café Rosa", latitude: 52.09, longitude: 5.12, hostEmail: " Rosa@Example.org", now: clock.read())
        await #expect(throws: SentinelError.self) {
            _ = try await SentinelStore(database: harness.database).add(name: "x", latitude: 1, longitude: 1, hostEmail: "not an address",
                                                                        now: clock.read())
        }
        let beat = try HeartbeatScenarios.text(SentinelHealthTests.healthy)
        try await harness.run { client in
            func heartbeat() async throws { #expect(try await HeartbeatScenarios.refresh(client, token, beat).status == .ok) }
            func becomes(_ state: SentinelState) async throws {
                #expect(try await eventually { try await store.all()[cafe.id]?.state == state }, "never \(state)")
            }
            try await heartbeat()
            // A flapping connection: silent for less than the hold-off, twice. Nobody is mailed.
            for _ in 0..<2 {
                clock.advance(6 * 60_000)
                try await becomes(.silent)
                try await heartbeat()
                try await becomes(.listening)
            }
            clock.advance(6 * 60_000)
            try await becomes(.silent)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try sink.received().isEmpty)

            // Silent for the hold-off: one mail to the host and one to the operator.
            clock.advance(11 * 60_000)
            let problem = try await MailScenarios.received(sink, count: 2)
            #expect(Set(problem.flatMap(\.rcpt_tos)) == ["rosa@example.org", "ops@example.org"])
            #expect(problem.allSatisfy { $0.parsed.subject == "Sentinel Café Rosa has gone silent" && $0.tls && $0.parsed.defects.isEmpty })
            let host = try #require(problem.first { $0.rcpt_tos == ["rosa@example.org"] }?.parsed.text)
            #expect(host.contains("Why: no heartbeat for") && host.contains("has power") && host.contains("you host this sentinel"))
            let ops = try #require(problem.first { $0.rcpt_tos == ["ops@example.org"] }?.parsed.text)
            #expect(ops.contains("bikebeacon-server sentinels show \"Café Rosa\""))
            // Another replica's sweep finds the alert claimed already.
            #expect(try await SentinelAlertStore(database: harness.database, policy: harness.options.sentinelAlerts,
                                                 mail: harness.options.mail,
                                                 dispatcher: NotificationDispatcher(interval: 0, channels: [.email], flavor: harness.database.flavor),
                                                 backoff: harness.options.webhookBackoff,
                                                 logger: Harness.logger, now: clock.read).claimDue() == 0)

            // Back, and listening for the hold-off (heartbeats every 4 minutes): one recovery mail each.
            for _ in 0..<3 {
                try await heartbeat()
                try await becomes(.listening)
                clock.advance(4 * 60_000)
            }
            let all = try await MailScenarios.received(sink, count: 4)
            #expect(all.count == 4)
            #expect(all.suffix(2).allSatisfy { $0.parsed.subject == "Sentinel Café Rosa is listening again" })
            try await Task.sleep(for: .milliseconds(300))
            #expect(try sink.received().count == 4)
        }
    }

    /// A home sentinel's owner is pushed to as well (through the owners' queue), once per problem and recovery.
    static func homeOwnerPush(_ backend: Backend) async throws {
        let clock = MailScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.sentinelSweepInterval = .milliseconds(50)
        })
        let store = SentinelHealthStore(database: harness.database)
        let beat = try HeartbeatScenarios.text(SentinelHealthTests.healthy)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            #expect(try await client.send(.post, "/v1/push/subscriptions", token: ann,
                                          json: PushScenarios.subscription("https://push.example.net/send/ann")).status == .created)
            let (home, token) = try await SentinelStore(database: harness.database).add(
                name: "Ann's garage", latitude: 52.09, longitude: 5.12, ownerEmail: "ann@example.org", now: clock.read())
            func heartbeat() async throws { #expect(try await HeartbeatScenarios.refresh(client, token, beat).status == .ok) }
            func becomes(_ state: SentinelState) async throws {
                #expect(try await eventually { try await store.all()[home.id]?.state == state }, "never \(state)")
            }
            try await heartbeat()
            clock.advance(6 * 60_000)
            try await becomes(.silent)
            clock.advance(11 * 60_000)
            #expect(try await eventually { try await PushScenarios.queuedNotifications(harness).count == 1 })
            let down = try #require(try await PushScenarios.queuedNotifications(harness).first)
            #expect(down.event == .sentinelDown && down.place == "Ann's garage" && down.reason == "no heartbeat for 6 min")
            #expect(down.headline == "Your sentinel Ann's garage stopped listening")
            for _ in 0..<3 {
                try await heartbeat()
                try await becomes(.listening)
                clock.advance(4 * 60_000)
            }
            #expect(try await eventually { try await PushScenarios.queuedNotifications(harness).count == 2 })
            #expect(try await PushScenarios.queuedNotifications(harness).map(\.event) == [.sentinelDown, .sentinelUp])
        }
    }
}
