import ArgumentParser
import Beacon
import Console
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Owners
import Proximity
import Scanning

struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure a tag's RSSI at a known distance, for site calibration.",
        discussion: """
        Hold the tag still at --distance metres from this receiver (line of sight, as it will be \
        used) and run this: it listens for --seconds and prints the median RSSI with its spread \
        (interquartile range and count), and the point as DISTANCE=RSSI for `analyze --calibration`. \
        With the point measured at another distance (--other-point 1=-59), it prints the RSSI at \
        1 m and the path-loss exponent fitted to both. With --replay FILE it reads a capture instead \
        (btsnoop, pcap, pcapng): every report of the tag in it, or those of its first --seconds.

        --save bike NAME stores the tag's RSSI at 1 m (and the exponent, from two distances) for \
        that bike in the bikes file; `range` then uses them. --save sentinel prints the \
        `calibration:` block for this sentinel's YAML: the receiver's offset against the tag's \
        advertised 1 m power, and the exponent; the sentinel's zones, distances and MQTT distance \
        then use them.
        """
    )

    @Option(help: "The tag, UUID:MAJOR:MINOR.")
    var beacon: String

    @Option(help: "Metres between the tag and the receiver.")
    var distance: Double

    @Option(help: "How long to listen (with --replay: how much of the capture to use, from the tag's first report).")
    var seconds: Double?

    @Option(parsing: .unconditionalSingleValue,
            help: ArgumentHelp("The tag measured at another distance: metres=dBm, e.g. 1=-59; repeatable.", valueName: "distance=rssi"))
    var otherPoint: [String] = []

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Keep the result: `bike NAME` (bikes file) or `sentinel` (prints the YAML block).", valueName: "bike NAME|sentinel"))
    var save: [String] = []

    @Option(name: .customLong("bikes-file"), help: "The bikes file for --save bike (default: $XDG_CONFIG_HOME/bikebeacon/bikes.json or ~/.config/bikebeacon/bikes.json).")
    var bikesFile: String?

    @Option(help: "dbus: BlueZ over D-Bus (default). hci: raw HCI socket (needs CAP_NET_RAW and CAP_NET_ADMIN).")
    var backend: ScanCommand.Backend = .dbus

    @Option(help: "Adapter to scan on, e.g. hci0 (default: the first powered one).")
    var adapter: String?

    @Option(help: "Read a capture file (btsnoop, pcap, pcapng) instead of scanning.")
    var replay: String?

    /// How long a live measurement listens unless told otherwise, seconds.
    static let defaultSeconds = 30.0

    func validate() throws {
        _ = try usage { try BikeChoice.beacon(beacon) }
        guard distance.isFinite, distance > 0 else { throw ValidationError("--distance must be a positive number of metres, got \(distance)") }
        if let seconds, !(seconds.isFinite && seconds > 0 && seconds <= 86_400) {
            throw ValidationError("--seconds must be above 0 and at most 86400, got \(seconds)")
        }
        _ = try otherPoints()
        _ = try destination()
    }

    enum Destination: Equatable { case bike(String), sentinel }

    func destination() throws -> Destination? {
        switch save.count {
        case 0: return nil
        case 1 where save[0] == "sentinel": return .sentinel
        case 2 where save[0] == "bike": return .bike(save[1])
        default: throw ValidationError("--save takes `bike NAME` or `sentinel`, got `\(save.joined(separator: " "))`")
        }
    }

    func otherPoints() throws -> [CalibrationPoint] {
        do {
            return try otherPoint.map { text throws(CalibrationError) in try CalibrationPoint(parsing: text) }
        } catch {
            throw ValidationError("--other-point: \(error.description)")
        }
    }

    func run() async throws {
        let tag = try usage { try BikeChoice.beacon(beacon) }
        let logger = StandardError.logger("bikebeacon.calibrate")
        let heard: [Advertisement]
        let source: String
        if let replay {
            heard = try await Self.collect(tag, from: CaptureScanner(path: replay, logger: logger), for: seconds, live: false)
            source = "in " + replay
        } else {
            let listen = seconds ?? Self.defaultSeconds
            StandardError.line("bikebeacon calibrate: listening \(DecimalText.fixed(listen, 0)) s for \(tag) at \(DecimalText.fixed(distance, 2)) m; keep the tag still")
            heard = try await Self.collect(tag, from: backend.scanner(adapter: adapter, watchdog: 60, logger: logger), for: listen, live: true)
            source = "in \(DecimalText.fixed(listen, 0)) s"
        }
        guard let summary = RSSISummary(heard.map { Double($0.rssi) }) else {
            StandardError.line("bikebeacon calibrate: no report of \(tag) \(source): check the tag is awake and in range, and its ID (`bikebeacon scan` lists what is heard)")
            throw ExitCode.failure
        }
        print(Self.report(tag, distance: distance, summary))
        let points = [try CalibrationPoint(checking: distance, rssi: summary.median)] + (try otherPoints())
        let twoDistances = Set(points.map(\.distance)).count > 1
        let fit: (measuredPower: Double, exponent: Double)
        do {
            fit = try SiteCalibration.fit(points, exponent: ProximityConfiguration().pathLossExponent)
        } catch {
            StandardError.line("bikebeacon calibrate: \(error.description)")
            throw ExitCode.failure
        }
        if twoDistances {
            let distances = points.map { DecimalText.fixed($0.distance, 2) + " m" }.joined(separator: ", ")
            print("fitted to \(distances): RSSI at 1 m \(DecimalText.fixed(fit.measuredPower, 1)) dBm, path-loss exponent \(DecimalText.fixed(fit.exponent, 2))")
        }
        let calibration = TagCalibration(measuredPower: fit.measuredPower, pathLossExponent: twoDistances ? fit.exponent : nil)
        switch try destination() {
        case nil: break
        case .bike(let name): try saveBike(name, calibration)
        case .sentinel: print(try Self.sentinelBlock(calibration, advertised: heard.compactMap(\.measuredPower)))
        }
    }

    func saveBike(_ name: String, _ calibration: TagCalibration) throws {
        let path = try usage { try BikeChoice.bikesFile(bikesFile, environment: ProcessInfo.processInfo.environment) }
        do {
            var book = try BikesFile.load(path: path)
            try book.calibrate(named: name, calibration)
            try BikesFile.save(book, path: path)
        } catch let error as BikesFileError {
            StandardError.line("bikebeacon calibrate: \(error.description)")
            throw ExitCode.failure
        } catch let error as BikeBookError {
            StandardError.line("bikebeacon calibrate: \(error.description) (in \(path))")
            throw ExitCode.failure
        }
        print("saved for \"\(name)\" in \(path): RSSI at 1 m \(DecimalText.fixed(calibration.measuredPower, 1)) dBm"
            + (calibration.pathLossExponent.map { ", path-loss exponent \(DecimalText.fixed($0, 2))" } ?? ""))
    }

    /// The sentinel's `calibration:` block: the offset that brings this receiver's 1 m level to the
    /// tag's advertised power (the median of the frames' plausible values), and the exponent.
    static func sentinelBlock(_ calibration: TagCalibration, advertised: [Int]) throws -> String {
        guard let power = RSSISummary(advertised.map(Double.init).filter(ProximityEstimator.isPlausible))?.median else {
            StandardError.line("bikebeacon calibrate: the tag advertises no usable measured power, so this receiver's offset cannot be known: calibrate the sentinel with an iBeacon tag that does")
            throw ExitCode.failure
        }
        var lines = ["calibration:", "  rxOffset: \(DecimalText.fixed(power - calibration.measuredPower, 1))"]
        if let exponent = calibration.pathLossExponent { lines.append("  pathLossExponent: \(DecimalText.fixed(exponent, 2))") }
        return lines.joined(separator: "\n")
    }

    /// The tag's reports with a plausible RSSI from `scanner`: for `seconds` of wall time when
    /// live, else those within `seconds` of its first report (all of them when nil).
    static func collect(_ tag: BeaconID, from scanner: any Scanning.Scanner, for seconds: Double?, live: Bool) async throws -> [Advertisement] {
        let collector = Task { () async throws -> [Advertisement] in
            var readings: [Advertisement] = []
            var first: Double?
            do {
                for try await batch in scanner.advertisementBatches() {
                    for advertisement in batch where advertisement.beacon == tag && ProximityEstimator.isPlausible(rssi: Double(advertisement.rssi)) {
                        let start = first ?? advertisement.time
                        first = start
                        if !live, let seconds, advertisement.time - start > seconds { continue }
                        readings.append(advertisement)
                    }
                }
            } catch where Task.isCancelled {
                // The listening time is up: what was heard so far is the measurement.
            }
            return readings
        }
        if live, let seconds {
            try await Task.sleep(for: .seconds(seconds))
            collector.cancel()
        }
        return try await collector.value
    }

    static func report(_ tag: BeaconID, distance: Double, _ summary: RSSISummary) -> String {
        "\(tag) at \(DecimalText.fixed(distance, 2)) m: median \(DecimalText.fixed(summary.median, 1)) dBm, "
            + "interquartile range \(DecimalText.fixed(summary.interquartileRange, 1)) dB (\(DecimalText.fixed(summary.lowerQuartile, 1)) "
            + "to \(DecimalText.fixed(summary.upperQuartile, 1))), \(summary.count) readings\n"
            + "calibration point: \(DecimalText.fixed(distance, 2))=\(DecimalText.fixed(summary.median, 1))"
    }
}
