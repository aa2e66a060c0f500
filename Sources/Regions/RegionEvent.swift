import Beacon

/// What the region monitor reports. Times are those of the call that detected the change.
public enum RegionEvent: Equatable, Sendable {
    /// The beacon gave enough evidence of being inside.
    case entered(region: Region, beacon: BeaconID, time: Double)
    /// The beacon was not heard (or not in the required zone) for its absence timeout;
    /// `lastSeen` is the last reading that kept it inside: the best guess of when it left.
    case exited(region: Region, beacon: BeaconID, time: Double, lastSeen: Double)
    /// Periodic report that the beacon is still inside, for sightings ("still here").
    case stillInside(region: Region, beacon: BeaconID, time: Double, lastSeen: Double)

    public var region: Region {
        switch self {
        case let .entered(region, _, _), let .exited(region, _, _, _), let .stillInside(region, _, _, _): region
        }
    }

    public var beacon: BeaconID {
        switch self {
        case let .entered(_, beacon, _), let .exited(_, beacon, _, _), let .stillInside(_, beacon, _, _): beacon
        }
    }

    public var time: Double {
        switch self {
        case let .entered(_, _, time), let .exited(_, _, time, _), let .stillInside(_, _, time, _): time
        }
    }
}
