import Foundation
import BikebeaconAPI

/// The operator's view of sentinel health, as `sentinels list` and `sentinels show` print it.
/// Pure: the rows and `now` in, lines out. What a sentinel sent (its version, backend, last error) is shown
/// escaped (`TerminalText`): a broken sentinel must not redraw itself as "listening, no errors".
public enum SentinelHealthReport {
    public static let listHeader = "name\tlatitude\tlongitude\tstatus\tstate\tsince\theartbeat\tversion\treports/min\toutbox\tclock\treason"

    /// One line per sentinel. A revoked sentinel is retired and one never heard from silent, whatever
    /// is stored; the state is the one the server recorded (its sweep keeps it current while it runs).
    public static func listLine(_ sentinel: Sentinel, _ health: SentinelHealthRecord?, now: Int64) -> String {
        let place = sentinel.latitude.flatMap { latitude in sentinel.longitude.map { "\(latitude)\t\($0)" } } ?? "roaming\troaming"
        let status = sentinel.revokedMilliseconds == nil ? "active" : "revoked"
        guard let health else {
            let (state, reason) = sentinel.revokedMilliseconds == nil ? ("silent", "no heartbeat yet") : ("retired", "revoked by the operator")
            return "\(TerminalText.escaped(sentinel.name))\t\(place)\t\(status)\t\(state)\t-\tnever\t-\t-\t-\t-\t\(reason)"
        }
        let beat = health.heartbeat.escaped
        let perMinute = beat.intervalSeconds > 0 ? Int((Double(beat.reports) * 60 / beat.intervalSeconds).rounded()) : beat.reports
        let outbox = "\(beat.outboxDepth)" + (beat.outboxOldestAgeSeconds.map { " (oldest \(Duration.words(seconds: $0)))" } ?? "")
        let clock = beat.clockOffsetSeconds.map { String(format: "%+.0f s", $0) } ?? "-"
        return [TerminalText.escaped(sentinel.name), place, status, health.state.rawValue, Timestamp.format(milliseconds: health.stateMilliseconds),
                ago(health.receivedMilliseconds, now: now), beat.version, "\(perMinute)", outbox, clock,
                health.reason.isEmpty ? "-" : TerminalText.escaped(health.reason)].joined(separator: "\t")
    }

    /// `sentinels show NAME`: the sentinel, its last heartbeat field by field, and its last transitions (newest first).
    public static func show(_ sentinel: Sentinel, _ health: SentinelHealthRecord?, transitions: [SentinelTransition], now: Int64) -> [String] {
        var lines = ["sentinel \(TerminalText.escaped(sentinel.name)) (\(sentinel.id))",
                     sentinel.latitude.flatMap { latitude in sentinel.longitude.map { "place: \(latitude), \($0)" } } ?? "place: roaming",
                     kind(sentinel)]
        if let health {
            let beat = health.heartbeat.escaped
            lines += [
                "state: \(health.state.rawValue) since \(Timestamp.format(milliseconds: health.stateMilliseconds))"
                    + (health.reason.isEmpty ? "" : " (\(TerminalText.escaped(health.reason)))"),
                "last heartbeat: \(ago(health.receivedMilliseconds, now: now))",
                "version \(beat.version), up \(Duration.words(seconds: beat.uptimeSeconds)), backend \(beat.backend)",
                "adapter: \(word(beat.adapterPresent, "present", "missing")), \(word(beat.adapterPowered, "powered", "off")), "
                    + (beat.scanning ? "scanning" : "not scanning"),
                "heard: \(beat.reports) reports (\(beat.iBeacons) iBeacons) in \(Duration.words(seconds: beat.intervalSeconds)), last "
                    + (beat.lastReportAgeSeconds.map { "\(Duration.words(seconds: $0)) ago" } ?? "never"),
                "missing bikes in range: \(beat.missingInRange)",
                "outbox: \(beat.outboxDepth) queued" + (beat.outboxOldestAgeSeconds.map { ", oldest \(Duration.words(seconds: $0))" } ?? "")
                    + ", last delivery \(beat.lastDeliveryAt ?? "never")",
                "clock offset: " + (beat.clockOffsetSeconds.map { String(format: "%+.1f s", $0) } ?? "not measured yet"),
                "disk: " + (beat.diskFreeBytes.flatMap { free in beat.diskTotalBytes.map { "\(free >> 20) MiB free of \($0 >> 20) MiB" } } ?? "unknown"),
                "last error: " + (beat.lastError.map { "\(beat.lastErrorAt ?? "") \($0)" } ?? "none"),
            ]
        } else {
            lines.append(sentinel.revokedMilliseconds == nil ? "state: silent (no heartbeat yet)" : "state: retired")
        }
        lines.append("transitions (newest first):")
        lines += transitions.isEmpty ? ["  none"] : transitions.map { transition in
            "  \(Timestamp.format(milliseconds: transition.atMilliseconds))\t\(transition.from?.rawValue ?? "-") -> \(transition.to.rawValue)"
                + (transition.reason.isEmpty ? "" : "\t\(TerminalText.escaped(transition.reason))")
        }
        return lines
    }

    /// Who may see where it is: a home sentinel is private, a public one is on the owners' coverage map only if its host agreed.
    static func kind(_ sentinel: Sentinel) -> String {
        if sentinel.home { return "kind: home (private: never on the coverage map)" }
        return sentinel.onCoverageMap ? "kind: public, on the coverage map" : "kind: public, not on the coverage map"
    }

    static func ago(_ milliseconds: Int64, now: Int64) -> String { "\(Duration.words(seconds: Double(now - milliseconds) / 1000)) ago" }

    static func word(_ value: Bool?, _ yes: String, _ no: String) -> String { value.map { $0 ? yes : no } ?? "unknown" }
}

extension SentinelHeartbeat {
    /// The heartbeat with every text a sentinel wrote `TerminalText.escaped`, for printing.
    var escaped: SentinelHeartbeat {
        var beat = self
        beat.version = TerminalText.escaped(version)
        beat.backend = TerminalText.escaped(backend)
        beat.lastError = lastError.map(TerminalText.escaped)
        beat.lastErrorAt = lastErrorAt.map(TerminalText.escaped)
        beat.lastDeliveryAt = lastDeliveryAt.map(TerminalText.escaped)
        return beat
    }
}
