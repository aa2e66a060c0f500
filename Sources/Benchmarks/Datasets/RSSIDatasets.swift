import Foundation

/// Readings taken at one constant, known distance: the unit the proximity bench scores.
public struct RSSIStream: Sendable {
    /// Seconds, non-decreasing.
    public var times: [Double]
    /// dBm, one per time.
    public var rssi: [Double]
    /// Ground-truth distance, metres.
    public var distance: Double
}

/// All streams one receiver logged in one file, with its measured power.
public struct RSSIReceiver: Sendable {
    public var name: String
    /// Median RSSI of the stream(s) nearest 1 m, moved to 1 m with n = 2 when that stream is not
    /// at 1 m (only herald 20210308 lacks a 1 m stream: its nearest is 2 m), dBm.
    public var measuredPower: Double
    public var streams: [RSSIStream]
}

public struct RSSIDataset: Sendable {
    public var name: String
    public var receivers: [RSSIReceiver]
    /// Rows that could not be parsed and were skipped.
    public var skippedRows: Int
    /// Streams whose clock was too coarse and were re-timed at `retimeInterval`.
    public var retimedStreams: Int
    /// Median reading interval of the streams with a usable clock, seconds.
    public var retimeInterval: Double
}

public enum RSSIDatasetError: Error, CustomStringConvertible {
    case missingDirectory(String)
    case noFiles(String)
    case unreadable(String)
    case unexpectedHeader(file: String, found: String, expected: String)
    case unexpectedName(file: String, expected: String)

    public var description: String {
        switch self {
        case .missingDirectory(let path):
            "no RSSI data at \(path): pass --data DIR pointing at the folder holding herald/ and pcng/ (the shared data's rssi folder)"
        case .noFiles(let path):
            "no data files in \(path): expected the CSV files its SOURCE.txt lists (herald/20*.csv, pcng/RSS_human*.csv, ...)"
        case .unreadable(let path):
            "cannot read \(path): check that it exists and is readable"
        case .unexpectedHeader(let file, let found, let expected):
            "\(file) has header \"\(found)\", expected \"\(expected)\": is this the right folder?"
        case .unexpectedName(let file, let expected):
            "\(file): the name says where it was measured, expected \(expected): is this the right folder?"
        }
    }
}

/// Loads the herald and pcng constant-distance RSSI sets (see each folder's SOURCE.txt).
public enum RSSIDatasets {
    /// herald: `time,rssi,distance`; one receiver per file; time "YYYY-MM-DD HH:MM:SS" (1 s
    /// resolution, several rows may share a second); distance in centimetres.
    public static func herald(directory: String) throws -> RSSIDataset {
        let folder = directory + "/herald"
        var receivers: [(String, [Row])] = []
        var skipped = 0
        for file in try csvFiles(in: folder, prefix: "20") {
            let lines = try readLines(folder + "/" + file, expectedHeader: "time,rssi,distance")
            var rows: [Row] = []
            for line in lines {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count == 3, let time = parseDateTime(fields[0]),
                      let rssi = Double(fields[1]), let centimetres = Double(fields[2]) else { skipped += 1; continue }
                rows.append(Row(time: time, rssi: rssi, distance: centimetres / 100))
            }
            receivers.append((String(file.dropLast(4)), rows))
        }
        return assemble(name: "herald", receivers: receivers, skipped: skipped)
    }

    /// pcng: `device,elapsed,rss,mRSS10,mRSS100,dist,label`; one receiver per (file, device);
    /// elapsed in seconds, dist in centimetres.
    public static func pcng(directory: String) throws -> RSSIDataset {
        let folder = directory + "/pcng"
        var receivers: [(String, [Row])] = []
        var skipped = 0
        for file in try csvFiles(in: folder, prefix: "RSS_human") {
            let lines = try readLines(folder + "/" + file, expectedHeader: "device,elapsed,rss,mRSS10,mRSS100,dist,label")
            var devices: [String] = []
            var rowsByDevice: [String: [Row]] = [:]
            for line in lines {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count == 7, let time = Double(fields[1]), let rssi = Double(fields[2]),
                      let centimetres = Double(fields[5]) else { skipped += 1; continue }
                let device = String(fields[0])
                if rowsByDevice[device] == nil { devices.append(device) }
                rowsByDevice[device, default: []].append(Row(time: time, rssi: rssi, distance: centimetres / 100))
            }
            for device in devices {
                receivers.append((String(file.dropLast(4)) + ":" + device, rowsByDevice[device] ?? []))
            }
        }
        return assemble(name: "pcng", receivers: receivers, skipped: skipped)
    }

    struct Row {
        var time: Double
        var rssi: Double
        var distance: Double
    }

    /// Splits each receiver into streams, re-times streams with an unusable clock and
    /// calibrates each receiver's measured power.
    ///
    /// A clock is unusable when a stream has fewer distinct timestamps than a tenth of its rows:
    /// pcng's HTC One M9 in the BB and PP files stamps hundreds of rows with the same value
    /// (quantised to 100 s). Those rows are spread from the stream's first stamp at the dataset's
    /// typical interval (the median over usable streams of their median gap): the phones scanned
    /// at a steady rate, and this lets every time-based method see the real reading rate.
    /// herald's 1 s stamps (1–3 rows per second) are usable and kept as they are.
    static func assemble(name: String, receivers rows: [(String, [Row])], skipped: Int) -> RSSIDataset {
        let split = rows.map { name, rows in (name, streams(rows)) }
        let intervals = split.flatMap(\.1).filter(hasUsableClock).compactMap(typicalInterval)
        let interval = intervals.isEmpty ? 1 : median(intervals)
        var retimed = 0
        var receivers: [RSSIReceiver] = []
        for (receiverName, streams) in split where !streams.isEmpty {
            let fixed = streams.map { stream -> RSSIStream in
                guard !hasUsableClock(stream), let start = stream.times.first else { return stream }
                retimed += 1
                var copy = stream
                copy.times = stream.times.indices.map { start + Double($0) * interval }
                return copy
            }
            receivers.append(RSSIReceiver(name: receiverName, measuredPower: measuredPower(fixed), streams: fixed))
        }
        return RSSIDataset(name: name, receivers: receivers, skippedRows: skipped, retimedStreams: retimed, retimeInterval: interval)
    }

    /// Maximal runs of rows with the same distance and a clock that does not step back (one pcng
    /// log, PP gryphonelab, steps back 186 s inside a run: the two sides are separate streams).
    static func streams(_ rows: [Row]) -> [RSSIStream] {
        var result: [RSSIStream] = []
        for row in rows {
            if let last = result.last, last.distance == row.distance, let lastTime = last.times.last, row.time >= lastTime {
                result[result.count - 1].times.append(row.time)
                result[result.count - 1].rssi.append(row.rssi)
            } else {
                result.append(RSSIStream(times: [row.time], rssi: [row.rssi], distance: row.distance))
            }
        }
        return result
    }

    /// Median gap between consecutive distinct timestamps; robust to the pauses some streams have.
    static func typicalInterval(_ stream: RSSIStream) -> Double? {
        let gaps = zip(stream.times.dropFirst(), stream.times).map { $0 - $1 }.filter { $0 > 0 }
        return gaps.isEmpty ? nil : median(gaps)
    }

    static func hasUsableClock(_ stream: RSSIStream) -> Bool {
        var distinct = 1
        for i in stream.times.indices.dropFirst() where stream.times[i] != stream.times[i - 1] { distinct += 1 }
        return distinct * 10 >= stream.times.count
    }

    /// Median RSSI of the streams nearest 1 m, corrected to 1 m with n = 2 (a no-op at 1 m).
    static func measuredPower(_ streams: [RSSIStream]) -> Double {
        let offsets = streams.map { abs($0.distance - 1) }
        guard let best = offsets.min() else { return 0 }
        let nearest = streams.filter { abs($0.distance - 1) == best }
        let distance = nearest[0].distance
        let correction = distance > 0 ? 20 * log10(distance) : 0
        return median(nearest.flatMap(\.rssi)) + correction
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func csvFiles(in folder: String, prefix: String, suffix: String = ".csv") throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw RSSIDatasetError.missingDirectory(folder)
        }
        let files = names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.sorted()
        guard !files.isEmpty else { throw RSSIDatasetError.noFiles(folder) }
        return files
    }

    /// The data lines of a CSV file after checking its header.
    static func readLines(_ path: String, expectedHeader: String) throws -> [Substring] {
        let (fields, lines) = try readLines(path)
        let header = fields.joined(separator: ",")
        guard header == expectedHeader else {
            throw RSSIDatasetError.unexpectedHeader(file: path, found: header, expected: expectedHeader)
        }
        return lines
    }

    /// A CSV file's header fields and its data lines.
    static func readLines(_ path: String) throws -> (header: [String], lines: [Substring]) {
        guard let data = FileManager.default.contents(atPath: path) else { throw RSSIDatasetError.unreadable(path) }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(whereSeparator: \.isNewline)
        let header = lines.isEmpty ? "" : String(lines.removeFirst()).trimmingCharacters(in: .whitespaces)
        return (header.split(separator: ",", omittingEmptySubsequences: false).map(String.init), lines)
    }

    /// "YYYY-MM-DD HH:MM:SS" as seconds since 1970 (UTC; only differences matter here).
    static func parseDateTime(_ text: Substring) -> Double? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" })
        guard parts.count == 6 else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == 6 else { return nil }
        let (year, month, day) = (numbers[0], numbers[1], numbers[2])
        guard (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(numbers[3]), (0...59).contains(numbers[4]), (0...60).contains(numbers[5]) else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + numbers[3] * 3_600 + numbers[4] * 60 + numbers[5])
    }
}
