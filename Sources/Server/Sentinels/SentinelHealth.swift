import BikebeaconAPI

/// Where a sentinel stands, as the server judges it from its heartbeats.
public enum SentinelState: String, Sendable, Codable, CaseIterable {
    /// Heartbeats arrive and say the radio hears the street.
    case listening
    /// Heartbeats arrive, but something in them is wrong (the reason says what).
    case degraded
    /// No heartbeat for `silentAfter`, by the server's own receipt times.
    case silent
    /// Revoked by the operator.
    case retired
}

/// The thresholds of `SentinelHealth.judge`, server options (`serve --sentinel-silent-after` etc.).
public struct SentinelThresholds: Sendable, Equatable {
    /// No heartbeat for this long: silent.
    public var silentAfterMilliseconds: Int64 = 5 * 60_000
    /// No BLE report of any kind for this long: degraded (a working radio in a cafe hears phones all day).
    public var quietRadioSeconds: Double = 10 * 60
    /// The outbox's oldest sighting older than this: degraded (deliveries are stuck).
    public var outboxAgeSeconds: Double = 15 * 60
    /// The sentinel's clock off the server's by more than this: degraded (its sightings' times are wrong).
    public var clockOffsetSeconds: Double = 2 * 60
    /// Less than this share of the state directory's disk free: degraded.
    public var diskFreeFraction: Double = 0.05

    public init() {}
}

/// A sentinel's verdict: its state and, unless listening, why, in words for the operator.
public struct SentinelVerdict: Sendable, Equatable {
    public var state: SentinelState
    public var reason: String

    public init(_ state: SentinelState, _ reason: String = "") {
        self.state = state
        self.reason = reason
    }
}

/// The state logic: a pure function of the stored heartbeat, the time and the thresholds, so the
/// heartbeat route, the periodic sweep and a restarted server all judge alike.
public enum SentinelHealth {
    /// `receivedMilliseconds`: when the server stored `heartbeat` (its own clock, never the sentinel's).
    public static func judge(heartbeat: SentinelHeartbeat?, receivedMilliseconds: Int64?, revoked: Bool, now: Int64,
                             thresholds: SentinelThresholds) -> SentinelVerdict {
        if revoked { return SentinelVerdict(.retired, "revoked by the operator") }
        guard let heartbeat, let received = receivedMilliseconds else { return SentinelVerdict(.silent, "no heartbeat yet") }
        let quiet = now - received
        if quiet >= thresholds.silentAfterMilliseconds {
            return SentinelVerdict(.silent, "no heartbeat for \(Duration.words(seconds: Double(quiet) / 1000))")
        }
        let problems = self.problems(heartbeat, thresholds: thresholds)
        return problems.isEmpty ? SentinelVerdict(.listening) : SentinelVerdict(.degraded, problems.joined(separator: "; "))
    }

    /// What is wrong in one heartbeat, most basic first (no adapter explains no scanning and no reports).
    static func problems(_ beat: SentinelHeartbeat, thresholds: SentinelThresholds) -> [String] {
        var found: [String] = []
        if beat.adapterPresent == false {
            found.append("Bluetooth adapter missing")
        } else if beat.adapterPowered == false {
            found.append("Bluetooth adapter powered off")
        } else if !beat.scanning {
            found.append("not scanning")
        }
        let quietFor = beat.lastReportAgeSeconds ?? beat.uptimeSeconds
        if quietFor >= thresholds.quietRadioSeconds {
            found.append("no BLE report for \(Duration.words(seconds: quietFor))")
        }
        if let age = beat.outboxOldestAgeSeconds, age > thresholds.outboxAgeSeconds {
            found.append("outbox stuck: \(beat.outboxDepth) sightings, the oldest \(Duration.words(seconds: age)) old")
        }
        if let offset = beat.clockOffsetSeconds, abs(offset) > thresholds.clockOffsetSeconds {
            found.append("clock \(Duration.words(seconds: abs(offset))) \(offset > 0 ? "ahead of" : "behind") the server")
        }
        if let free = beat.diskFreeBytes, let total = beat.diskTotalBytes, total > 0,
           Double(free) / Double(total) < thresholds.diskFreeFraction {
            found.append("disk almost full: \(Int((Double(free) / Double(total) * 100).rounded(.down))) % free")
        }
        return found
    }
}

extension Duration {
    /// "45 s", "12 min", "3 h 5 min", "2 d 4 h": how long, for an operator's eyes.
    static func words(seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        switch whole {
        case ..<60: return "\(max(0, whole)) s"
        case ..<3600: return "\(whole / 60) min"
        case ..<86400: return "\(whole / 3600) h" + (whole % 3600 / 60 > 0 ? " \(whole % 3600 / 60) min" : "")
        default: return "\(whole / 86400) d" + (whole % 86400 / 3600 > 0 ? " \(whole % 86400 / 3600) h" : "")
        }
    }
}
