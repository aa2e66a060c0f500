import Testing
@testable import Sentinel

/// The sentinel's Prometheus text: what node_exporter's textfile collector and a scraper parse.
@Suite struct SentinelMetricsTests {
    static func status(age: Double?) -> SentinelStatus {
        SentinelStatus(pid: 1, startedAt: "2026-11-22T10:00:00.000Z", updatedAt: "2026-11-22T10:05:00.000Z", advertisements: 1200,
                       iBeacons: 800, matches: 17, sightingsCreated: 4, sightingsDelivered: 3, sightingsRejected: 1, outboxDepth: 1,
                       missingListVersion: 9, missingListBikes: 2, missingListAgeSeconds: age, reporterFailures: 0, alarms: 0,
                       scannerRestarts: nil)
    }

    @Test func everyMetricHasHelpAndType() {
        let lines = Self.status(age: 12.7).prometheus.split(separator: "\n")
        let samples = lines.filter { !$0.hasPrefix("#") }.map { String($0.split(separator: " ")[0]) }
        #expect(samples.count == 15)
        for name in samples {
            #expect(lines.contains { $0.hasPrefix("# HELP \(name) ") && $0.count > "# HELP \(name) ".count }, "no HELP for \(name)")
            #expect(lines.contains { $0 == "# TYPE \(name) counter" || $0 == "# TYPE \(name) gauge" }, "no TYPE for \(name)")
        }
        #expect(lines.contains("bikebeacon_matches_total 17"))
        #expect(lines.contains("bikebeacon_missing_list_age_seconds 12.0"))
    }

    /// A scanner that cannot hear says so, in the metrics and in `bikebeacon status`.
    @Test func aDeafScannerIsVisible() {
        var status = Self.status(age: 3)
        #expect(status.prometheus.contains("bikebeacon_scanner_listening 1.0"))
        #expect(status.report.contains("scanner: listening"))
        status.scannerWaitingFor = "bluetoothd: bluetooth.service failed (signal) and systemd does not restart it"
        status.scannerDeafSeconds = 42.6
        let metrics = status.prometheus.split(separator: "\n")
        #expect(metrics.contains("bikebeacon_scanner_listening 0.0"))
        #expect(metrics.contains("bikebeacon_scanner_deaf_seconds_total 42"))
        #expect(status.report.contains(
            "scanner: NOT LISTENING, waiting for bluetoothd: bluetooth.service failed (signal) and systemd does not restart it (could not hear for 42 s in all)"))
    }

    /// Before any list there is no age: the metric is left out, never NaN.
    @Test func noAgeBeforeAnyList() {
        let text = Self.status(age: nil).prometheus
        #expect(!text.contains("NaN"))
        #expect(!text.contains("bikebeacon_missing_list_age_seconds"))
    }
}
