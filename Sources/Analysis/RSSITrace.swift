/// One row of a `time,rssi` trace.
public struct TraceReading: Equatable, Sendable {
    public var time: Double
    public var rssi: Double
    /// The fields as written, echoed unchanged in the analysis output.
    public var timeText: Substring
    public var rssiText: Substring
    /// 1-based line number in the file, for messages.
    public var line: Int
}

/// Why a trace file was refused. Every case names the line so the operator can fix it.
public enum TraceError: Error, Equatable, CustomStringConvertible {
    case empty
    case header(line: Int, found: String)
    case fieldCount(line: Int, count: Int)
    case notANumber(line: Int, column: String, text: String)
    case timeWentBack(line: Int, time: Double, previous: Double)

    public var description: String {
        switch self {
        case .empty:
            "the file is empty: expected a header line `time,rssi` then one reading per line"
        case let .header(line, found):
            "line \(line): expected the header `time,rssi`, found `\(found.prefix(80))`"
        case let .fieldCount(line, count):
            "line \(line): expected 2 comma-separated fields (time,rssi), found \(count)"
        case let .notANumber(line, column, text):
            "line \(line): \(column) `\(text.prefix(40))` is not a finite number"
        case let .timeWentBack(line, time, previous):
            "line \(line): time \(time) is earlier than the previous row's \(previous); sort the file by time"
        }
    }
}

/// Parses the `time,rssi` CSV that `bikebeacon analyze` reads (seconds, dBm).
///
/// The whole file is refused at the first bad row rather than skipping it: the output
/// promises one row per input row, in order, and a silently dropped reading would shift the
/// monitor's timing. Blank lines (and a trailing newline) are not rows and are ignored; CRLF
/// line ends and spaces around fields are accepted; equal consecutive times are allowed.
public enum RSSITrace {
    public static func parse(_ text: String) throws(TraceError) -> [TraceReading] {
        var readings: [TraceReading] = []
        var sawHeader = false
        var lineNumber = 0
        // By Character: "\r\n" is a single newline Character in Swift.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
            guard sawHeader else {
                guard fields.count == 2, fields[0].lowercased() == "time", fields[1].lowercased() == "rssi" else {
                    throw .header(line: lineNumber, found: String(line))
                }
                sawHeader = true
                continue
            }
            guard fields.count == 2 else { throw .fieldCount(line: lineNumber, count: fields.count) }
            guard let time = Double(fields[0]), time.isFinite else {
                throw .notANumber(line: lineNumber, column: "time", text: String(fields[0]))
            }
            guard let rssi = Double(fields[1]), rssi.isFinite else {
                throw .notANumber(line: lineNumber, column: "rssi", text: String(fields[1]))
            }
            if let previous = readings.last, time < previous.time {
                throw .timeWentBack(line: lineNumber, time: time, previous: previous.time)
            }
            readings.append(TraceReading(time: time, rssi: rssi, timeText: fields[0], rssiText: fields[1], line: lineNumber))
        }
        guard sawHeader else { throw .empty }
        return readings
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
