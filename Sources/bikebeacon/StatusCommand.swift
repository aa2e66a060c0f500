import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Sentinel

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print a running sentinel's health from its state directory.",
        discussion: "Exits 1 when the sentinel has not updated its status for longer than --max-age (stopped or hung); it rewrites it every 5 seconds."
    )

    @Option(help: "The sentinel's YAML config file (for its state directory).")
    var config: String?

    @Option(help: "The directory holding the sentinel's status.json (default: its status directory, /run/bikebeacon under systemd, or its state directory).")
    var stateDirectory: String?

    @Flag(help: "Print the status as JSON.")
    var json = false

    @Option(help: "Seconds without an update after which the sentinel counts as stopped or hung.")
    var maxAge: Double = 30

    func validate() throws {
        guard maxAge > 0 else { throw ValidationError("--max-age must be a positive number of seconds") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let path: String
        do {
            path = try stateDirectory.map { $0 + "/" + SentinelStatus.fileName } ?? SentinelStatus.path(
                for: config.map { try SentinelConfiguration.load(path: $0, environment: environment) }
                    ?? SentinelConfiguration.parse(yaml: "", environment: environment))
        } catch {
            StandardError.line("bikebeacon status: \(error)")
            throw ExitCode(2)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            StandardError.line("bikebeacon status: no status at \(path); is a sentinel running with this state directory?")
            throw ExitCode.failure
        }
        guard let status = try? JSONDecoder().decode(SentinelStatus.self, from: data) else {
            StandardError.line("bikebeacon status: \(path) is not a sentinel status file")
            throw ExitCode.failure
        }
        print(json ? String(decoding: data, as: UTF8.self) : status.report)
        if let age = status.secondsSinceUpdate(now: Date().timeIntervalSince1970), age > maxAge {
            StandardError.line("bikebeacon status: the sentinel has not updated its status since \(status.updatedAt): it is stopped or hung")
            throw ExitCode.failure
        }
    }
}
