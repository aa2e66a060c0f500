/// How a sentinel is, as it tells the server at most once a minute: the compact JSON value of the
/// `Bikebeacon-Heartbeat` header on its missing-list refresh (`GET /v1/missing`), so the report rides
/// on a request the sentinel makes anyway. A roaming sentinel's heartbeat carries no position.
///
/// Optional fields are what the sentinel could not measure (no outbox row, no clock offset yet);
/// the server ignores fields it does not know, so a newer sentinel can talk to an older server.
public struct SentinelHeartbeat: Codable, Sendable, Equatable {
    public static let headerName = "Bikebeacon-Heartbeat"
    /// Longest header value the server reads; a heartbeat is about 500 bytes.
    public static let maxHeaderBytes = 4096
    /// A sentinel heartbeats once a minute: its list refresh carries it, jittered by ±10 %, so a
    /// healthy sentinel's heartbeats arrive 54–66 s apart, plus the refresh's own time.
    public static let interval: Double = 60
    /// The shortest silence after which a server may call a sentinel silent: the longest gap between
    /// a healthy sentinel's heartbeats (66 s) with room for a slow answer. Below it a listening
    /// sentinel would turn silent between two heartbeats, and back, with a mail each way.
    public static let shortestSilence: Double = 90

    public var version: String
    public var uptimeSeconds: Double
    /// `dbus`, `hci` or `replay`.
    public var backend: String
    /// Nil when the backend cannot tell (a capture).
    public var adapterPresent: Bool?
    public var adapterPowered: Bool?
    public var scanning: Bool
    /// Seconds the report counts below are over (since the previous heartbeat, or since start).
    public var intervalSeconds: Double
    /// Every BLE advertising report heard in the interval, of any kind: a working radio in a cafe hears phones all day.
    public var reports: Int
    public var iBeacons: Int
    /// Seconds since the last report of any kind; nil when none was heard since the sentinel started.
    public var lastReportAgeSeconds: Double?
    public var missingInRange: Int
    public var outboxDepth: Int
    /// Age of the oldest sighting waiting in the outbox; nil when it is empty.
    public var outboxOldestAgeSeconds: Double?
    /// When the server last acknowledged a batch of sightings; nil if never since start.
    public var lastDeliveryAt: String?
    /// The sentinel's clock minus the server's (`Date` of the previous answer), seconds; nil until measured.
    /// Its sightings carry it only while it is within `ownClockTolerance`: beyond, they are stamped by the server's clock.
    public var clockOffsetSeconds: Double?
    public var diskFreeBytes: Int64?
    public var diskTotalBytes: Int64?
    /// The last warning or error the sentinel logged, and when.
    public var lastError: String?
    public var lastErrorAt: String?
    /// How the sentinel's sightings' distances are made; nil from a sentinel older than #44.
    public var pathLoss: SentinelPathLoss?

    /// While its clock is within this many seconds of the server's, a sentinel stamps its sightings by its own
    /// clock; beyond, by the server's (the sentinel's `ServerTime`). So a sighting is off the server's clock
    /// by the heartbeat's `clockOffsetSeconds` only within it, and by at most this either way.
    public static let ownClockTolerance: Double = 120

    public init(version: String, uptimeSeconds: Double, backend: String, adapterPresent: Bool?, adapterPowered: Bool?,
                scanning: Bool, intervalSeconds: Double, reports: Int, iBeacons: Int, lastReportAgeSeconds: Double?,
                missingInRange: Int, outboxDepth: Int, outboxOldestAgeSeconds: Double?, lastDeliveryAt: String?,
                clockOffsetSeconds: Double?, diskFreeBytes: Int64?, diskTotalBytes: Int64?, lastError: String?, lastErrorAt: String?,
                pathLoss: SentinelPathLoss? = nil) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.backend = backend
        self.adapterPresent = adapterPresent
        self.adapterPowered = adapterPowered
        self.scanning = scanning
        self.intervalSeconds = intervalSeconds
        self.reports = reports
        self.iBeacons = iBeacons
        self.lastReportAgeSeconds = lastReportAgeSeconds
        self.missingInRange = missingInRange
        self.outboxDepth = outboxDepth
        self.outboxOldestAgeSeconds = outboxOldestAgeSeconds
        self.lastDeliveryAt = lastDeliveryAt
        self.clockOffsetSeconds = clockOffsetSeconds
        self.diskFreeBytes = diskFreeBytes
        self.diskTotalBytes = diskTotalBytes
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.pathLoss = pathLoss
    }
}

/// The path-loss model behind the `distance` of a sentinel's sightings (its level through
/// RSSI = P − 10·n·log10(d), P the tag's advertised power at 1 m), and whether this site measured it,
/// so the server can weigh its sightings as the calibration they rest on (#44).
public struct SentinelPathLoss: Codable, Sendable, Equatable {
    public enum Calibration: String, Codable, Sendable, CaseIterable {
        /// Nothing measured here: the receiver's levels are as read, the exponent the default.
        case none
        /// The receiver's offset measured against a tag's advertised 1 m power (`calibration.rxOffset`).
        case onePoint
        /// The offset and the exponent measured (`calibration.rxOffset` and `pathLossExponent`).
        case twoPoint
    }

    public var calibration: Calibration
    /// n beyond 1 m.
    public var exponent: Double
    /// n inside 1 m.
    public var nearFieldExponent: Double

    public init(calibration: Calibration, exponent: Double, nearFieldExponent: Double) {
        self.calibration = calibration
        self.exponent = exponent
        self.nearFieldExponent = nearFieldExponent
    }

    /// The exponents a sentinel may use (its configuration refuses others).
    public static let exponents: ClosedRange<Double> = 0.5...6
}

/// The limits a heartbeat must keep; the server answers 400 naming the first field outside them.
public enum HeartbeatLimits {
    public static let maxText = 500
    /// Ten years: the longest uptime, interval or age taken as real.
    public static let maxSeconds: Double = 10 * 365 * 86400
    /// A Pi without a real-time clock and no network boots in 1970: more than fifty years off is still a reading.
    public static let maxClockOffset: Double = 100 * 365 * 86400

    /// The name of the first field out of range, with why; nil when the heartbeat is well formed.
    public static func violation(in beat: SentinelHeartbeat) -> (field: String, problem: String)? {
        /// `machine` fields (version, backend) also refuse what a terminal would act on (`TerminalText`); free text
        /// (lastError) is kept and shown escaped.
        func text(_ value: String?, _ name: String, empty: Bool = true, machine: Bool = false) -> (String, String)? {
            guard let value else { return nil }
            if !empty, value.isEmpty { return (name, "must not be empty") }
            if machine, let unsafe = TerminalText.firstUnsafe(in: value) {
                return (name, "holds a control or bidi character (\(TerminalText.name(unsafe))); send plain text")
            }
            return value.count > maxText ? (name, "is longer than \(maxText) characters") : nil
        }
        func seconds(_ value: Double?, _ name: String, limit: Double = maxSeconds, signed: Bool = false) -> (String, String)? {
            guard let value else { return nil }
            guard value.isFinite, value <= limit, value >= (signed ? -limit : 0) else {
                return (name, signed ? "must be a number of seconds within ±\(Int(limit))" : "must be a number of seconds from 0 to \(Int(limit))")
            }
            return nil
        }
        func count(_ value: Int, _ name: String) -> (String, String)? { value < 0 ? (name, "must not be negative") : nil }
        func time(_ value: String?, _ name: String) -> (String, String)? {
            guard let value else { return nil }
            return Timestamp.parse(value) == nil ? (name, "must be an RFC 3339 date-time") : nil
        }
        func exponent(_ value: Double?, _ name: String) -> (String, String)? {
            guard let value, !SentinelPathLoss.exponents.contains(value) else { return nil }
            return (name, "must be a path-loss exponent from \(SentinelPathLoss.exponents.lowerBound) to \(SentinelPathLoss.exponents.upperBound)")
        }
        let checks: [(String, String)?] = [
            text(beat.version, "version", empty: false, machine: true), text(beat.backend, "backend", empty: false, machine: true),
            text(beat.lastError, "lastError"),
            seconds(beat.uptimeSeconds, "uptimeSeconds"), seconds(beat.intervalSeconds, "intervalSeconds"),
            seconds(beat.lastReportAgeSeconds, "lastReportAgeSeconds"), seconds(beat.outboxOldestAgeSeconds, "outboxOldestAgeSeconds"),
            seconds(beat.clockOffsetSeconds, "clockOffsetSeconds", limit: maxClockOffset, signed: true),
            count(beat.reports, "reports"), count(beat.iBeacons, "iBeacons"), count(beat.missingInRange, "missingInRange"),
            count(beat.outboxDepth, "outboxDepth"),
            beat.diskFreeBytes.flatMap { $0 < 0 ? ("diskFreeBytes", "must not be negative") : nil },
            beat.diskTotalBytes.flatMap { $0 < 0 ? ("diskTotalBytes", "must not be negative") : nil },
            beat.diskFreeBytes.flatMap { free in beat.diskTotalBytes.flatMap { free > $0 ? ("diskFreeBytes", "must not exceed diskTotalBytes") : nil } },
            time(beat.lastDeliveryAt, "lastDeliveryAt"), time(beat.lastErrorAt, "lastErrorAt"),
            exponent(beat.pathLoss?.exponent, "pathLoss.exponent"), exponent(beat.pathLoss?.nearFieldExponent, "pathLoss.nearFieldExponent"),
        ]
        return checks.lazy.compactMap { $0 }.first.map { (field: $0.0, problem: $0.1) }
    }
}

/// A sentinel's change of state (`event: sentinel`) on the event stream and webhook of every operator, and of its owner for a home sentinel.
public struct SentinelStateEvent: Codable, Sendable, Equatable {
    public static let kind = "sentinel"
    /// `sentinel`.
    public var type: String
    public var sentinelId: String
    public var sentinel: String
    /// `listening`, `degraded`, `silent` or `retired`.
    public var state: String
    /// Nil for the first heartbeat.
    public var previous: String?
    /// Why, unless listening.
    public var reason: String
    public var time: String

    public init(sentinelId: String, sentinel: String, state: String, previous: String?, reason: String, time: String) {
        type = Self.kind
        self.sentinelId = sentinelId
        self.sentinel = sentinel
        self.state = state
        self.previous = previous
        self.reason = reason
        self.time = time
    }
}
