import Foundation
import GPSD
import Testing
import TestSupport

/// `bikebeacon demo`, the README's main job: a newcomer must see the missing bike found.
struct DemoCommandTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: Paths.executable("bikebeacon-server").path),
                   "bikebeacon-server is not built; run `swift build` first"))
    func aNewcomerSeesTheMissingBikeFound() async throws {
        let capture = Paths.fixture("captures/govee-h5100.btsnoop").path
        let result = try await run("bikebeacon", ["demo", "--capture", capture])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.lines.filter { $0.hasSuffix("Cafe Rosa, Utrecht") && $0.hasPrefix("  2024-") }
        let events = rows.map { $0.split(separator: " ", omittingEmptySubsequences: true)[2] }
        #expect(events.first == "arrived")
        #expect(events.last == "departed")
        #expect(events.dropFirst().dropLast().allSatisfy { $0 == "present" })
        #expect(result.stdout.contains("Found: Ana's commuter was at Cafe Rosa, Utrecht (52.0907, 5.1214)"))
    }

    /// The second act: the bus's passing sighting reaches the server placed on the route it drove,
    /// within the four decimals the owner sees (±8 m) of one of the track's fixes.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: Paths.executable("bikebeacon-server").path),
                   "bikebeacon-server is not built; run `swift build` first"))
    func theOwnerSeesWhereOnTheBusRouteTheBikeWasHeard() async throws {
        let track = Paths.repository.appendingPathComponent("Resources/tracks/haicom-305N.json").path
        let result = try await run("bikebeacon", ["demo", "--capture", Paths.fixture("captures/govee-h5100.btsnoop").path, "--track", track])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.lines.filter { $0.hasPrefix("  2024-") && $0.hasSuffix("by Bus line 12") }
        try #require(rows.count == 1, "\(result.stdout)")
        #expect(rows[0].split(separator: " ", omittingEmptySubsequences: true)[2] == "passing")
        let numbers = try #require(rows[0].firstMatch(of: /near (-?[0-9.]+), (-?[0-9.]+) \(±([0-9]+) m\)/))
        let heard = (try #require(Double(numbers.1)), try #require(Double(numbers.2)))
        var framer = GPSDLineFramer()
        let fixes = framer.lines(try Data(contentsOf: URL(fileURLWithPath: track))).compactMap { line -> (Double, Double)? in
            guard case let .position(p)? = try? GPSDProtocol.decode(line).get(), let latitude = p.latitude, let longitude = p.longitude else { return nil }
            return (latitude, longitude)
        }
        let nearest = fixes.map { PositionErrorTests.metres($0, heard) }.min() ?? .infinity
        #expect(nearest <= 8, "the sighting is \(nearest) m from the track")
        #expect(result.stdout.contains("Seen: Ana's commuter was near \(numbers.1), \(numbers.2) (±\(numbers.3) m) by Bus line 12"))
        #expect(result.stdout.contains("replays it instead of a live gpsd"))
    }

    /// The third act: the cafe's sentinel goes quiet; the operator gets the server's mail (through the
    /// real SMTP client, at the demo's mail catcher), and the owner's coverage view says when nobody
    /// listened at the cafe: from the silence the server noticed to the cafe's return.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: Paths.executable("bikebeacon-server").path),
                   "bikebeacon-server is not built; run `swift build` first"))
    func theOperatorIsToldAndTheOwnerSeesWhenTheCafeWasNotListening() async throws {
        let result = try await run("bikebeacon", ["demo", "--capture", Paths.fixture("captures/govee-h5100.btsnoop").path])
        #expect(result.status == 0, "\(result.stderr)")
        let act = try #require(result.stdout.split(separator: "Third act: the cafe's sentinel goes quiet.").last.map(String.init))
        let lines = act.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("11. operator  mail to operator@example.org:"), "\(act)")
        #expect(lines.contains("Subject: Sentinel Cafe Rosa, Utrecht has gone silent"), "\(act)")
        #expect(lines.contains("State: silent"), "\(act)")
        #expect(lines.contains { $0.wholeMatch(of: /Why: no heartbeat for [0-9]+ s/) != nil }, "\(act)")
        #expect(lines.contains { $0.hasPrefix("12. back") && $0.hasSuffix("\"Sentinel Cafe Rosa, Utrecht is listening again\"") }, "\(act)")
        #expect(lines.contains("Within 1 km of the last place: 1 public sentinel, listening now."), "\(act)")
        // One gap only: the cafe listened from before the bike went missing until it went quiet.
        let gaps = lines.filter { $0.hasPrefix("Cafe Rosa, Utrecht: not listening") }
        try #require(gaps.count == 1, "\(act)")
        let clocks = gaps[0].matches(of: /[0-9]{2}:[0-9]{2}:[0-9]{2}/).map { secondsOfDay(String($0.output)) }
        try #require(clocks.count == 2 && gaps[0].hasSuffix(" UTC."), "\(gaps[0])")
        // Past midnight the end is the smaller clock time.
        #expect((clocks[1] - clocks[0] + 86_400) % 86_400 < 60, "the gap \(gaps[0]) should last seconds")
    }

    /// "03:41:05" → seconds since midnight.
    private func secondsOfDay(_ clock: String) -> Int {
        clock.split(separator: ":").compactMap { Int($0) }.reduce(0) { $0 * 60 + $1 }
    }

    @Test func aMissingCaptureIsExplained() async throws {
        let result = try await run("bikebeacon", ["demo", "--capture", "/nonexistent.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no capture at /nonexistent.btsnoop"))
    }
}
