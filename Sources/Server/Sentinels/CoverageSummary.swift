import BikebeaconAPI

/// A bike's coverage (`BikeCoverage`) in one paragraph, for the theft report: the words the
/// dashboard's bike page uses (`coverageText` in trail.js), with times in UTC as the report
/// gives every time. It can name only what `CoverageStore` lists, which never holds a home sentinel. Pure.
enum CoverageSummary {
    static func text(_ coverage: BikeCoverage) -> String {
        guard coverage.place != nil else {
            return "Coverage: no sentinel has heard this bike at a known place yet, so there is no place to say who listens around."
        }
        let radius = coverage.radiusMetres >= 1000 ? "\(Self.number(Double(coverage.radiusMetres) / 1000)) km" : "\(coverage.radiusMetres) m"
        let count = coverage.sentinels.count
        let unnamed = coverage.unnamed > 0
            ? " \(coverage.unnamed) more not on the coverage map (\(Self.listening(coverage.unnamedListening, of: coverage.unnamed)))." : ""
        guard count > 0 else {
            guard coverage.unnamed > 0 else { return "No public sentinel within \(radius) of the last place: not being heard there says little." }
            return "Within \(radius) of the last place: no sentinel on the coverage map;" + unnamed
        }
        var sentences = ["Within \(radius) of the last place: \(count) public sentinel\(count == 1 ? "" : "s"), \(Self.listening(coverage.listening, of: count)) now."
            + unnamed]
        for sentinel in coverage.sentinels where !sentinel.notListening.isEmpty {
            sentences.append("\(sentinel.name): not listening \(sentinel.notListening.map(gap).joined(separator: ", ")).")
        }
        if coverage.missingSince != nil, sentences.count == 1 { sentences.append("All of them listened while the bike was missing.") }
        return sentences.joined(separator: " ")
    }

    /// "listening" for one, "2 of them listening" for several.
    static func listening(_ listening: Int, of count: Int) -> String {
        count == 1 ? (listening > 0 ? "listening" : "not listening")
            : "\(listening == 0 ? "none" : listening == count ? "all" : "\(listening)") of them listening"
    }

    /// "2026-11-21 21:05–23:40", the end's date only when it is another day; "since …" while it lasts.
    static func gap(_ gap: CoverageGap) -> String {
        let from = minute(gap.from)
        guard let until = gap.until else { return "since \(from.date) \(from.time)" }
        let end = minute(until)
        return "\(from.date) \(from.time)–\(end.date == from.date ? end.time : "\(end.date) \(end.time)")"
    }

    /// The date and the minute of an RFC 3339 time in UTC (as `Timestamp.format` writes it); the text as it is otherwise.
    private static func minute(_ text: String) -> (date: String, time: String) {
        guard let milliseconds = Timestamp.parse(text) else { return (text, "") }
        let utc = Timestamp.format(milliseconds: milliseconds)
        return (String(utc.prefix(10)), String(utc.dropFirst(11).prefix(5)))
    }

    /// 1 as "1", 1.5 as "1.5".
    private static func number(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))" : "\(value)"
    }
}
