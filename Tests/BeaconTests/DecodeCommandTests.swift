import Foundation
import TestSupport
import Testing

/// `bikebeacon decode` as a user runs it.
struct DecodeCommandTests {
    @Test func printsOneJSONObjectPerArgumentAndExitsZero() async throws {
        let result = try await run("bikebeacon", [
            "decode",
            "4c000215494e54454c4c495f524f434b535f48575075f2ffc2",
            "0201061aff4c000215b5b182c7eab14988aa99b5c1517008d90001641ac5",
        ])
        #expect(result.status == 0)
        #expect(result.lines == [
            #"{"uuid": "494E5445-4C4C-495F-524F-434B535F4857", "major": 20597, "minor": 62207, "measuredPower": -62}"#,
            #"{"uuid": "B5B182C7-EAB1-4988-AA99-B5C1517008D9", "major": 1, "minor": 25626, "measuredPower": -59}"#,
        ])
    }

    @Test func notAnIBeaconGivesAnErrorObjectAndExitOne() async throws {
        let result = try await run("bikebeacon", ["decode", "4c000215494e54454c4c495f524f434b535f48575075f2ff", "xyz", "020106"])
        #expect(result.status == 1)
        #expect(result.lines.count == 3)
        for line in result.lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect((object?["error"] as? String)?.isEmpty == false)
        }
    }

    @Test func implausiblePowerIsNull() async throws {
        let result = try await run("bikebeacon", ["decode", "4c000215494e54454c4c495f524f434b535f48575075f2ff0c"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""measuredPower": null"#))
    }
}
