import BikebeaconAPI

/// An owner's coverage view (`GET /v1/bikes/{id}/coverage`) in words, as the dashboard's bike page
/// says it (trail.js `coverageText`): how many public sentinels listen around the bike's last place,
/// and when they did not while it was missing, so "not heard" has a meaning. Clock times in UTC with
/// seconds (a terminal reader, and the demo's gaps last seconds). Pure.
public enum CoverageText {
    /// One sentence a line: the count, then one line per sentinel that was not listening.
    public static func lines(_ coverage: BikeCoverage) -> [String] {
        guard coverage.place != nil else {
            return ["No sentinel has heard this bike at a known place yet, so there is no place to say who listens around."]
        }
        let radius = distance(coverage.radiusMetres)
        let count = coverage.sentinels.count
        // Sentinels whose hosts did not opt in to the coverage map are only counted, never named.
        let unnamed = coverage.unnamed > 0
            ? ["\(coverage.unnamed) more not on the coverage map (\(listening(coverage.unnamedListening, of: coverage.unnamed)))."] : []
        guard count > 0 else {
            guard unnamed.isEmpty else { return ["Within \(radius) of the last place: no sentinel on the coverage map."] + unnamed }
            return ["No public sentinel within \(radius) of the last place: not being heard there says little."]
        }
        var lines = ["Within \(radius) of the last place: \(count) public sentinel\(count == 1 ? "" : "s"), \(listening(coverage.listening, of: count)) now."]
        for sentinel in coverage.sentinels where !sentinel.notListening.isEmpty {
            lines.append("\(sentinel.name): not listening \(sentinel.notListening.map(gap).joined(separator: ", ")).")
        }
        if coverage.missingSince != nil, lines.count == 1 { lines.append("All of them listened while the bike was missing.") }
        return lines + unnamed
    }

    /// "listening" for one, "2 of them listening" for several.
    static func listening(_ listening: Int, of count: Int) -> String {
        if count == 1 { return listening > 0 ? "listening" : "not listening" }
        return "\(listening == 0 ? "none" : listening == count ? "all" : String(listening)) of them listening"
    }

    /// "03:41:05–03:41:12 UTC", the end's date only when it is another day; "since …" while it lasts.
    static func gap(_ gap: CoverageGap) -> String {
        guard let until = gap.until else { return "since \(day(gap.from)) \(clock(gap.from)) UTC" }
        let end = day(until) == day(gap.from) ? clock(until) : "\(day(until)) \(clock(until))"
        return "\(clock(gap.from))–\(end) UTC"
    }

    /// `2026-11-26T03:41:05.123Z` → `2026-11-26` and `03:41:05` (the server's stamps are UTC).
    static func day(_ rfc3339: String) -> String { String(rfc3339.prefix(10)) }
    static func clock(_ rfc3339: String) -> String { String(rfc3339.dropFirst(11).prefix(8)) }

    static func distance(_ metres: Int) -> String {
        guard metres >= 1000 else { return "\(metres) m" }
        return metres % 1000 == 0 ? "\(metres / 1000) km" : "\(metres / 1000).\(metres % 1000 / 100) km"
    }
}
