import Beacon
import Proximity

/// A refused CSV line: which line and what is wrong with it.
public struct LocateCSVError: Error, Equatable, CustomStringConvertible {
    /// 1-based.
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}

/// The CSV files `bikebeacon locate` reads and writes. Columns are found by their header name, so
/// extra columns are ignored and order is free; blank lines are skipped; CRLF and spaces around
/// fields are accepted. A file is refused as a whole at its first bad line, but for a reading's
/// impossible RSSI, which is skipped and reported.
public enum LocateCSV {
    /// RECEIVERS.csv: `id,x_m,y_m,z_m` and optionally `rssi_1m,exponent` (an empty cell: not measured).
    /// z_m is checked where given but unused, so it may be empty: the locator works in the horizontal plane
    /// (philotuxo's heights with the tag's true one moved its median error by under 1 %; docs/benchmarks.md), and a
    /// site whose heights were never surveyed should not be refused for them.
    public static func receivers(_ text: String) throws(LocateCSVError) -> [Receiver] {
        var receivers: [Receiver] = []
        var seen: Set<String> = []
        let headerLine = try Rows.visit(text, required: ["id", "x_m", "y_m", "z_m"], optional: ["rssi_1m", "exponent"]) { row throws(LocateCSVError) in
            let id = row.text("id")
            guard !id.isEmpty else { throw LocateCSVError(line: row.line, message: "id is empty") }
            guard seen.insert(id).inserted else { throw LocateCSVError(line: row.line, message: "receiver `\(id)` is listed twice") }
            let x = try row.number("x_m"), y = try row.number("y_m")
            for (name, value) in [("x_m", x), ("y_m", y)] where abs(value) > SiteFrame.reach {
                throw LocateCSVError(line: row.line, message: "\(name) \(value) is beyond \(Int(SiteFrame.reach)) m; give places in metres on the site's own grid")
            }
            _ = try row.optionalNumber("z_m")
            let power = try row.optionalNumber("rssi_1m"), exponent = try row.optionalNumber("exponent")
            let calibration: ReceiverCalibration
            switch (power, exponent) {
            case (nil, nil): calibration = .none
            case (let power?, nil): calibration = .onePoint(rssiAt1m: power)
            case let (power?, exponent?): calibration = .twoPoint(rssiAt1m: power, exponent: exponent)
            case (nil, _?): throw LocateCSVError(line: row.line, message: "exponent given without rssi_1m; give the RSSI at 1 m too")
            }
            if let power, !ProximityEstimator.isPlausible(rssi: power) {
                throw LocateCSVError(line: row.line, message: "rssi_1m \(power) dBm is not a real signal strength (between -127 and 0 dBm)")
            }
            if let exponent, !ReceiverCalibration.plausibleExponents.contains(exponent) {
                throw LocateCSVError(line: row.line, message: "exponent \(exponent) is not a path-loss exponent (\(ReceiverCalibration.plausibleExponents.lowerBound) to \(ReceiverCalibration.plausibleExponents.upperBound); 2 in free space, about 4 indoors)")
            }
            receivers.append(Receiver(id: id, position: PlanePoint(x: x, y: y), calibration: calibration))
        }
        guard !receivers.isEmpty else { throw LocateCSVError(line: headerLine, message: "no receivers after the header") }
        return receivers
    }

    /// READINGS.csv as read: the readings with their line numbers, and the lines skipped.
    public struct Readings: Sendable {
        public var rows: [(reading: Reading, line: Int)]
        /// Readings whose RSSI no radio reports (0 dBm and above, below -127): a receiver's glitch,
        /// as philotuxo's own straight_05 has one (+42 dBm). One bad reading must not cost a track.
        public var skipped: [LocateCSVError]

        /// Seconds between one receiver's consecutive readings, the median receiver's median; nil when no
        /// receiver has two. Far above a radio's cadence (a BLE scanner hears a tag several times a
        /// second to every few seconds), it says time_s is not in seconds.
        public var typicalGap: Double? {
            var times: [String: [Double]] = [:]
            for row in rows { times[row.reading.receiver, default: []].append(row.reading.time) }
            let gaps = times.values.compactMap { times -> Double? in
                guard times.count > 1 else { return nil }
                return RSSISummary.quantile(zip(times, times.dropFirst()).map { $1 - $0 }.sorted(), 0.5)
            }
            return gaps.isEmpty ? nil : RSSISummary.quantile(gaps.sorted(), 0.5)
        }
    }

    /// READINGS.csv: `time_s,receiver,rssi_dbm`, each receiver among `known`, returned in time order
    /// (stably: a file written receiver by receiver is as good as one written as heard; sorting a
    /// file is not looking ahead, as each fix still uses only readings up to its own time). A file
    /// that is not readings (a missing receiver, a field that is not a number, NaN) is refused at
    /// its first bad line.
    public static func readings(_ text: String, known: Set<String>) throws(LocateCSVError) -> Readings {
        var result = Readings(rows: [], skipped: [])
        // One reading a line: reserved at once, a million rows are not copied as the array doubles.
        result.rows.reserveCapacity(text.utf8.count { $0 == UInt8(ascii: "\n") } + 1)
        _ = try Rows.visit(text, required: ["time_s", "receiver", "rssi_dbm"], optional: []) { row throws(LocateCSVError) in
            let time = try row.number("time_s"), receiver = row.text("receiver"), rssi = try row.number("rssi_dbm")
            guard known.contains(receiver) else {
                throw LocateCSVError(line: row.line, message: "receiver `\(receiver)` is not in the receivers file; add it with its place")
            }
            guard ProximityEstimator.isPlausible(rssi: rssi) else {
                result.skipped.append(LocateCSVError(line: row.line, message: "rssi_dbm \(rssi) is not a real signal strength (between -127 and 0 dBm); reading skipped"))
                return
            }
            result.rows.append((Reading(time: time, receiver: receiver, rssi: rssi), row.line))
        }
        let inOrder = zip(result.rows, result.rows.dropFirst()).allSatisfy { $0.reading.time <= $1.reading.time }
        if !inOrder {
            // In place, by time and then line: as stable as a sort of copies, without the copies.
            result.rows.sort { ($0.reading.time, $0.line) < ($1.reading.time, $1.line) }
        }
        return result
    }

    /// TRUTH.csv: `time_s,x_m,y_m`, or a READINGS.csv's own `truth_x_m,truth_y_m` beside its `time_s` (as
    /// `bikebeacon-bench locate --write-csv` writes philotuxo's), so one file can be both. A row with both
    /// places empty says nothing (a reading taken where the truth was not surveyed) and is left out.
    public static func truth(_ text: String) throws(LocateCSVError) -> TruthTrack {
        let names = Rows.headerNames(text)
        let (x, y) = names.contains("truth_x_m") && names.contains("truth_y_m") ? ("truth_x_m", "truth_y_m") : ("x_m", "y_m")
        var samples: [TruthTrack.Sample] = []
        let headerLine = try Rows.visit(text, required: ["time_s", x, y], optional: []) { row throws(LocateCSVError) in
            let time = try row.number("time_s")
            guard let east = try row.optionalNumber(x), let north = try row.optionalNumber(y) else {
                guard row.text(x).isEmpty && row.text(y).isEmpty else { throw LocateCSVError(line: row.line, message: "\(x) and \(y) are given one without the other") }
                return
            }
            for (name, value) in [(x, east), (y, north)] where abs(value) > SiteFrame.reach {
                throw LocateCSVError(line: row.line, message: "\(name) \(value) is beyond \(Int(SiteFrame.reach)) m; give places in metres on the receivers' grid")
            }
            samples.append(TruthTrack.Sample(time: time, point: PlanePoint(x: east, y: north)))
        }
        guard !samples.isEmpty else { throw LocateCSVError(line: headerLine, message: "no places after the header") }
        return TruthTrack(samples)
    }

    public static let fixHeader = "time_s,x_m,y_m,radius50_m,radius90_m,receivers"

    /// One output line: metres to the centimetre.
    public static func line(_ fix: Fix) -> String {
        [DecimalText.fixed(fix.time, 3), DecimalText.fixed(fix.point.x, 2), DecimalText.fixed(fix.point.y, 2),
         DecimalText.fixed(fix.radius50, 2), DecimalText.fixed(fix.radius90, 2), String(fix.receivers)].joined(separator: ",")
    }
}

/// A CSV table read by header names, one line at a time: a file of a million readings is neither
/// split into a million lines nor held as a million rows of fields (`bikebeacon locate` on 1 009 134
/// readings peaked at 339 MB that way, 99 MB this way and with `readings` sorting in place).
enum Rows {
    struct Row {
        let line: Int
        let fields: [Substring]
        let columns: [String: Int]

        func text(_ name: String) -> String { columns[name].map { String(fields[$0]) } ?? "" }

        func number(_ name: String) throws(LocateCSVError) -> Double {
            guard let value = try optionalNumber(name) else { throw LocateCSVError(line: line, message: "\(name) is empty") }
            return value
        }

        /// Nil for a missing column or an empty cell; an error for anything but a finite number.
        func optionalNumber(_ name: String) throws(LocateCSVError) -> Double? {
            let text = self.text(name)
            guard !text.isEmpty else { return nil }
            guard let value = Double(text), value.isFinite else {
                throw LocateCSVError(line: line, message: "\(name) `\(text.prefix(40))` is not a finite number")
            }
            return value
        }
    }

    /// Calls `body` with each row after the header, in order; returns the header's line number.
    static func visit(_ text: String, required: [String], optional: [String],
                      _ body: (Row) throws(LocateCSVError) -> Void) throws(LocateCSVError) -> Int {
        var columns: [String: Int]?
        var headerLine = 1, count = 0
        var rest = content(text), index = -1
        while !rest.isEmpty {
            let end = rest.firstIndex(where: \.isNewline) ?? rest.endIndex
            let raw = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            index += 1
            guard let fields = fields(raw) else { continue }
            guard let known = columns else {
                let names = fields.map { $0.lowercased() }
                if let missing = required.first(where: { !names.contains($0) }) {
                    let separator: String? = if fields.count > 1 { nil } else if raw.contains(";") { "`;`" } else if raw.contains("\t") { "tabs" } else { nil }
                    let hint = separator.map { "; its fields are separated by \($0), not commas" } ?? ""
                    throw LocateCSVError(line: index + 1,
                                         message: "the header has no column `\(missing)`; expected \((required + optional).joined(separator: ","))\(hint)")
                }
                columns = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
                headerLine = index + 1
                count = names.count
                continue
            }
            guard fields.count == count else {
                throw LocateCSVError(line: index + 1, message: "expected \(count) comma-separated fields as in the header, found \(fields.count)")
            }
            try body(Row(line: index + 1, fields: fields, columns: known))
        }
        guard columns != nil else { throw LocateCSVError(line: 1, message: "the file is empty: expected a header line \(required.joined(separator: ","))") }
        return headerLine
    }

    /// The header's column names, lowercased, as `visit` reads them: for a file whose columns decide what is required.
    static func headerNames(_ text: String) -> [String] {
        content(text).split(whereSeparator: \.isNewline).lazy.compactMap(fields).first?.map { $0.lowercased() } ?? []
    }

    /// `text` without the byte-order mark a spreadsheet's export starts with, which would otherwise be part of the
    /// first column's name.
    static func content(_ text: String) -> Substring {
        text.first == "\u{FEFF}" ? text.dropFirst() : Substring(text)
    }

    /// A line's fields, trimmed; nil when every one is empty (a blank line, or commas alone), which is skipped.
    static func fields(_ line: Substring) -> [Substring]? {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
        return fields.allSatisfy(\.isEmpty) ? nil : fields
    }

    /// Without surrounding blanks, and without the double quotes a spreadsheet puts around a field.
    static func trimmed(_ field: Substring) -> Substring {
        var field = field
        while let first = field.first, first == " " || first == "\t" { field.removeFirst() }
        while let last = field.last, last == " " || last == "\t" { field.removeLast() }
        if field.count >= 2, field.first == "\"", field.last == "\"" { field = field.dropFirst().dropLast() }
        return field
    }
}
