import BikebeaconAPI
import Foundation
import Testing
import TestSupport
@testable import Server

/// Stored text reaches the operator's terminal escaped (#43): ESC, CR, C1 controls and bidi overrides show as
/// `\u{…}` instead of being obeyed.
@Suite struct TerminalTextTests {
    @Test func controlsAndBidiAreShownAsEscapes() {
        #expect(TerminalText.escaped("listening, no errors") == "listening, no errors")
        #expect(TerminalText.escaped("Café Rosa 🚲 — 東京") == "Café Rosa 🚲 — 東京")
        #expect(TerminalText.escaped("\u{1B}[2J\rok") == "\\u{1B}[2J\\u{D}ok")
        #expect(TerminalText.escaped("a\tb\nc\u{0}d\u{7F}e") == "a\\u{9}b\\u{A}c\\u{0}d\\u{7F}e")
        // C1: the 8-bit CSI a terminal may take for ESC [; and NEL.
        #expect(TerminalText.escaped("\u{9B}31m\u{85}") == "\\u{9B}31m\\u{85}")
        // Bidi overrides, isolates and marks; the line and paragraph separators.
        #expect(TerminalText.escaped("evil\u{202E}gpj.exe") == "evil\\u{202E}gpj.exe")
        #expect(TerminalText.escaped("\u{2066}\u{2067}\u{2068}\u{2069}\u{202A}\u{202B}\u{202C}\u{202D}\u{200E}\u{200F}\u{61C}")
                == "\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{200E}\\u{200F}\\u{61C}")
        #expect(TerminalText.escaped("a\u{2028}b\u{2029}") == "a\\u{2028}b\\u{2029}")
        // A joiner inside an emoji is no control: shown as it is.
        #expect(TerminalText.escaped("👩‍🔧") == "👩‍🔧")
        #expect(TerminalText.firstUnsafe(in: "ann\u{1B}@example.org") == "\u{1B}")
        #expect(TerminalText.firstUnsafe(in: "ann@example.org") == nil)
    }

    /// Random strings over the ranges that matter: the result never holds a scalar a terminal obeys, and safe text is untouched.
    @Test func fuzz() {
        var generator = SystemRandomNumberGenerator()
        let ranges: [ClosedRange<UInt32>] = [0...0x1F, 0x20...0x7E, 0x7F...0x9F, 0xA0...0x2FF, 0x2000...0x206F, 0xFE00...0xFFFD, 0x1F300...0x1F6FF]
        for _ in 0..<2000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...24, using: &generator) {
                let range = ranges.randomElement(using: &generator) ?? 0...0x7E
                if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) { scalars.append(scalar) }
            }
            let text = String(scalars)
            let shown = TerminalText.escaped(text)
            #expect(TerminalText.firstUnsafe(in: shown) == nil, "\(text.unicodeScalars.map(\.value))")
            #expect((TerminalText.firstUnsafe(in: text) == nil) == (shown == text))
        }
    }

    /// `sentinels show` and `list` print what a sentinel wrote escaped: a last error of ESC and CR cannot redraw the screen.
    @Test func sentinelsShowEscapesTheHeartbeat() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-cli-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = ["--database", "sqlite://\(path)"]
        #expect(try await run("bikebeacon-server", ["sentinels", "add", "--name", "garage", "--latitude", "51.5", "--longitude", "-0.12"] + database)
            .status == 0)
        var beat = SentinelHealthTests.healthy
        beat.lastError = "BlueZ gone\u{1B}[2K\rlistening, no errors\u{9B}2J"
        #expect(HeartbeatLimits.violation(in: beat) == nil, "the last error is free text: kept, and escaped on output")
        try await Database.using(.sqlite(path: path), logger: Harness.logger, migrateAt: nil) { db in
            let garage = try #require(try await SentinelStore(database: db).list().first)
            try await SentinelHealthStore(database: db).record(beat, from: garage, now: ServerOptions.wallClock())
        }
        let shown = try await run("bikebeacon-server", ["sentinels", "show", "garage"] + database)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.lines.contains { $0.hasSuffix(" BlueZ gone\\u{1B}[2K\\u{D}listening, no errors\\u{9B}2J") }, "\(shown.stdout)")
        #expect(!shown.stdout.contains("\u{1B}") && !shown.stdout.contains("\r") && !shown.stdout.contains("\u{9B}"))
        let listed = try await run("bikebeacon-server", ["sentinels", "list"] + database)
        #expect(!listed.stdout.contains("\u{1B}") && !listed.stdout.contains("\r"))
    }

    /// Machine fields refuse what a terminal would obey: a heartbeat's version and backend.
    @Test func heartbeatMachineFieldsRefuseControls() {
        for bad in ["0.1.0\u{1B}[32m", "0.1.0\r", "0.1.\u{202E}0", "0.1.0\u{85}"] {
            var beat = SentinelHealthTests.healthy
            beat.version = bad
            #expect(HeartbeatLimits.violation(in: beat)?.field == "version", "\(bad.unicodeScalars.map(\.value))")
            beat = SentinelHealthTests.healthy
            beat.backend = bad
            #expect(HeartbeatLimits.violation(in: beat)?.field == "backend")
        }
        var beat = SentinelHealthTests.healthy
        beat.version = "0.1.0\u{1B}"
        #expect(HeartbeatLimits.violation(in: beat)?.problem == "holds a control or bidi character (\\u{1B}); send plain text")
    }
}
