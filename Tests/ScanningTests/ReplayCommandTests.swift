import Captures
import Foundation
import Scanning
import Testing
import TestSupport

/// `bikebeacon replay` as a user runs it.
struct ReplayCommandTests {
    @Test func jsonLinesForEveryIBeaconReport() async throws {
        let result = try await run("bikebeacon", ["replay", Paths.fixture("captures/govee-h5100.btsnoop").path, "--json"])
        #expect(result.status == 0)
        #expect(result.lines.count == 99)
        #expect(result.stderr.contains("reports read: "))
        #expect(result.stderr.contains("iBeacons: 99"))
        #expect(result.stderr.contains("errors: 0"))
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["time", "address", "uuid", "major", "minor", "measuredPower", "rssi"])
            #expect(object["time"] is Double)
            #expect(object["rssi"] is Int)
            let uuid = try #require(object["uuid"] as? String)
            #expect(uuid == uuid.uppercased() && UUID(uuidString: uuid) != nil)
            let address = try #require(object["address"] as? String)
            #expect(address.count == 17 && address == address.uppercased())
        }
        let firstLine = try #require(result.lines.first)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(firstLine.utf8)) as? [String: Any])
        #expect(first["address"] as? String == "D0:35:33:33:44:03")
        #expect(first["rssi"] as? Int == -52)
        #expect(abs((first["time"] as? Double ?? 0) - 1_706_388_848.993381) < 1e-6)
    }

    @Test func tableHasAHeaderAndARowPerReport() async throws {
        let result = try await run("bikebeacon", ["replay", Paths.fixture("captures/govee-inout.pcap").path])
        #expect(result.status == 0)
        #expect(result.lines.count == 3)
        #expect(result.lines.first?.hasPrefix("TIME") == true)
        #expect(result.lines.dropFirst().allSatisfy { $0.contains("494E5445-4C4C-495F-524F-434B535F4857") })
        #expect(result.lines[1].contains("A4:C1:38:05:C7:A1"))
    }

    @Test func damagedFilePrintsTheValidPrefixThenFailsWithTheOffset() async throws {
        let bytes = try fixtureBytes("wimpi5-h5105.pcapng")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString).pcapng").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cut = bytes.count / 2 + 3
        try Data(bytes[..<cut]).write(to: URL(fileURLWithPath: path))
        let whole = try await run("bikebeacon", ["replay", Paths.fixture("captures/wimpi5-h5105.pcapng").path, "--json"])
        let damaged = try await run("bikebeacon", ["replay", path, "--json"])
        #expect(damaged.status != 0)
        #expect(!damaged.lines.isEmpty)
        #expect(damaged.lines == Array(whole.lines.prefix(damaged.lines.count)))
        #expect(damaged.stderr.contains("truncated at byte offset "))
        #expect(damaged.stderr.contains("errors: 1"))
    }

    @Test func missingFileFailsWithItsPath() async throws {
        let result = try await run("bikebeacon", ["replay", "/nonexistent/capture.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot read /nonexistent/capture.btsnoop: No such file or directory"))
    }

    @Test func realtimeWaitsAsLongAsTheCaptureDid() async throws {
        // Two real iBeacon events written 1.5 s apart; without --realtime the replay takes milliseconds.
        let packets = try CaptureVariantTests.packets("govee-inout.pcap").filter { p in
            var decoder = AdvertisementDecoder()
            decoder.decode(h4: p.h4[...], time: 0) { _ in }
            return decoder.counts.iBeacons > 0
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopFileWriter(path: path)
        try writer.append(h4: packets[0].h4, time: 1_700_000_000)
        try writer.append(h4: packets[1].h4, time: 1_700_000_001.5)
        let start = Date()
        let result = try await run("bikebeacon", ["replay", path, "--json", "--realtime"])
        #expect(result.lines.count == 2)
        #expect(Date().timeIntervalSince(start) >= 1.5)
    }
}
