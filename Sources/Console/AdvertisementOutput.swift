import Beacon
import Scanning

/// How `scan` and `replay` print reports: a JSON line each, or a readable table.
public enum AdvertisementOutput {
    public static func json(_ a: Advertisement) -> String {
        let power = a.measuredPower.map(String.init) ?? "null"
        let address = a.address.map { "\"\($0)\"" } ?? "null"
        return #"{"time": \#(timeText(a.time)), "address": \#(address), "uuid": "\#(a.beacon.uuid.uuidString)", "major": \#(a.beacon.major), "minor": \#(a.beacon.minor), "measuredPower": \#(power), "rssi": \#(a.rssi)}"#
    }

    public static let tableHeader = "TIME               ADDRESS            UUID                                  MAJOR  MINOR  POWER  RSSI"

    public static func tableRow(_ a: Advertisement) -> String {
        let power = a.measuredPower.map(String.init) ?? "?"
        return [
            timeText(a.time).padded(to: 18),
            (a.address?.description ?? "-").padded(to: 18),
            a.beacon.uuid.uuidString.padded(to: 37),
            String(a.beacon.major).leftPadded(to: 5),
            String(a.beacon.minor).leftPadded(to: 6),
            power.leftPadded(to: 6),
            String(a.rssi).leftPadded(to: 5),
        ].joined(separator: " ")
    }

    /// The end-of-run summary, for stderr.
    public static func summary(_ c: ScanCounts) -> String {
        "reports read: \(c.reports), iBeacons: \(c.iBeacons), other advertisements: \(c.otherAdvertisements), errors: \(c.errors)"
    }

    /// Epoch seconds with microseconds, as captures stamp them.
    public static func timeText(_ t: Double) -> String {
        let micros = (t * 1_000_000).rounded()
        let seconds = Int64((micros / 1_000_000).rounded(.down))
        let fraction = Int64(micros) - seconds * 1_000_000
        let digits = String(fraction)
        return "\(seconds)." + String(repeating: "0", count: 6 - digits.count) + digits
    }
}
