/// One sentinel as the operator's network view shows it (`GET /v1/network/sentinels`): where it
/// listens, its state and the health figures of its last heartbeat.
public struct NetworkSentinel: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// Nil for a roaming sentinel.
    public var latitude: Double?
    public var longitude: Double?
    /// An owner's home sentinel.
    public var home: Bool
    /// On the owners' coverage map (`GET /v1/network/coverage`), its host having agreed.
    public var onCoverageMap: Bool
    /// `listening`, `degraded`, `silent` or `retired`.
    public var state: String
    /// Why, unless listening.
    public var reason: String
    /// Since when it is in `state`; nil when it never sent a heartbeat.
    public var since: String?
    public var lastHeartbeatAt: String?
    public var version: String?
    /// Older than the newest version any sentinel reports.
    public var outdated: Bool
    public var reportsPerMinute: Double?
    public var outboxDepth: Int?
    public var outboxOldestAgeSeconds: Double?
    public var clockOffsetSeconds: Double?

    public init(id: String, name: String, latitude: Double?, longitude: Double?, home: Bool, onCoverageMap: Bool = false,
                state: String, reason: String,
                since: String?, lastHeartbeatAt: String?, version: String?, outdated: Bool, reportsPerMinute: Double?,
                outboxDepth: Int?, outboxOldestAgeSeconds: Double?, clockOffsetSeconds: Double?) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.home = home
        self.onCoverageMap = onCoverageMap
        self.state = state
        self.reason = reason
        self.since = since
        self.lastHeartbeatAt = lastHeartbeatAt
        self.version = version
        self.outdated = outdated
        self.reportsPerMinute = reportsPerMinute
        self.outboxDepth = outboxDepth
        self.outboxOldestAgeSeconds = outboxOldestAgeSeconds
        self.clockOffsetSeconds = clockOffsetSeconds
    }
}

public struct NetworkSentinelList: Codable, Sendable, Equatable {
    public var sentinels: [NetworkSentinel]

    public init(sentinels: [NetworkSentinel]) {
        self.sentinels = sentinels
    }
}
