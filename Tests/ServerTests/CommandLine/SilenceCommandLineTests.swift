import BikebeaconAPI
import Testing
import TestSupport

/// `serve --sentinel-silent-after` below a healthy sentinel's gaps between heartbeats is refused with the reason:
/// such a sentinel would flap between listening and silent, and its host be mailed each time.
@Suite struct SilenceCommandLineTests {
    @Test func silenceShorterThanTheHeartbeatGapsIsRefused() async throws {
        // A bad flag checked after it stops serve should the refusal be missing, so the test fails rather than serves.
        let after = ["--sentinel-alert-after", "20000"]
        for seconds in ["30", "65", "89.5"] {
            let result = try await run("bikebeacon-server", ["serve", "--port", "0", "--sentinel-silent-after", seconds] + after)
            #expect(result.status != 0, "\(seconds)")
            #expect(result.stderr.contains("shorter than a healthy sentinel's gaps between heartbeats"), "\(seconds): \(result.stderr)")
            #expect(result.stderr.contains("give at least \(Int(SentinelHeartbeat.shortestSilence)) seconds"), "\(result.stderr)")
        }
    }

    /// The floor itself, and a short silence with `--allow-short-silence` (the demo's), pass that check: an
    /// invalid flag checked after it is what stops them.
    @Test func theFloorAndTheDemosShortSilencePass() async throws {
        let after = ["--sentinel-alert-after", "20000"]
        for flags in [["--sentinel-silent-after", "90"], ["--sentinel-silent-after", "8", "--allow-short-silence"]] {
            let result = try await run("bikebeacon-server", ["serve", "--port", "0"] + flags + after)
            #expect(result.status != 0, "\(flags)")
            #expect(!result.stderr.contains("heartbeats"), "\(flags): \(result.stderr)")
            #expect(result.stderr.contains("--sentinel-alert-after must be 0…10080 minutes"), "\(flags): \(result.stderr)")
        }
    }

    /// Kept in step with the sentinel: the floor lies above the longest gap its list refresh makes (±10 % jitter).
    @Test func theFloorLiesAboveTheLongestHeartbeatGap() {
        #expect(SentinelHeartbeat.shortestSilence > SentinelHeartbeat.interval * 1.1)
    }
}
