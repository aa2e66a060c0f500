#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Benchmarks
import Foundation
import GPSD
import Logging
import Registry
import Scanning
import Sentinel

struct SentinelBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sentinel",
        abstract: "The whole sentinel (capture → core → SQLite outbox) replaying a synthetic capture: advertisements/s, CPU, RSS over the run.",
        discussion: """
        Writes a btsnoop capture of --advertisements reports from --beacons tags (round robin, 1 Hz \
        each), 1 % of them on the missing list, then replays it twice in this process: once reading \
        the capture alone (the baseline), once through the full sentinel with an unreachable server, \
        so every sighting is committed to the outbox and stays there. Then, when `bikebeacon` is \
        beside this executable, the same capture through `bikebeacon sentinel --replay` in its own \
        process: the sentinel's own resident memory, sampled from /proc, without this bench's; and \
        again with its location from gpsd (a local server writing a recorded gpsd session at 1, 10 \
        and 1000 lines a second), against that run: the gpsd client's CPU and memory.
        """
    )

    @Option(help: "Advertisements in the capture.")
    var advertisements = 1_000_000

    @Option(help: "Distinct beacons.")
    var beacons = 10_000

    @Option(help: "A recorded gpsd session (its JSON lines) a local server writes to the sentinel, for the gpsd client's cost.")
    var gpsdTrack = "Resources/tracks/haicom-305N.json"

    func validate() throws {
        guard (1...100_000_000).contains(advertisements), (100...1_000_000).contains(beacons) else {
            throw ValidationError("--advertisements 1…100000000, --beacons 100…1000000")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("street.btsnoop").path
        let missing = try SyntheticStreet.write(to: capture, advertisements: advertisements, beacons: beacons)
        let state = directory.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try MissingListCache(path: state + "/missing-list.json").save(
            MissingListSnapshot(version: 1, etag: nil, confirmedAt: Date().timeIntervalSince1970, bikes: missing))

        print("bench sentinel: \(advertisements) advertisements from \(beacons) beacons (\(missing.count) missing), debug or release as built")
        // Baseline: reading and decoding the capture, nothing more.
        let baselineCPU = cpuSeconds()
        let baselineClock = Stopwatch()
        var read = 0
        for try await batch in CaptureScanner(path: capture).advertisementBatches() { read += batch.count }
        let baselineSeconds = baselineClock.seconds
        let baselineCPUSeconds = cpuSeconds() - baselineCPU

        var settings = SentinelConfiguration(serverURL: "http://127.0.0.1:9", token: "bench", stateDirectory: state)
        settings.requestTimeout = 0.2
        var logger = Logger(label: "bikebeacon.bench") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .critical
        let sampler = RSSSampler()
        let sampling = Task { await sampler.run() }
        let cpu = cpuSeconds()
        let clock = Stopwatch()
        let summary = try await SentinelRunner.run(configuration: settings, source: .replay(CaptureScanner(path: capture)),
                                                   drainTimeout: 0, logger: logger)
        let seconds = clock.seconds
        let cpuUsed = cpuSeconds() - cpu
        sampling.cancel()
        let samples = await sampler.samples

        print(Table.render(
            header: ["run", "ads", "seconds", "ads/s", "CPU s", "CPU ratio", "sightings"],
            rows: [
                ["capture read only (baseline)", String(read), fmt(baselineSeconds, 2), fmt(Double(read) / baselineSeconds, 0), fmt(baselineCPUSeconds, 2), "1.00", "-"],
                ["full sentinel", String(summary.advertisements), fmt(seconds, 2), fmt(Double(summary.advertisements) / seconds, 0), fmt(cpuUsed, 2),
                 fmt(cpuUsed / baselineCPUSeconds, 2), String(summary.sightingsCreated)],
            ]
        ))
        print("CPU ratio: process CPU seconds against the baseline's (steadier than wall time on a shared machine)")
        print("\nRSS during the sentinel run (sampled every 0.25 s; includes ~0.2 s of start-up waiting for the unreachable server)")
        let step = max(1, samples.count / 10)
        print(Table.render(header: ["elapsed s", "RSS MB"],
                           rows: stride(from: 0, to: samples.count, by: step).map { [fmt(samples[$0].0, 2), fmt(Double(samples[$0].1) / 1_048_576, 1)] }
                               + (samples.last.map { [[fmt($0.0, 2), fmt(Double($0.1) / 1_048_576, 1)]] } ?? [])))

        let executable = ThisExecutable.sibling("bikebeacon")
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            print("\nno bikebeacon beside bikebeacon-bench: the sentinel process was not measured (swift build -c release --product bikebeacon)")
            return
        }
        try await measureProcess(executable, capture: capture, missing: missing, directory: directory)
    }

    /// `bikebeacon sentinel --replay` on the capture, in its own process: its RSS over the run;
    /// then the same with its location from gpsd, against that run.
    private func measureProcess(_ executable: String, capture: String, missing: [MissingBike], directory: URL) async throws {
        let baseline = try await runProcess(executable, capture: capture, missing: missing, directory: directory, name: "fixed")
        func mb(_ bytes: Int) -> String { fmt(Double(bytes) / 1_048_576, 1) }
        print("\nbikebeacon sentinel --replay in its own process (\(executable)): \(fmt(baseline.seconds, 2)) s, RSS sampled every 0.1 s")
        let samples = baseline.samples
        let step = max(1, samples.count / 10)
        let rows = (Array(stride(from: 0, to: samples.count, by: step)) + [samples.count - 1]).map { index in
            let (elapsed, memory) = samples[index]
            return [fmt(elapsed, 2), mb(memory.current), mb(memory.anonymous), mb(memory.file), mb(memory.peak)]
        }
        print(Table.render(header: ["elapsed s", "RSS MB", "own (anonymous) MB", "mapped files MB", "peak so far MB"], rows: rows))
        print("sentinel peak RSS (VmHWM): \(mb(baseline.peak)) MB; goal ≤ 20 MB, flat")

        guard let recording = FileManager.default.contents(atPath: gpsdTrack) else {
            print("\nno recorded gpsd session at \(gpsdTrack): the gpsd client was not measured (run from the repository root, or pass --gpsd-track)")
            return
        }
        var framer = GPSDLineFramer()
        let lines = framer.lines(recording)
        var table = [["location: fixed (baseline)", fmt(baseline.seconds, 2), fmt(baseline.cpu, 2), "1.00", mb(baseline.peak), "1.00", "-"]]
        for rate in [1.0, 10, 1000] {
            let gpsd = try await RecordedGPSD(lines: lines, rate: rate)
            let run = try await runProcess(executable, capture: capture, missing: missing, directory: directory, name: "gpsd-\(Int(rate))",
                                           location: "location:\n  gpsd: {host: 127.0.0.1, port: \(gpsd.port)}")
            await gpsd.stop()
            table.append(["location: gpsd, \(Int(rate)) lines/s", fmt(run.seconds, 2), fmt(run.cpu, 2), fmt(run.cpu / baseline.cpu, 2),
                          mb(run.peak), fmt(Double(run.peak) / Double(baseline.peak), 2), String(gpsd.linesWritten)])
        }
        print("\nthe gpsd client's cost: the same replay with the location from a local server writing gpsd's recorded lines (\(gpsdTrack), TPV and SKY)")
        print(Table.render(header: ["sentinel process", "seconds", "CPU s", "CPU ratio", "peak RSS MB", "RSS ratio", "gpsd lines sent"], rows: table))
        print("CPU: the sentinel process's user+system seconds (getrusage of the child); RSS: its VmHWM (/proc). A real gpsd sends 2–3 lines a second (TPV, SKY) at 1 Hz.")
    }

    /// One `bikebeacon sentinel --replay` of the capture in its own process, with a fresh outbox.
    private func runProcess(_ executable: String, capture: String, missing: [MissingBike], directory: URL, name: String,
                            location: String = "") async throws -> (seconds: Double, cpu: Double, peak: Int,
                                                                     samples: [(seconds: Double, memory: ProcessMemory.Resident)]) {
        let state = directory.appendingPathComponent("process-\(name)").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try MissingListCache(path: state + "/missing-list.json").save(
            MissingListSnapshot(version: 1, etag: nil, confirmedAt: Date().timeIntervalSince1970, bikes: missing))
        let config = directory.appendingPathComponent("sentinel-\(name).yaml").path
        try """
        server: {url: "http://127.0.0.1:9", token: bench, timeout: 0.2}
        stateDirectory: \(state)
        \(location)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["sentinel", "--config", config, "--replay", capture, "--drain-timeout", "0"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let cpu = cpuSeconds(RUSAGE_CHILDREN)
        let clock = Stopwatch()
        try process.run()
        var samples: [(seconds: Double, memory: ProcessMemory.Resident)] = []
        while process.isRunning {
            if let memory = ProcessMemory.resident(of: process.processIdentifier) { samples.append((clock.seconds, memory)) }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.waitUntilExit()
        let seconds = clock.seconds
        guard process.terminationStatus == 0, let last = samples.last else {
            throw ValidationError("bikebeacon sentinel --replay (\(name)) exited with status \(process.terminationStatus) after \(fmt(seconds, 1)) s")
        }
        return (seconds, cpuSeconds(RUSAGE_CHILDREN) - cpu, last.memory.peak, samples)
    }

    /// This process's CPU seconds, or (`RUSAGE_CHILDREN`) those of its children that have ended.
    private func cpuSeconds(_ who: __rusage_who = RUSAGE_SELF) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// Samples this process's RSS until cancelled.
actor RSSSampler {
    private(set) var samples: [(Double, Int)] = []

    func run() async {
        let clock = Stopwatch()
        while !Task.isCancelled {
            samples.append((clock.seconds, ProcessMemory.residentBytes ?? 0))
            try? await Task.sleep(for: .milliseconds(250))
        }
    }
}
