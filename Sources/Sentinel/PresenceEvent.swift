import Beacon

/// A region change of one beacon, as the sighting logic needs it. Mirrors `RegionEvent` of the
/// region monitor (entered / still inside / exited) without the region, so the logic can be
/// fed from the monitor or from tests alike.
public enum PresenceEvent: Equatable, Sendable {
    case entered(BeaconID, time: Double)
    /// Periodic "still here"; `lastSeen` is the latest reading that kept it inside.
    case stillInside(BeaconID, time: Double, lastSeen: Double)
    /// Gone; `lastSeen` is the best guess of when it left.
    case exited(BeaconID, time: Double, lastSeen: Double)

    public var beacon: BeaconID {
        switch self {
        case let .entered(beacon, _), let .stillInside(beacon, _, _), let .exited(beacon, _, _): beacon
        }
    }
}
