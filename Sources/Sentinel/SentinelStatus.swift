import Foundation

/// A running sentinel's health, written to the status directory every few seconds and read by
/// `bikebeacon status`. Also written as Prometheus text (`metrics.prom`) for node_exporter's
/// textfile collector.
public struct SentinelStatus: Codable, Equatable, Sendable {
    public var pid: Int32
    public var startedAt: String
    public var updatedAt: String
    public var advertisements: Int
    public var iBeacons: Int
    public var matches: Int
    public var sightingsCreated: Int
    public var sightingsDelivered: Int
    public var sightingsRejected: Int
    public var outboxDepth: Int
    public var missingListVersion: Int64
    public var missingListBikes: Int
    /// Seconds since the server last confirmed the list; nil before any list.
    public var missingListAgeSeconds: Double?
    public var reporterFailures: Int
    public var alarms: Int
    /// Nil in a status written before the field existed.
    public var scannerRestarts: Int?

    public static let fileName = "status.json"
    public static let metricsFileName = "metrics.prom"
    /// The status directory the packaged unit gives the sentinel (`RuntimeDirectory=`, a tmpfs).
    public static let systemdDirectory = "/run/bikebeacon"

    /// Where a sentinel with this configuration keeps its status: the configured status
    /// directory, else the unit's runtime directory if it holds one, else the state directory.
    public static func path(for configuration: SentinelConfiguration) -> String {
        let candidates = [configuration.statusDirectory, systemdDirectory, configuration.stateDirectory].compactMap { $0 }
        let paths = candidates.map { $0 + "/" + fileName }
        return paths.first { FileManager.default.fileExists(atPath: $0) } ?? paths[0]
    }

    public var prometheus: String {
        let lines: [(String, String, String)] = [
            ("bikebeacon_advertisements_total", "counter", "\(advertisements)"),
            ("bikebeacon_ibeacons_total", "counter", "\(iBeacons)"),
            ("bikebeacon_matches_total", "counter", "\(matches)"),
            ("bikebeacon_sightings_created_total", "counter", "\(sightingsCreated)"),
            ("bikebeacon_sightings_delivered_total", "counter", "\(sightingsDelivered)"),
            ("bikebeacon_outbox_depth", "gauge", "\(outboxDepth)"),
            ("bikebeacon_missing_list_bikes", "gauge", "\(missingListBikes)"),
            ("bikebeacon_missing_list_age_seconds", "gauge", missingListAgeSeconds.map { String(Int($0)) } ?? "NaN"),
            ("bikebeacon_reporter_consecutive_failures", "gauge", "\(reporterFailures)"),
            ("bikebeacon_alarms_total", "counter", "\(alarms)"),
            ("bikebeacon_scanner_restarts_total", "counter", "\(scannerRestarts ?? 0)"),
        ]
        return lines.map { "# TYPE \($0.0) \($0.1)\n\($0.0) \($0.2)\n" }.joined()
    }

    /// How stale this status is; a running sentinel rewrites it every 5 seconds.
    public func secondsSinceUpdate(now: Double) -> Double? {
        RFC3339.parse(updatedAt).map { now - $0 }
    }

    /// The operator's view, one fact per line.
    public var report: String {
        """
        sentinel pid \(pid), running since \(startedAt), status as of \(updatedAt)
        advertisements: \(advertisements) (iBeacons \(iBeacons), missing-bike matches \(matches))
        sightings: \(sightingsCreated) created, \(sightingsDelivered) delivered, \(sightingsRejected) refused by the server
        outbox: \(outboxDepth) queued\(reporterFailures > 0 ? ", server unreachable for the last \(reporterFailures) attempts" : "")
        missing list: version \(missingListVersion), \(missingListBikes) bikes, \(missingListAgeSeconds.map { "confirmed \(Int($0)) s ago" } ?? "never fetched")
        own-bike alarms: \(alarms)
        scanner restarts: \(scannerRestarts ?? 0)
        """
    }
}
