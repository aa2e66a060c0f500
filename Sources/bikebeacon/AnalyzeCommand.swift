import Analysis
import Beacon
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

        Site calibration: each --calibration DISTANCE=RSSI adds a level measured at a known \
        distance to the measured power (at 1 m). Points at two or more distances fit both the \
        RSSI at 1 m and the path-loss exponent (two-point calibration, e.g. --measured-power -59 \
        --calibration 3=-71); points all at 1 m refine the RSSI at 1 m only.
        """
    )

    @Argument(help: "The trace CSV (header time,rssi).")
    var file: String

    @Option(parsing: .unconditional, help: "The beacon's measured power: RSSI at 1 m, dBm (e.g. -59).")
    var measuredPower: Double

    @Option(help: "Log-distance path-loss exponent: 2 in free space, up to ~4 indoors (default \(DecimalText.fixed(ProximityConfiguration().pathLossExponent, 1))).")
    var pathLossExponent: Double?

    @Option(parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A level measured on site: metres=dBm, e.g. 3=-71; repeatable.", valueName: "distance=rssi"))
    var calibration: [String] = []

    func validate() throws {
        guard measuredPower.isFinite, (-127...0).contains(measuredPower) else {
            throw ValidationError("--measured-power must be between -127 and 0 dBm (the RSSI at 1 m), got \(measuredPower)")
        }
        if let pathLossExponent, !(pathLossExponent.isFinite && pathLossExponent > 0) {
            throw ValidationError("--path-loss-exponent must be a positive number (2 in free space), got \(pathLossExponent)")
        }
        _ = try model()
    }

    /// Measured power and exponent: as given, or fitted to the calibration points with the measured power as the 1 m point.
    func model() throws -> (measuredPower: Double, exponent: Double) {
        let points: [CalibrationPoint]
        do {
            points = try calibration.map { text throws(CalibrationError) in try CalibrationPoint(parsing: text) }
        } catch {
            throw ValidationError("--calibration: \(error.description)")
        }
        let exponent = pathLossExponent ?? ProximityConfiguration().pathLossExponent
        if pathLossExponent != nil, points.contains(where: { $0.distance != 1 }) {
            throw ValidationError("--path-loss-exponent and a --calibration away from 1 m both set the exponent: give one of them")
        }
        do {
            return try SiteCalibration.fit([CalibrationPoint(distance: 1, rssi: measuredPower)] + points, exponent: exponent)
        } catch {
            throw ValidationError("--calibration: \(error.description)")
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
        let model = try model()
        var proximity = ProximityConfiguration()
        proximity.pathLossExponent = model.exponent
        var output = TraceAnalysis.csvHeader + "\n"
        for row in TraceAnalysis.run(readings, measuredPower: model.measuredPower, proximity: proximity) {
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
