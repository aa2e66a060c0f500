import Beacon
import Proximity

/// Everything the range screen shows at one instant: the whole input of `RangeScreen.render`.
public struct RangeView: Equatable, Sendable {
    /// The bike's name, nil when the user named a beacon directly.
    public var bike: String?
    public var beacon: BeaconID
    public var estimate: ProximityEstimate
    public var history: SignalHistory
    /// The instant drawn (capture time when replaying), epoch seconds.
    public var now: Double
    /// Where readings come from, e.g. "BlueZ hci0" or "replay govee.btsnoop x20".
    public var source: String
    /// A line for the operator: a scanner warning, or that a replay has ended.
    public var notice: String?

    public init(bike: String?, beacon: BeaconID, estimate: ProximityEstimate, history: SignalHistory, now: Double, source: String, notice: String? = nil) {
        self.bike = bike
        self.beacon = beacon
        self.estimate = estimate
        self.history = history
        self.now = now
        self.source = source
        self.notice = notice
    }

    /// What the screen and the JSON lines call the zone.
    public var zoneLabel: String {
        switch estimate.zone {
        case .immediate: "IMMEDIATE"
        case .near: "NEAR"
        case .far: "FAR"
        case .unknown: "OUT OF RANGE"
        }
    }

    /// Seconds since the last reading, nil when never heard.
    public var secondsSinceHeard: Double? {
        history.last.map { max(0, now - $0.time) }
    }

    /// The warmer/colder hint; only while the bike is in range.
    public var trend: Trend? {
        estimate.zone == .unknown ? nil : Trend.of(history, now: now)
    }
}
