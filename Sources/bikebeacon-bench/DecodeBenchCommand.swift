import ArgumentParser
import Benchmarks
import Foundation
import Scanning

struct DecodeBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Capture replay throughput (reports/s) against tshark on the same file; peak RSS of `bikebeacon decode`.",
        discussion: """
        The peak RSS row runs the `bikebeacon` beside this executable (`decode` of one frame) under \
        GNU time, which reports the kernel's high-water mark of its resident set; it is skipped \
        when that executable is not built or time is not installed.
        """
    )

    @Option(help: "Real capture whose iBeacon events are repeated.")
    var capture = "Tests/Fixtures/captures/govee-h5100.btsnoop"

    @Option(help: "iBeacon reports in the generated capture.")
    var reports = 1_000_000

    @Option(help: "tshark executable; the comparison is skipped when it is not installed.")
    var tshark = "/usr/bin/tshark"

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("large.btsnoop").path

        let built = try DecodeBench.buildCapture(from: capture, reports: reports, to: path)
        print("bench decode: \(built.iBeacons) iBeacon reports in \(built.packets) LE advertising events, \(fmt(Double(built.bytes) / 1_048_576, 1)) MB btsnoop, built from \(capture)")

        let sync = try DecodeBench.replay(path: path)
        let perReport = try await DecodeBench.replayPerReport(path: path)
        let stream = try await DecodeBench.replayStream(path: path)
        var rows = [
            row("reader+parser+decoder", sync.counts.iBeacons, sync.seconds, baseline: nil),
            row("stream, one await per report (before)", perReport.counts.iBeacons, perReport.seconds, baseline: nil),
            row("CaptureScanner batches (replay, sentinel)", stream.counts.iBeacons, stream.seconds, baseline: nil),
        ]
        if FileManager.default.isExecutableFile(atPath: tshark) {
            let clock = Stopwatch()
            let found = try Tshark.countIBeacons(executable: tshark, capture: path)
            let seconds = clock.seconds
            let tsharkRate = Double(found) / seconds
            rows = [
                row("reader+parser+decoder", sync.counts.iBeacons, sync.seconds, baseline: tsharkRate),
                row("stream, one await per report (before)", perReport.counts.iBeacons, perReport.seconds, baseline: tsharkRate),
                row("CaptureScanner batches (replay, sentinel)", stream.counts.iBeacons, stream.seconds, baseline: tsharkRate),
                row("tshark -T fields (baseline)", found, seconds, baseline: tsharkRate),
            ]
            let agree = found == sync.counts.iBeacons && found == stream.counts.iBeacons && found == perReport.counts.iBeacons
            print(Table.render(header: ["", "iBeacon reports", "seconds", "reports/s", "ratio vs tshark"], rows: rows))
            print("iBeacon counts agree with tshark: \(agree ? "yes" : "NO")")
        } else {
            print(Table.render(header: ["", "iBeacon reports", "seconds", "reports/s", "ratio vs tshark"], rows: rows))
            print("tshark not found at \(tshark): comparison skipped (install it with `scripts/setup --bench`)")
        }
        let bikebeacon = ThisExecutable.sibling("bikebeacon")
        if FileManager.default.isExecutableFile(atPath: bikebeacon),
           let peak = ChildMemory.peakResidentBytes(executable: bikebeacon, arguments: ["decode", "4c000215494e54454c4c495f524f434b535f48575075f2ffc2"]) {
            print("bikebeacon decode (one frame): peak RSS \(fmt(Double(peak) / 1_048_576, 1)) MB (goal ≤ 10 MB), \(bikebeacon)")
        } else if !FileManager.default.isExecutableFile(atPath: ChildMemory.time) {
            print("no GNU time at \(ChildMemory.time): decode RSS skipped; install it with `scripts/setup --bench`")
        } else {
            print("no bikebeacon beside bikebeacon-bench (\(bikebeacon)): decode RSS skipped; build it: swift build -c release --product bikebeacon")
        }
    }

    func row(_ name: String, _ count: Int, _ seconds: Double, baseline: Double?) -> [String] {
        let rate = Double(count) / seconds
        return [name, String(count), fmt(seconds, 2), fmt(rate, 0), baseline.map { fmt(rate / $0, 1) } ?? "n/a"]
    }
}
