import Foundation

/// The constant-distance RSSI sets beyond herald and pcng (see each folder's SOURCE.txt): other
/// receivers, tags and rooms, so a configuration is chosen on more than two setups.
///
/// They are fetched data, not part of the repository: each is looked up in the shared data folder
/// first, then under `$BIKEBEACON_EXTRA_RSSI`, and a set found in neither is reported as absent.
public enum ExtraRSSIDatasets {
    /// A set the bench knows how to read.
    public struct Source: Sendable {
        public var name: String
        /// What it is, for the line that says it is absent.
        public var summary: String
        public var load: @Sendable (String) throws -> RSSIDataset
    }

    public static let sources: [Source] = [.airtagNRF52, .lanfer, .spachos]

    /// The environment variable naming a folder that holds extra sets by name.
    public static let environmentVariable = "BIKEBEACON_EXTRA_RSSI"

    /// Each source's folder: `shared/<name>` when it exists, else `extra/<name>`, else nil (absent).
    public static func locate(_ source: Source, shared: String, extra: String?) -> String? {
        var isDirectory: ObjCBool = false
        for root in [shared] + (extra.map { [$0] } ?? []) {
            let folder = root + "/" + source.name
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue { return root }
        }
        return nil
    }

    /// AirTags and an nRF52840 DK: `RSSI-Value,MAC-Address,Timestamp,Distance` (Experiment 5 adds a
    /// pandas index first and `indoor` last); distance in metres, timestamps at 1 s. One receiver
    /// per (experiment, tag): each pair has its own 1 m level, as a bike tag and a sentinel do.
    public static func airtagNRF52(directory: String) throws -> RSSIDataset {
        let folder = directory + "/airtag-nrf52"
        var receivers: [(String, [RSSIDatasets.Row])] = []
        var skipped = 0
        for file in try RSSIDatasets.csvFiles(in: folder, prefix: "Experiment_") {
            let path = folder + "/" + file
            let (header, lines) = try RSSIDatasets.readLines(path)
            guard let rssiColumn = header.firstIndex(of: "RSSI-Value"), let macColumn = header.firstIndex(of: "MAC-Address"),
                  let timeColumn = header.firstIndex(of: "Timestamp"), let distanceColumn = header.firstIndex(of: "Distance") else {
                throw RSSIDatasetError.unexpectedHeader(file: path, found: header.joined(separator: ","),
                                                        expected: "RSSI-Value,MAC-Address,Timestamp,Distance")
            }
            var tags: [String] = []
            var rowsByTag: [String: [RSSIDatasets.Row]] = [:]
            for line in lines {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count == header.count, let time = RSSIDatasets.parseDateTime(fields[timeColumn]),
                      let rssi = Double(fields[rssiColumn]), let metres = Double(fields[distanceColumn]) else { skipped += 1; continue }
                let tag = String(fields[macColumn])
                if rowsByTag[tag] == nil { tags.append(tag) }
                rowsByTag[tag, default: []].append(RSSIDatasets.Row(time: time, rssi: rssi, distance: metres))
            }
            for tag in tags {
                receivers.append((String(file.dropLast(4)) + ":" + tag, rowsByTag[tag] ?? []))
            }
        }
        return RSSIDatasets.assemble(name: "airtag-nrf52", receivers: receivers, skipped: skipped)
    }

    /// Raspberry Pi 4 receiver, one sender per file: `distance,rssiBLE,rssi24,freq24,rssi5,freq5,y`,
    /// distance in centimetres. The files carry no clock: rows are stamped one second apart, so
    /// the warm-up and flaps of this set count rows, not seconds (see its SOURCE.txt).
    public static func lanfer(directory: String) throws -> RSSIDataset {
        let folder = directory + "/lanfer"
        var receivers: [(String, [RSSIDatasets.Row])] = []
        var skipped = 0
        for file in try RSSIDatasets.csvFiles(in: folder, prefix: "") {
            let path = folder + "/" + file
            let lines = try RSSIDatasets.readLines(path, expectedHeader: "distance,rssiBLE,rssi24,freq24,rssi5,freq5,y")
            var rows: [RSSIDatasets.Row] = []
            for line in lines {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count == 7, let centimetres = Double(fields[0]), let rssi = Double(fields[1]) else { skipped += 1; continue }
                rows.append(RSSIDatasets.Row(time: Double(rows.count), rssi: rssi, distance: centimetres / 100))
            }
            receivers.append((String(file.dropLast(4)), rows))
        }
        return RSSIDatasets.assemble(name: "lanfer", receivers: receivers, skipped: skipped)
    }

    /// Gimbal Series 10 iBeacons A, B, C on a right triangle (A (0,0), B (d,0), C (d,d), d = 1, 3 or
    /// 5 m) heard by a Raspberry Pi at D1 (d/2,0), D2 (d/2,d/2) or D3 (2d/3,d/3): files
    /// `env<E>-<d>D<p>.txt` of lines `Node X: RSSI`. The distance is the receiver's position to the
    /// node's. No clock: each file's lines are stamped one second apart (see its SOURCE.txt). One
    /// receiver per (environment, node): each tag in each office has its own 1 m level.
    public static func spachos(directory: String) throws -> RSSIDataset {
        let folder = directory + "/spachos"
        let positions: [Character: (x: Double, y: Double)] = ["1": (0.5, 0), "2": (0.5, 0.5), "3": (2.0 / 3, 1.0 / 3)]
        let nodes: [Character: (x: Double, y: Double)] = ["A": (0, 0), "B": (1, 0), "C": (1, 1)]
        var rowsByReceiver: [String: [RSSIDatasets.Row]] = [:]
        var skipped = 0
        var fileStart = 0.0
        for file in try RSSIDatasets.csvFiles(in: folder, prefix: "env", suffix: ".txt") {
            // env1-3D2.txt: environment 1, d = 3 m, receiver at D2.
            let name = file.dropLast(4)
            let parts = name.split(separator: "-")
            guard parts.count == 2, parts[1].count == 3, let side = Double(String(parts[1].prefix(1))),
                  let position = parts[1].last.flatMap({ positions[$0] }) else {
                throw RSSIDatasetError.unexpectedName(file: folder + "/" + file, expected: "env<E>-<d>D<p>.txt, e.g. env1-3D2.txt")
            }
            let path = folder + "/" + file
            guard let data = FileManager.default.contents(atPath: path) else { throw RSSIDatasetError.unreadable(path) }
            for (index, line) in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).enumerated() {
                let fields = line.split(separator: ":")
                guard fields.count == 2, fields[0].hasPrefix("Node "), let node = fields[0].last.flatMap({ nodes[$0] }),
                      let rssi = Double(fields[1].trimmingCharacters(in: .whitespaces)) else { skipped += 1; continue }
                let metres = side * ((position.x - node.x) * (position.x - node.x) + (position.y - node.y) * (position.y - node.y)).squareRoot()
                let receiver = String(parts[0]) + ":" + String(fields[0].dropFirst(5))
                rowsByReceiver[receiver, default: []].append(RSSIDatasets.Row(time: fileStart + Double(index), rssi: rssi, distance: metres))
            }
            fileStart += 10_000
        }
        return RSSIDatasets.assemble(name: "spachos", receivers: rowsByReceiver.keys.sorted().map { ($0, rowsByReceiver[$0] ?? []) },
                                     skipped: skipped)
    }
}

extension ExtraRSSIDatasets.Source {
    public static let airtagNRF52 = Self(name: "airtag-nrf52", summary: "Apple AirTags heard by an nRF52840, 0-10 m, samuelfrnk/RSSIProximityML",
                                         load: { try ExtraRSSIDatasets.airtagNRF52(directory: $0) })
    public static let lanfer = Self(name: "lanfer", summary: "phones and a Raspberry Pi heard by a Raspberry Pi 4, 0.5-6 m, elanfer/multi-channel-paper-data",
                                    load: { try ExtraRSSIDatasets.lanfer(directory: $0) })
    public static let spachos = Self(name: "spachos", summary: "Gimbal Series 10 iBeacons heard by a Raspberry Pi, 0.5-5.6 m, two offices, pspachos/RSSI-Dataset",
                                     load: { try ExtraRSSIDatasets.spachos(directory: $0) })
    /// The two core sets, as sources too, for a bench that draws on them beside the extra ones.
    public static let pcng = Self(name: "pcng", summary: "two phones carried by two people standing apart, 0.2-5 m, pc-ng/rss_smartphone",
                                  load: { try RSSIDatasets.pcng(directory: $0) })
    public static let herald = Self(name: "herald", summary: "phones hearing each other on a cable-car rig, theheraldproject/herald-analysis",
                                    load: { try RSSIDatasets.herald(directory: $0) })
}
