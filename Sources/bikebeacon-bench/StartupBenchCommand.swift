#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Benchmarks
import Foundation

struct StartupBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup",
        abstract: "Start-up to scanning: from starting `bikebeacon sentinel` (beside this executable) to its `scanning` log line.",
        discussion: """
        Starts bikebeacon as a live sentinel --runs times (config, a SQLite outbox, the server \
        unreachable, the D-Bus backend pointed at a bus that is not there, so that no radio is \
        needed: the line comes before the scanner connects) and times it from the spawn to the \
        `scanning` line on stderr. Baselines: a bare process start (/bin/true, to its exit), and \
        the same executable started for `decode` of one frame, to its exit: what loading it and \
        starting the Swift runtime cost before the sentinel does anything of its own.
        """
    )

    @Option(help: "Runs of each.")
    var runs = 20

    func validate() throws {
        guard (1...1000).contains(runs) else { throw ValidationError("--runs 1…1000") }
    }

    func run() async throws {
        let executable = ThisExecutable.sibling("bikebeacon")
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ValidationError("no bikebeacon beside bikebeacon-bench (\(executable)); build it: swift build -c release --product bikebeacon")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-startup-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("sentinel.yaml").path
        try """
        server: {url: "http://127.0.0.1:9", token: bench, timeout: 1}
        stateDirectory: \(directory.path)
        """.write(toFile: config, atomically: true, encoding: .utf8)

        var bare: [Double] = []
        var baseline: [Double] = []
        var startup: [Double] = []
        for _ in 0..<runs {
            bare.append(try Self.time("/bin/true", [], until: nil))
            baseline.append(try Self.time(executable, ["decode", "4c000215494e54454c4c495f524f434b535f48575075f2ffc2"], until: nil))
            startup.append(try Self.time(executable, ["sentinel", "--config", config], until: "scanning",
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-bus"]))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print("bench startup: \(runs) runs each of \(executable)")
        print(Table.render(
            header: ["run", "median ms", "max ms", "ratio to bare", "ratio to decode"],
            rows: [
                ["/bin/true, to exit (bare process start)", fmt(median(bare) * 1000, 1), fmt((bare.max() ?? 0) * 1000, 1), "1.00", "-"],
                ["decode one frame, to exit (baseline)", fmt(median(baseline) * 1000, 1), fmt((baseline.max() ?? 0) * 1000, 1),
                 fmt(median(baseline) / median(bare), 2), "1.00"],
                ["sentinel, to scanning", fmt(median(startup) * 1000, 1), fmt((startup.max() ?? 0) * 1000, 1),
                 fmt(median(startup) / median(bare), 2), fmt(median(startup) / median(baseline), 2)],
            ]
        ))
        print("goal: sentinel to scanning < 100 ms")
    }

    /// Seconds from spawning to `line` appearing on stderr (then SIGTERM), or to exit when nil.
    private static func time(_ executable: String, _ arguments: [String], until line: String?,
                             environment: [String: String] = [:]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let clock = Stopwatch()
        try process.run()
        guard let line else {
            process.waitUntilExit()
            return clock.seconds
        }
        var seen = ""
        while true {
            let chunk = errors.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                process.waitUntilExit()
                throw ValidationError("the sentinel exited without logging '\(line)':\n\(seen)")
            }
            seen += String(decoding: chunk, as: UTF8.self)
            if seen.contains(" \(line)") { break }
        }
        let seconds = clock.seconds
        process.terminate()
        process.waitUntilExit()
        return seconds
    }
}
