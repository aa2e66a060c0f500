import Foundation
import Testing
import TestSupport

/// `bikebeacon range` as a user runs it: full screen in a real terminal (tmux), JSON lines in a pipe.
@Suite(.serialized)
struct RangeCommandTests {
    static let beacon = "494E5445-4C4C-495F-524F-434B535F4857:20596:25984"
    static let capture = Paths.fixture("captures/govee-h5100.btsnoop").path
    static let zones = ["IMMEDIATE", "NEAR", "FAR", "OUT OF RANGE"]

    static func zone(_ screen: [String]) -> String? {
        screen.first { $0.hasPrefix("  ZONE ") }.map { $0.dropFirst(7).trimmingCharacters(in: .whitespaces) }
    }

    /// The capture hears this beacon from 5.5 s, then not from 43.5 s to 105.5 s: at 2x the screen
    /// shows it in range within 3 s, out of range (30 s unheard) from 36.8 s, back at 52.8 s.
    /// The out-of-range spell lasts 16 s of real time; at 20x it was 1.6 s and at 5x 6.4 s, which a
    /// full parallel test run's busy machine missed, and the test then waited for a return after
    /// the replay's end.
    @Test(.enabled(if: Tmux.available, "tmux is not installed (scripts/setup --test installs it): skipping the terminal test"))
    func liveScreenInTmuxShowsTheZoneUpdatesAndRestoresTheTerminalOnCtrlC() async throws {
        let tmux = try Tmux(command: [Paths.executable("bikebeacon").path, "range", "--beacon", Self.beacon, "--replay", Self.capture, "--speed", "2"])
        let first = try #require(try await tmux.waitFor(timeout: 10) { Self.zone($0).map { ["IMMEDIATE", "NEAR", "FAR"].contains($0) } ?? false },
                                 "the zone of a bike heard at 5.5 s appears")
        #expect(first.count == 24 && first.allSatisfy { $0.count <= 80 })
        #expect(first[0].hasPrefix("bikebeacon range: beacon") && first[0].hasSuffix("replay govee-h5100.btsnoop x2"))
        #expect(first[1] == "beacon " + Self.beacon)
        #expect(first.contains { $0.hasPrefix("  DISTANCE     ") && $0.hasSuffix(" m") })
        #expect(first.contains { $0.hasPrefix("  RSSI         filtered -") && $0.contains("raw -") })
        #expect(try tmux.value("alternate_on") == "1", "the view runs on the alternate screen")
        #expect(try tmux.value("cursor_flag") == "0", "the cursor is hidden while the view runs")

        let lastHeard = first.first { $0.hasPrefix("  LAST HEARD") }
        let later = try #require(try await tmux.waitFor(timeout: 5) { $0.first { $0.hasPrefix("  LAST HEARD") } != lastHeard },
                                 "the screen refreshes between readings")
        #expect(Self.zone(later).map(Self.zones.contains) == true)

        let lost = try await tmux.waitFor(timeout: 60) { Self.zone($0) == "OUT OF RANGE" }
        #expect(lost?.contains("  DISTANCE     unknown") == true, "30 s without the beacon (15 s at 2x) shows OUT OF RANGE")
        let back = try await tmux.waitFor(timeout: 40) { Self.zone($0).map { $0 != "OUT OF RANGE" } ?? false }
        #expect(back != nil, "the bike comes back in range when heard again")

        try tmux.send("C-c")
        #expect(try await tmux.waitForExit(timeout: 5) == 0, "Ctrl-C ends the program")
        #expect(try tmux.value("alternate_on") == "0", "the normal screen is back")
        #expect(try tmux.value("cursor_flag") == "1", "the cursor is visible again")
        #expect(try !tmux.screen().contains { $0.contains("ZONE") }, "the view's screen is gone")
    }

    @Test(.enabled(if: Tmux.available, "tmux is not installed (scripts/setup --test installs it): skipping the terminal test"))
    func sigtermAlsoRestoresTheTerminal() async throws {
        let tmux = try Tmux(command: [Paths.executable("bikebeacon").path, "range", "--beacon", Self.beacon, "--replay", Self.capture])
        _ = try #require(try await tmux.waitFor(timeout: 10) { Self.zone($0) != nil })
        let pid = try #require(try tmux.programPID())
        kill(pid, SIGTERM)
        #expect(try await tmux.waitForExit(timeout: 5) == 0)
        #expect(try tmux.value("alternate_on") == "0")
        #expect(try tmux.value("cursor_flag") == "1")
    }

    @Test(.enabled(if: Tmux.available, "tmux is not installed (scripts/setup --test installs it): skipping the terminal test"))
    func failureRestoresTheTerminalThenExplains() async throws {
        let tmux = try Tmux(command: [Paths.executable("bikebeacon").path, "range", "--beacon", Self.beacon, "--replay", "/nonexistent/capture.btsnoop"])
        #expect(try await tmux.waitForExit(timeout: 10) == 1)
        #expect(try tmux.value("alternate_on") == "0")
        #expect(try tmux.value("cursor_flag") == "1")
        #expect(try tmux.screen().joined().contains("bikebeacon range: cannot read /nonexistent/capture.btsnoop: No such file or directory"),
                "the error is shown on the normal screen, after the view is gone")
    }

    @Test func jsonLinesWhenPiped() async throws {
        let result = try await run("bikebeacon", ["range", "--beacon", Self.beacon, "--replay", Self.capture, "--speed", "2000"])
        #expect(result.status == 0, "\(result.stderr)")
        let reports = try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let keys: Set<String> = ["event", "time", "bike", "beacon", "zone", "distance", "distanceUncertainty", "filteredRSSI", "rssi", "measuredPower", "lastHeard", "trend"]
        #expect(reports.allSatisfy { Set($0.keys) == keys })
        #expect(reports.allSatisfy { $0["beacon"] as? String == Self.beacon })
        let readings = reports.filter { $0["event"] as? String == "reading" }
        #expect(readings.count == 17, "one line per advertisement of this beacon in the capture")
        #expect(readings.allSatisfy { ["immediate", "near", "far"].contains($0["zone"] as? String ?? "") })
        let first = try #require(readings.first)
        #expect(first["rssi"] as? Int == -53)
        #expect(first["measuredPower"] as? Int == -62)
        #expect(abs((first["time"] as? Double ?? 0) - 1_706_388_854.519107) < 1e-6)

        let losses = reports.enumerated().filter { $0.element["event"] as? String == "out_of_range" }
        #expect(losses.count >= 3, "the capture has three gaps of 40 s or more")
        for (index, loss) in losses {
            #expect(loss["zone"] as? String == "out_of_range")
            #expect(loss["distance"] is NSNull)
            let heard = try #require(loss["lastHeard"] as? Double)
            let time = try #require(loss["time"] as? Double)
            #expect(time - heard >= 30, "out of range only after the stale period")
            #expect(index == 0 || reports[index - 1]["event"] as? String == "reading", "reported once per loss")
        }
        let times = reports.compactMap { $0["time"] as? Double }
        #expect(times == times.sorted(), "lines come in time order")
    }

    @Test func choosesTheBikeByName() async throws {
        let file = try temporaryDirectory() + "/bikes.json"
        #expect(try await run("bikebeacon", ["bikes", "add", "red", "--beacon", Self.beacon, "--file", file]).status == 0)
        let named = try await run("bikebeacon", ["range", "--bike", "red", "--bikes-file", file, "--replay", Self.capture, "--speed", "5000"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.lines.count >= 17 && named.lines.allSatisfy { $0.contains(#""bike":"red""#) })
        let only = try await run("bikebeacon", ["range", "--bikes-file", file, "--replay", Self.capture, "--speed", "5000"])
        #expect(only.lines == named.lines, "the only bike is the default")
        let unknown = try await run("bikebeacon", ["range", "--bike", "blue", "--bikes-file", file, "--replay", Self.capture])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no bike called \"blue\": known bikes are \"red\""))
        let none = try await run("bikebeacon", ["range", "--bikes-file", file + ".none", "--replay", Self.capture])
        #expect(none.stderr.contains("no bike chosen: pass --beacon UUID:MAJOR:MINOR"))
        let both = try await run("bikebeacon", ["range", "--bike", "red", "--beacon", Self.beacon])
        #expect(both.stderr.contains("pass either --bike or --beacon, not both"))
        let speedless = try await run("bikebeacon", ["range", "--beacon", Self.beacon, "--speed", "2"])
        #expect(speedless.stderr.contains("--speed only applies with --replay FILE"))
    }
}
