import Foundation
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

    @Test func aMissingCaptureIsExplained() async throws {
        let result = try await run("bikebeacon", ["demo", "--capture", "/nonexistent.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no capture at /nonexistent.btsnoop"))
    }
}
