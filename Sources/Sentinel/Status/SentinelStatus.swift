#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Prometheus

/// A running sentinel's health, written to the status directory every few seconds and read by
/// `bikebeacon status`. Also written as Prometheus text (`metrics.prom`, through swift-prometheus)
/// for node_exporter's textfile collector, and served by `MetricsServer`.
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
    /// Seconds the scanner meant to listen but could not; nil in a status written before the field existed.
    public var scannerDeafSeconds: Double?
    /// What the scanner waits for while it cannot listen; nil while it listens.
    public var scannerWaitingFor: String?
    /// A roaming sentinel's fix (mode, age, accuracy; never its position); nil for one at a fixed place.
    public var fix: FixStatus?

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

    /// The Prometheus text exposition of this status, with HELP and TYPE lines. A missing list
    /// never fetched has no age: the metric is left out rather than written as NaN.
    public var prometheus: String {
        let registry = PrometheusCollectorRegistry()
        // The names are written whole, so the descriptor's unit suffix stays empty.
        func counter(_ name: String, _ value: Int, _ help: String) {
            registry.makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help))
                .increment(by: Int64(max(0, value)))
        }
        func gauge(_ name: String, _ value: Double, _ help: String) {
            registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help)).set(to: value)
        }
        counter("bikebeacon_advertisements_total", advertisements, "Advertisements heard since the sentinel started.")
        counter("bikebeacon_ibeacons_total", iBeacons, "iBeacon advertisements among them.")
        counter("bikebeacon_matches_total", matches, "Advertisements of beacons on the missing list.")
        counter("bikebeacon_sightings_created_total", sightingsCreated, "Sightings created (arrived, present, departed).")
        counter("bikebeacon_sightings_delivered_total", sightingsDelivered, "Sightings the server acknowledged.")
        counter("bikebeacon_sightings_rejected_total", sightingsRejected, "Sightings the server refused; they are not sent again.")
        gauge("bikebeacon_outbox_depth", Double(outboxDepth), "Sightings queued for the server; -1 when the outbox cannot be read.")
        gauge("bikebeacon_missing_list_version", Double(missingListVersion), "Version of the missing list held.")
        gauge("bikebeacon_missing_list_bikes", Double(missingListBikes), "Bikes on the missing list held.")
        if let missingListAgeSeconds {
            gauge("bikebeacon_missing_list_age_seconds", missingListAgeSeconds.rounded(.down), "Seconds since the server last confirmed the missing list.")
        }
        gauge("bikebeacon_reporter_consecutive_failures", Double(reporterFailures), "Failed deliveries in a row; 0 when the server takes sightings.")
        counter("bikebeacon_alarms_total", alarms, "Own-bike alarms raised.")
        counter("bikebeacon_scanner_restarts_total", scannerRestarts ?? 0, "Times the scanner was restarted after going quiet or losing the adapter.")
        gauge("bikebeacon_scanner_listening", scannerWaitingFor == nil ? 1 : 0, "1 while the radio listens; 0 while the scanner waits (bluetoothd, the adapter, discovery).")
        counter("bikebeacon_scanner_deaf_seconds_total", Int((scannerDeafSeconds ?? 0).rounded(.down)), "Seconds the scanner meant to listen but could not; they do not count as a tag's absence.")
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
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
        scanner: \(scannerWaitingFor.map { "NOT LISTENING, waiting for \($0)" } ?? "listening")\(
            (scannerDeafSeconds ?? 0) >= 1 ? " (could not hear for \(Int(scannerDeafSeconds ?? 0)) s in all)" : "")
        """ + (fix.map { "\n" + $0.report } ?? "")
    }
}
