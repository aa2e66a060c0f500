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

    @Test func aMissingCaptureIsExplained() async throws {
        let result = try await run("bikebeacon", ["demo", "--capture", "/nonexistent.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no capture at /nonexistent.btsnoop"))
    }
}
