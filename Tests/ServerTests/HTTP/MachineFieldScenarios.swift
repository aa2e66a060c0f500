import BikebeaconAPI
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// Machine fields refuse what a terminal would obey (#43): an e-mail address at sign-up, a heartbeat's version and
/// backend. A heartbeat's last error is free text: stored as sent, and escaped where the CLI prints it (`TerminalTextTests`).
enum MachineFieldScenarios {
    static func controlsRefused(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (garage, token) = try await harness.sentinel()
        try await harness.run { client in
            for email in ["ann\u{1B}[2J@example.org", "ann@exa\u{202E}gro.elpmaxe", "ann\u{9B}@example.org", "ann\u{7F}@example.org",
                          "ann@example.org\u{2066}"] {
                let refused = try await client.send(.post, "/v1/accounts", json: ["email": email, "password": "correct horse battery"])
                expectError(refused, .badRequest, "invalid_request")
                #expect(String(buffer: refused.body).contains("'email' holds a control or bidi character"), "\(String(buffer: refused.body))")
            }
            #expect(try await client.send(.post, "/v1/accounts", json: ["email": "ann@example.org", "password": "correct horse battery"]).status
                == .created)
            let accounts = try await harness.database.withSession { db in
                try await db.raw("SELECT email FROM accounts").all().map { try $0.decode(column: "email", as: String.self) }
            }
            #expect(accounts == ["ann@example.org"])

            var beat = SentinelHealthTests.healthy
            beat.backend = "bluez\u{1B}[32m listening"
            let refused = try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(beat))
            expectError(refused, .badRequest, "invalid_heartbeat")
            #expect(String(buffer: refused.body).contains("'backend' holds a control or bidi character (\\\\u{1B})"), "\(String(buffer: refused.body))")
            beat = SentinelHealthTests.healthy
            beat.lastError = "adapter lost\u{1B}[2K\rno errors"
            #expect(try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(beat)).status == .ok)
            #expect(try await SentinelHealthStore(database: harness.database).all()[garage.id]?.heartbeat.lastError == "adapter lost\u{1B}[2K\rno errors")
        }
    }
}
