#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The philotuxo track dataset (`rssi/philotuxo/trk_with_distance.csv`): one beacon carried
/// past 12 fixed sensors, every RSSI row annotated with the true beacon–sensor distance.
public enum PhilotuxoTracks {
    public struct Sample: Equatable, Sendable {
        public var time: Double
        public var rssi: Double
        /// Ground-truth 3-D distance beacon–sensor, metres.
        public var distance: Double

        public init(time: Double, rssi: Double, distance: Double) {
            self.time = time
            self.rssi = rssi
            self.distance = distance
        }
    }

    /// What one sensor heard during one track, in time order.
    public struct Stream: Sendable {
        public var track: String
        public var sensor: String
        public var samples: [Sample]
    }

    public struct FormatError: Error, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "trk_with_distance.csv line \(line): \(message)" }
    }

    public static let fileName = "trk_with_distance.csv"

    /// Reads `philotuxo/trk_with_distance.csv` under `dataDirectory` (e.g. ../shared/data/rssi).
    public static func load(dataDirectory: URL) throws -> [Stream] {
        let url = dataDirectory.appendingPathComponent("philotuxo").appendingPathComponent(fileName)
        let data = try Data(contentsOf: url)
        return try parse(String(decoding: data, as: UTF8.self))
    }

    /// Splits the CSV into (track, sensor) streams, in order of first appearance.
    public static func parse(_ text: String) throws(FormatError) -> [Stream] {
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).makeIterator()
        guard let header = lines.next() else { throw FormatError(line: 1, message: "empty file") }
        let names = header.split(separator: ",").map(String.init)
        func column(_ name: String) throws(FormatError) -> Int {
            guard let index = names.firstIndex(of: name) else { throw FormatError(line: 1, message: "no column \(name)") }
            return index
        }
        let track = try column("track"), time = try column("timestamp"), sensor = try column("sensor_alias")
        let rssi = try column("rssi_dbm"), distance = try column("dist3d_m")
        let needed = max(track, time, sensor, rssi, distance) + 1

        var streams: [Stream] = []
        var index: [String: Int] = [:]
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= needed,
                  let t = Double(fields[time]), let r = Double(fields[rssi]), let d = Double(fields[distance])
            else { throw FormatError(line: lineNumber, message: "expected numbers in timestamp, rssi_dbm, dist3d_m") }
            let key = "\(fields[track])/\(fields[sensor])"
            let position = index[key] ?? {
                streams.append(Stream(track: String(fields[track]), sensor: String(fields[sensor]), samples: []))
                index[key] = streams.count - 1
                return streams.count - 1
            }()
            streams[position].samples.append(Sample(time: t, rssi: r, distance: d))
        }
        for i in streams.indices { streams[i].samples.sort { $0.time < $1.time } }
        return streams
    }
}
