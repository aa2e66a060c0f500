import Beacon
import BikebeaconAPI

/// A bike's sightings as the owner reads them in a terminal: one row each, oldest first, and a
/// one-line summary of where and when it was found.
public enum SightingTable {
    /// The rows under a header, in the order given.
    public static func render(_ sightings: [SightingRecord]) -> String {
        let rows = sightings.map { s in
            row([clock(s.time), s.event, s.zone, s.distance.map(NumberText.metres) ?? "?", String(s.rssi), s.fix == nil ? s.sentinel : s.place])
        }
        return ([row(["TIME (UTC)", "EVENT", "ZONE", "DISTANCE", "RSSI", "PLACE"])] + rows).joined(separator: "\n")
    }

    /// "at Cafe Rosa (52.0907, 5.1214) from 2024-01-27 20:54:08 to 20:59:41 UTC, at closest near", or nil
    /// when there is nothing to say.
    public static func summary(_ sightings: [SightingRecord]) -> String? {
        guard let first = sightings.first, let last = sightings.last else { return nil }
        let zones = ["immediate", "near", "far"]
        let closest = sightings.map(\.zone).min { (zones.firstIndex(of: $0) ?? zones.count) < (zones.firstIndex(of: $1) ?? zones.count) }
        return "\(first.place) from \(clock(first.firstSeen)) to \(clock(last.lastSeen)) UTC"
            + (closest.map { ", at closest \($0)" } ?? "")
    }

    private static func row(_ cells: [String]) -> String {
        "  " + zip(cells, [19, 9, 10, 8, 5]).map { $0.padded(to: $1) }.joined(separator: " ") + " " + (cells.last ?? "")
    }

    /// `2024-01-27T20:54:08.993Z` → `2024-01-27 20:54:08`.
    static func clock(_ rfc3339: String) -> String {
        String(String(rfc3339.prefix(19)).map { $0 == "T" ? " " : $0 })
    }
}
