import Foundation
import TestSupport
import Testing

/// `bikebeacon calibrate --replay` on a real capture (govee-h5100.btsnoop, a Raspberry Pi hearing
/// Govee thermometers' iBeacon frames): the median, quartiles and count it prints are the ones
/// computed here from tshark's reading of the same capture, an independent decoder.
struct CalibrateCommandTests {
    static let capture = Paths.fixture("captures/govee-h5100.btsnoop")
    /// The capture's busiest iBeacon: UUID "INTELLI_ROCKS_HW", major 0x5075, minor 0xF2FF.
    static let beacon = "494E5445-4C4C-495F-524F-434B535F4857:20597:62207"
    static let frame = "0215494e54454c4c495f524f434b535f48575075f2ff"

    @Test func replayedCapturePrintsTheMedianTsharkGives() async throws {
        let rssi = try await Self.tsharkRSSI()
        try #require(rssi.count >= 20, "the capture holds \(rssi.count) reports of the tag")
        let sorted = rssi.sorted()
        let median = Self.quantile(sorted, 0.5), q1 = Self.quantile(sorted, 0.25), q3 = Self.quantile(sorted, 0.75)
        let result = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("at 1.00 m: median \(Self.fixed(median)) dBm, interquartile range \(Self.fixed(q3 - q1)) dB (\(Self.fixed(q1)) to \(Self.fixed(q3))), \(rssi.count) readings"),
                "\(result.stdout)")
        #expect(result.lines.contains("calibration point: 1.00=\(Self.fixed(median))"))

        // The same tag 10 dB weaker at 3 m: n = 10 / (10·log10 3) = 2.10.
        let two = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "1",
                                                "--other-point", "3=\(median - 10)"])
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.stdout.contains("RSSI at 1 m \(Self.fixed(median)) dBm, path-loss exponent 2.10"), "\(two.stdout)")
    }

    /// --save bike NAME keeps the tag's 1 m level and exponent in the bikes file (which `range`
    /// reads); --save sentinel prints the YAML block: the frames advertise -62 dBm (0xC2; some
    /// send +12, which is not a power and is ignored), so the offset is -62 minus the median.
    @Test func savesForABikeAndPrintsTheSentinelBlock() async throws {
        let rssi = try await Self.tsharkRSSI()
        let median = Self.quantile(rssi.sorted(), 0.5)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-calibrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bikes = directory.appendingPathComponent("bikes.json").path
        let added = try await run("bikebeacon", ["bikes", "add", "commuter", "--beacon", Self.beacon, "--file", bikes])
        try #require(added.status == 0, "\(added.stderr)")
        let saved = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "1",
                                                  "--other-point", "3=\(median - 10)", "--save", "bike", "commuter", "--bikes-file", bikes])
        #expect(saved.status == 0, "\(saved.stderr)")
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bikes))) as? [String: Any]
        let bike = try #require((file?["bikes"] as? [[String: Any]])?.first)
        let calibration = try #require(bike["calibration"] as? [String: Double], "\(bike)")
        #expect(calibration["measuredPower"] == median)
        #expect(abs((calibration["pathLossExponent"] ?? 0) - 10 / (10 * log10(3.0))) < 1e-9)
        let unknown = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "1",
                                                    "--save", "bike", "gravel", "--bikes-file", bikes])
        #expect(unknown.status != 0 && unknown.stderr.contains("no bike called \"gravel\""), "\(unknown.stderr)")

        let sentinel = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "1",
                                                     "--other-point", "3=\(median - 10)", "--save", "sentinel"])
        #expect(sentinel.status == 0, "\(sentinel.stderr)")
        #expect(sentinel.stdout.contains("calibration:\n  rxOffset: \(Self.fixed(-62 - median))\n  pathLossExponent: 2.10"), "\(sentinel.stdout)")
    }

    @Test func refusesWhatItCannotMeasure() async throws {
        let absent = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2", "--distance", "1"])
        #expect(absent.status != 0 && absent.stderr.contains("no report of E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"), "\(absent.stderr)")
        let distance = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "0"])
        #expect(distance.status != 0 && distance.stderr.contains("--distance must be a positive number"), "\(distance.stderr)")
        let point = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "1", "--other-point", "three=-70"])
        #expect(point.status != 0 && point.stderr.contains("is not DISTANCE=RSSI"), "\(point.stderr)")
        let save = try await run("bikebeacon", ["calibrate", "--replay", Self.capture.path, "--beacon", Self.beacon, "--distance", "1", "--save", "garage"])
        #expect(save.status != 0 && save.stderr.contains("--save takes `bike NAME` or `sentinel`"), "\(save.stderr)")
    }

    /// The tag's report RSSIs as tshark decodes them (one advertising report per frame here).
    static func tsharkRSSI() async throws -> [Double] {
        let tshark = try #require(["/usr/bin/tshark", "/usr/local/bin/tshark"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                  "tshark is missing: scripts/setup installs it")
        let result = try await run(path: tshark, ["-r", capture.path, "-Y", "btcommon.eir_ad.entry.data", "-T", "fields",
                                                  "-e", "bthci_evt.rssi", "-e", "btcommon.eir_ad.entry.data"])
        try #require(result.status == 0, "\(result.stderr)")
        return try result.lines.compactMap { line -> Double? in
            let fields = line.split(separator: "\t")
            guard fields.count == 2, fields[1].split(separator: ",").contains(where: { $0.hasPrefix(frame) }) else { return nil }
            let rssi = Double(String(fields[0]))
            try #require(rssi != nil, "one RSSI per frame: \(line)")
            return rssi
        }
    }

    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let lower = Int(position), upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
    }

    static func fixed(_ value: Double) -> String { String(format: "%.1f", value) }
}
