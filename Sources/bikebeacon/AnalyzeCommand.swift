import Analysis
import Console
import Durable
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Run a recorded RSSI trace through the proximity estimator and region monitor.",
        discussion: """
        FILE is a CSV with the header `time,rssi` (seconds, dBm), one reading of one beacon per \
        line, sorted by time. Prints CSV `time,rssi,filtered_rssi,distance_m,zone,present`, one \
        row per input row in order: zone is immediate|near|far|unknown; present is 1 while the \
        region monitor (default settings, no required zone) has the beacon inside. A malformed \
        file is refused as a whole, naming the first bad line, and nothing is printed.
        """
    )

    @Argument(help: "The trace CSV (header time,rssi).")
    var file: String

    @Option(parsing: .unconditional, help: "The beacon's measured power: RSSI at 1 m, dBm (e.g. -59).")
    var measuredPower: Double

    @Option(help: "Log-distance path-loss exponent: 2 in free space, up to ~4 indoors.")
    var pathLossExponent: Double = ProximityConfiguration().pathLossExponent

    func validate() throws {
        guard measuredPower.isFinite, (-127...0).contains(measuredPower) else {
            throw ValidationError("--measured-power must be between -127 and 0 dBm (the RSSI at 1 m), got \(measuredPower)")
        }
        guard pathLossExponent.isFinite, pathLossExponent > 0 else {
            throw ValidationError("--path-loss-exponent must be a positive number (2 in free space), got \(pathLossExponent)")
        }
    }

    func run() throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw AnalyzeFailure(message: "cannot read \(file): \(IOErrorText.describe(error))")
        }
        let readings: [TraceReading]
        do {
            readings = try RSSITrace.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw AnalyzeFailure(message: "\(file): \(error.description); nothing was analysed")
        }
        var proximity = ProximityConfiguration()
        proximity.pathLossExponent = pathLossExponent
        var output = TraceAnalysis.csvHeader + "\n"
        for row in TraceAnalysis.run(readings, measuredPower: measuredPower, proximity: proximity) {
            output += TraceAnalysis.csvLine(row) + "\n"
        }
        Terminal.write(output)
    }
}

/// A refused input file: printed as `Error: <message>`, exit status 1, without the usage text.
private struct AnalyzeFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
