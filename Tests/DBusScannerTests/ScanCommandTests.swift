import Foundation
import TestSupport
import Testing
import Subprocesses

/// `bikebeacon scan` end to end against the bluez5 mock, as an operator runs it.
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: MockBlueZ.isAvailable, "needs dbus-daemon and python3-dbusmock (scripts/setup installs them)"))
struct ScanCommandTests {
    @Test func jsonLinesForADuration() async throws {
        try await withMockBlueZ { bus in
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:21", "-63", DBusScannerIntegrationTests.intelli)
            try await bus.control("add-device", "hci0", "11:22:33:44:55:21", "-80", "0x0006:0102")
            let before = Date().timeIntervalSince1970
            let result = try await run("bikebeacon", ["scan", "--json", "--duration", "1.5"], environment: bus.environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            try #require(result.lines.count == 1, "stdout: \(result.stdout)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.lines[0].utf8)) as? [String: Any]
            )
            #expect(Set(object.keys) == ["time", "address", "uuid", "major", "minor", "measuredPower", "rssi"])
            #expect(object["address"] as? String == "C4:7C:8D:6A:00:21")
            #expect(object["uuid"] as? String == "494E5445-4C4C-495F-524F-434B535F4857")
            #expect(object["major"] as? Int == 20597)
            #expect(object["minor"] as? Int == 62207)
            #expect(object["measuredPower"] as? Int == -62)
            #expect(object["rssi"] as? Int == -63)
            let time = try #require(object["time"] as? Double)
            #expect(time >= before && time <= Date().timeIntervalSince1970)
            #expect(result.stderr.contains("reports read: 2, iBeacons: 1, other advertisements: 1, errors: 0"))
            #expect(bus.mockCalls().contains("StopDiscovery"))
        }
    }

    @Test func sigintStopsDiscoveryAndPrintsTheSummary() async throws {
        try await withMockBlueZ { bus in
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:22", "-58", DBusScannerIntegrationTests.b5b1)
            let out = bus.directory.appendingPathComponent("scan.out"), err = bus.directory.appendingPathComponent("scan.err")
            let process = try ChildProcess.spawn(Paths.executable("bikebeacon").path, ["scan"], environment: bus.environment,
                                                 stdout: .file(out.path), stderr: .file(err.path))
            let started = try await eventually(within: 10) { bus.mockCalls().contains("StartDiscovery") }
            try await Task.sleep(for: .milliseconds(200))
            process.send(SIGINT)
            await waitForExit(process, killAfter: 10)
            let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            #expect(started)
            #expect(process.wait() == 0, "stderr: \(stderr)")
            let lines = stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("TIME") == true)
            #expect(lines.count == 2 && lines.last?.contains("B5B182C7-EAB1-4988-AA99-B5C1517008D9") == true, "stdout: \(stdout)")
            #expect(stderr.contains("reports read: 1, iBeacons: 1, other advertisements: 0, errors: 0"))
            #expect(bus.mockCalls().contains("StopDiscovery"))
        }
    }

    @Test func bluetoothdNotRunningIsExplained() async throws {
        try await withMockBlueZ { bus in
            await bus.killMock()
            let result = try await run("bikebeacon", ["scan", "--duration", "0.5"], environment: bus.environment)
            #expect(result.status == 0)
            #expect(result.stderr.contains("bluetoothd is not running"))
            #expect(result.stderr.contains("systemctl start bluetooth"))
            #expect(result.stderr.contains("reports read: 0, iBeacons: 0, other advertisements: 0, errors: 0"))
        }
    }

    @Test func unreachableBusFailsWithAClearError() async throws {
        let result = try await run(
            "bikebeacon", ["scan", "--duration", "1"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bikebeacon-bus"]
        )
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot connect to the system D-Bus"))
        #expect(result.stderr.contains("systemctl status dbus"))
    }
}
