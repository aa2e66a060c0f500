import BikebeaconAPI
import Scanning

/// What the sentinel's parts say about themselves when a heartbeat is made; read by the runner.
public struct HeartbeatInputs: Sendable, Equatable {
    public var startedAt: Double
    /// `dbus`, `hci` or `replay`.
    public var backend: String
    /// The scanner's totals; nil before they were first read.
    public var counts: ScanCounts?
    public var missingInRange: Int
    /// Nil when the outbox cannot be read.
    public var outboxDepth: Int?
    /// When the oldest queued sighting was made; nil when the outbox is empty.
    public var outboxOldest: Double?
    public var lastDeliveryAt: Double?
    public var disk: DiskSpace?
    public var lastError: LastErrorLog.Entry?
    /// The model behind the sightings' distances (`SentinelConfiguration.pathLoss`).
    public var pathLoss: SentinelPathLoss?

    public init(startedAt: Double, backend: String, counts: ScanCounts?, missingInRange: Int, outboxDepth: Int?,
                outboxOldest: Double?, lastDeliveryAt: Double?, disk: DiskSpace?, lastError: LastErrorLog.Entry?,
                pathLoss: SentinelPathLoss? = nil) {
        self.startedAt = startedAt
        self.backend = backend
        self.counts = counts
        self.missingInRange = missingInRange
        self.outboxDepth = outboxDepth
        self.outboxOldest = outboxOldest
        self.lastDeliveryAt = lastDeliveryAt
        self.disk = disk
        self.lastError = lastError
        self.pathLoss = pathLoss
    }
}

/// Turns the inputs into heartbeats, at most one per `minimumGap`: counts reports per interval,
/// remembers when the radio last heard anything, and keeps the clock offset measured against the
/// server's `Date`. Pure: time is an argument.
public struct HeartbeatMeter: Sendable {
    /// The sentinel heartbeats once a minute; its list refresh (jittered ±10 %) carries it, so a
    /// refresh a little early still does.
    public static let interval = SentinelHeartbeat.interval
    public static let minimumGap: Double = 50

    private var lastBeatAt: Double?
    private var lastCounts: ScanCounts?
    private var lastReportHeardAt: Double?
    /// The sentinel's clock minus the server's, from the last answer's `Date`.
    public private(set) var clockOffset: Double?

    public init() {}

    /// The heartbeat to send at `now`, or nil when one went out less than `minimumGap` ago, or
    /// before the scanner's first totals (at start-up it has not begun: "not scanning" would be a false alarm).
    public mutating func beat(_ inputs: HeartbeatInputs, now: Double) -> SentinelHeartbeat? {
        guard let counts = inputs.counts else { return nil }
        if let lastBeatAt, now - lastBeatAt < Self.minimumGap, now >= lastBeatAt { return nil }
        let since = lastBeatAt.map { min($0, now) } ?? min(inputs.startedAt, now)
        lastBeatAt = now
        // A scanner started afresh counts from zero again.
        func added(_ previous: Int?, _ total: Int) -> Int { total - (previous.map { $0 <= total ? $0 : 0 } ?? 0) }
        let heard = added(lastCounts?.reports, counts.reports)
        let iBeacons = added(lastCounts?.iBeacons, counts.iBeacons)
        lastCounts = counts
        if heard > 0 { lastReportHeardAt = now }
        return SentinelHeartbeat(
            version: BikebeaconVersion.current, uptimeSeconds: clamp(now - inputs.startedAt), backend: inputs.backend,
            adapterPresent: counts.adapterPresent, adapterPowered: counts.adapterPowered,
            scanning: counts.scanning ?? true,
            intervalSeconds: clamp(now - since), reports: heard, iBeacons: iBeacons,
            lastReportAgeSeconds: lastReportHeardAt.map { clamp(now - $0) }, missingInRange: max(0, inputs.missingInRange),
            outboxDepth: max(0, inputs.outboxDepth ?? 0), outboxOldestAgeSeconds: inputs.outboxOldest.map { clamp(now - $0) },
            lastDeliveryAt: inputs.lastDeliveryAt.map(RFC3339.format), clockOffsetSeconds: clockOffset.map(clampOffset),
            diskFreeBytes: inputs.disk.map { min($0.freeBytes, $0.totalBytes) }, diskTotalBytes: inputs.disk?.totalBytes,
            lastError: inputs.lastError.map { String($0.message.prefix(HeartbeatLimits.maxText)) },
            lastErrorAt: inputs.lastError.map { RFC3339.format($0.time) }, pathLoss: inputs.pathLoss)
    }

    /// An answer's `Date` against the sentinel's clock around the request (`HTTPDate.serverClockPastDate`).
    public mutating func serverDate(_ date: Double, sentAt: Double, receivedAt: Double) {
        clockOffset = (sentAt + receivedAt) / 2 - (date + HTTPDate.serverClockPastDate)
    }

    /// Within what the server takes: a stepped clock must not make the heartbeat itself refused.
    private func clamp(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return 0 }
        return min(max(0, seconds), HeartbeatLimits.maxSeconds)
    }

    private func clampOffset(_ seconds: Double) -> Double {
        min(max(-HeartbeatLimits.maxClockOffset, seconds), HeartbeatLimits.maxClockOffset)
    }
}
