#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Locating

/// The philotuxo tracks with positions (`rssi/philotuxo/trk_with_distance.csv`): each reading
/// with the receiver that made it and the beacon's true place, and each receiver's place.
public struct PhilotuxoPositions: Sendable {
    public struct Sensor: Sendable, Equatable {
        public var id: String
        public var x: Double
        public var y: Double
        public var z: Double
    }

    /// One reading and where the beacon truly was.
    public struct Row: Sendable {
        public var reading: Reading
        public var truth: PlanePoint
        public var truthHeight: Double
    }

    public struct Track: Sendable {
        public var name: String
        /// In time order.
        public var rows: [Row]
    }

    public var sensors: [Sensor]
    public var tracks: [Track]

    public init(sensors: [Sensor], tracks: [Track]) {
        self.sensors = sensors
        self.tracks = tracks
    }

    public static func load(dataDirectory: URL) throws -> PhilotuxoPositions {
        let url = dataDirectory.appendingPathComponent("philotuxo").appendingPathComponent(PhilotuxoTracks.fileName)
        return try parse(String(decoding: try Data(contentsOf: url), as: UTF8.self))
    }

    /// Tracks in order of first appearance; sensors sorted by id.
    public static func parse(_ text: String) throws(PhilotuxoTracks.FormatError) -> PhilotuxoPositions {
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).makeIterator()
        guard let header = lines.next() else { throw .init(line: 1, message: "empty file") }
        let names = header.split(separator: ",").map(String.init)
        func column(_ name: String) throws(PhilotuxoTracks.FormatError) -> Int {
            guard let index = names.firstIndex(of: name) else { throw .init(line: 1, message: "no column \(name)") }
            return index
        }
        let numeric = try ["timestamp", "rssi_dbm", "beacon_x_m", "beacon_y_m", "beacon_z_m", "sensor_x_m", "sensor_y_m", "sensor_z_m"]
            .map { (name: String) throws(PhilotuxoTracks.FormatError) -> Int in try column(name) }
        let track = try column("track"), sensor = try column("sensor_alias")
        let needed = (numeric + [track, sensor]).max().map { $0 + 1 } ?? 0
        var sensors: [String: Sensor] = [:]
        var tracks: [Track] = []
        var trackIndex: [String: Int] = [:]
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= needed else { throw .init(line: lineNumber, message: "expected \(needed) fields") }
            let values = numeric.map { Double(fields[$0]) }
            guard values.allSatisfy({ $0?.isFinite == true }) else { throw .init(line: lineNumber, message: "expected numbers") }
            let v = values.map { $0 ?? .nan }
            let id = String(fields[sensor]), name = String(fields[track])
            sensors[id] = Sensor(id: id, x: v[5], y: v[6], z: v[7])
            let position = trackIndex[name] ?? {
                tracks.append(Track(name: name, rows: []))
                trackIndex[name] = tracks.count - 1
                return tracks.count - 1
            }()
            tracks[position].rows.append(Row(reading: Reading(time: v[0], receiver: id, rssi: v[1]),
                                             truth: PlanePoint(x: v[2], y: v[3]), truthHeight: v[4]))
        }
        for i in tracks.indices { tracks[i].rows.sort { $0.reading.time < $1.reading.time } }
        return PhilotuxoPositions(sensors: sensors.values.sorted { $0.id < $1.id }, tracks: tracks)
    }
}
