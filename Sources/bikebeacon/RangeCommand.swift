#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Owners
import Scanning

struct RangeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "range",
        abstract: "Show live how close your bike is.",
        discussion: """
        On a terminal: a full-screen view refreshed four times a second with the zone \
        (IMMEDIATE / NEAR / FAR / OUT OF RANGE), distance, filtered and raw RSSI, a chart of recent \
        readings, when the bike was last heard and whether you are getting warmer or colder. \
        Ctrl-C quits and puts the terminal back. Colour is off with NO_COLOR set or TERM=dumb.

        When stdout is not a terminal: one JSON object per line, for every advertisement of the bike \
        heard ("event": "reading") and when it goes out of range ("event": "out_of_range"). A replay \
        then ends at the end of the capture.

        The bike is --beacon UUID:MAJOR:MINOR, or --bike NAME from the bikes file (see \
        `bikebeacon bikes`) or, after `bikebeacon login URL`, from your account; or the only bike \
        there is when there is just one.
        """
    )

    @Option(help: "The bike's name in the bikes file.")
    var bike: String?

    @Option(help: "The bike's beacon, UUID:MAJOR:MINOR.")
    var beacon: String?

    @Option(help: "dbus: BlueZ over D-Bus (default). hci: raw HCI socket (needs CAP_NET_RAW and CAP_NET_ADMIN).")
    var backend: ScanCommand.Backend = .dbus

    @Option(help: "Adapter to scan on, e.g. hci0 (default: the first powered one).")
    var adapter: String?

    @Option(help: "Play a capture file (btsnoop, pcap, pcapng) at its own pace instead of scanning.")
    var replay: String?

    @Option(help: "With --replay: play this many times faster than recorded.")
    var speed: Double = 1

    @Option(name: .customLong("bikes-file"), help: "The bikes file (default: $XDG_CONFIG_HOME/bikebeacon/bikes.json or ~/.config/bikebeacon/bikes.json).")
    var bikesFile: String?

    func validate() throws {
        if bike != nil, beacon != nil { throw ValidationError("pass either --bike or --beacon, not both") }
        if let beacon { _ = try usage { try BikeChoice.beacon(beacon) } }
        guard speed > 0, speed <= 1_000_000 else { throw ValidationError("--speed must be above 0 and at most 1000000") }
        if replay == nil, speed != 1 { throw ValidationError("--speed only applies with --replay FILE") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let chosen = try await usage {
            try await BikeChoice.resolve(bike: bike, beacon: beacon, bikesFile: bikesFile, environment: environment) {
                try await BikeChoice.accountBikes(environment: environment)
            }
        }
        let screen = Terminal.isTerminal(STDOUT_FILENO)
        let board = NoticeBoard()
        let logger = screen ? board.logger("bikebeacon.range") : StandardError.logger("bikebeacon.range")
        let scanner: any Scanning.Scanner
        let source: String
        if let replay {
            scanner = CaptureScanner(path: replay, logger: logger)
            source = "replay " + URL(fileURLWithPath: replay).lastPathComponent + (speed == 1 ? "" : " x" + Self.speedText(speed))
        } else {
            scanner = backend.scanner(adapter: adapter, watchdog: 60, logger: logger)
            source = backend.sourceName(adapter: adapter)
        }
        let session = RangeSession(
            feed: RangeFeed(tracker: RangeTracker(beacon: chosen.beacon, calibration: chosen.calibration), bike: chosen.name, source: source),
            scanner: scanner,
            speed: replay == nil ? nil : speed,
            board: board
        )
        let failure = screen
            ? await session.runScreen(terminal: Terminal(style: ScreenStyle(environment: ProcessInfo.processInfo.environment)))
            : await session.runLines()
        if let hci = scanner as? HCIScanner { await hci.waitUntilStopped() }
        if let failure {
            StandardError.line("bikebeacon range: \(failure)")
            throw ExitCode.failure
        }
    }

    private static func speedText(_ speed: Double) -> String {
        speed == speed.rounded() && speed < 1e9 ? String(Int(speed)) : String(speed)
    }
}
