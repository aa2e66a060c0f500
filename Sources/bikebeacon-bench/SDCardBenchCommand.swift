#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Beacon
import Benchmarks
import Foundation
import Logging
import Registry
import Scanning
import Sentinel

struct SDCardBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdcard",
        abstract: "Bytes a live sentinel writes to storage per hour: idle, and reporting a sighting a minute.",
        discussion: """
        Runs the sentinel in this process on a live radio stand-in for 10 s of start-up plus \
        --seconds per run and reads write_bytes from /proc/self/io (what the process sent to the block layer: status, metrics, \
        outbox, saved missing list), scaled to an hour. Baseline: the status files in the state \
        directory, as a sentinel run by hand keeps them; then as the packaged unit runs it, with \
        them on a tmpfs. The state directory must be on a real disk (it is in $TMPDIR). The server \
        is unreachable, so sightings stay in the outbox: delivering them would add one delete each.
        """
    )

    @Option(help: "Seconds of steady state per run (three runs, each after a start-up of 10 s).")
    var seconds = 60.0

    /// Seconds from the start to the steady state: the outbox is created and the first status written.
    static let startUp = 10.0

    func validate() throws {
        guard seconds >= 10 else { throw ValidationError("--seconds must be at least 10: the status is written every 5 s") }
    }

    func run() async throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/io") else {
            throw ValidationError("bench sdcard reads /proc/self/io: Linux with task I/O accounting only")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-sdcard-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tmpfs = "/dev/shm/bikebeacon-sdcard-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: tmpfs) }
        let missing = BeaconID(uuid: UUID(uuidString: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E") ?? UUID(), major: 1, minor: 2)

        print("bench sdcard: \(Int(seconds)) s per run, bytes written scaled to an hour (\(directory.path) on disk, status on \(tmpfs))")
        var rows: [[String]] = []
        var baseline = 0.0
        for run in SDRun.allCases {
            let state = directory.appendingPathComponent(run.rawValue).path
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            try MissingListCache(path: state + "/missing-list.json").save(
                MissingListSnapshot(version: 1, etag: nil, confirmedAt: Date().timeIntervalSince1970,
                                    bikes: [MissingBike(beacon: missing, description: BikeDescription(make: "Trek", model: "FX 3", colour: "black"))]))
            var settings = SentinelConfiguration(serverURL: "http://127.0.0.1:9", token: "bench", stateDirectory: state)
            settings.statusDirectory = run.statusOnTmpfs ? tmpfs + "/" + run.rawValue : nil
            settings.requestTimeout = 0.2
            // A sighting a minute: the bike stays in range and reports "present" every 60 s.
            settings.presentInterval = 60
            let scanner = MetronomeScanner(beacon: run.heard ? missing : nil)
            let before = try writeBytes()
            let sentinel = Task {
                var logger = Logger(label: "bikebeacon.bench") { StreamLogHandler.standardError(label: $0) }
                logger.logLevel = .critical
                return try await SentinelRunner.run(configuration: settings, source: .live(scanner), logger: logger)
            }
            // Start-up (creating the outbox) and shutdown (its last checkpoint) happen once per
            // run of the daemon, not per hour: counted apart from the steady state.
            try await Task.sleep(for: .seconds(Self.startUp))
            let steadyFrom = try writeBytes()
            try await Task.sleep(for: .seconds(seconds))
            let steadyTo = try writeBytes()
            sentinel.cancel()
            _ = await sentinel.result
            // Let the page cache's writes of this run be counted before the next one.
            sync()
            let end = try writeBytes()
            let perHour = Double(steadyTo - steadyFrom) * 3600 / seconds
            if run == .baseline { baseline = perHour }
            rows.append([run.description, fmt(perHour / 1_048_576, 2), baseline > 0 ? fmt(perHour / baseline, 2) : "-",
                         fmt(Double(steadyFrom - before) / 1024, 0), fmt(Double(end - steadyTo) / 1024, 0)])
        }
        print(Table.render(header: ["run", "MB written / h", "ratio to baseline", "start-up KB", "shutdown KB"], rows: rows))
        print("MB/h: the steady state, from \(Int(Self.startUp)) s after the start to the end of the run; start-up and shutdown happen once per daemon run")
        print("goal: ≤ 1 MB/h idle, as packaged")
    }

    private func writeBytes() throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("write_bytes:") {
            if let value = Int(line.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)) { return value }
        }
        throw ValidationError("no write_bytes in /proc/self/io")
    }
}

private enum SDRun: String, CaseIterable, CustomStringConvertible {
    case baseline, idle, sightings

    var heard: Bool { self == .sightings }
    var statusOnTmpfs: Bool { self != .baseline }
    var description: String {
        switch self {
        case .baseline: "idle, status in the state directory (baseline)"
        case .idle: "idle, as packaged (status on tmpfs)"
        case .sightings: "a sighting a minute, as packaged"
        }
    }
}

/// A radio that hears one beacon once a second (or nothing), stamped with the wall clock.
private struct MetronomeScanner: Scanning.Scanner {
    let beacon: BeaconID?

    func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        let beacon = beacon
        return AsyncThrowingStream(unfolding: { () async throws -> [Advertisement]? in
            try await Task.sleep(for: .seconds(1))
            guard let beacon else { return try await Self.silence() }
            return [Advertisement(beacon: beacon, rssi: -60, measuredPower: -59, address: nil, time: Date().timeIntervalSince1970)]
        })
    }

    /// Waits until cancelled: an idle street.
    private static func silence() async throws -> [Advertisement]? {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    func counts() async -> ScanCounts { ScanCounts() }
}
