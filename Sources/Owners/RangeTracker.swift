import Beacon
import Proximity

/// Follows one bike's beacon: feeds its advertisements to a `ProximityEstimator` and keeps the
/// reading history the range view draws. Pure: time comes from the advertisements and callers.
public struct RangeTracker: Sendable {
    public let beacon: BeaconID
    public private(set) var history: SignalHistory
    private var estimator: ProximityEstimator

    public init(beacon: BeaconID, estimator: ProximityEstimator = ProximityEstimator(), historyCapacity: Int = 120) {
        self.beacon = beacon
        self.estimator = estimator
        self.history = SignalHistory(capacity: historyCapacity)
    }

    /// Seconds without a reading after which the estimator calls the beacon unknown.
    public var staleAfter: Double { estimator.configuration.staleAfter }

    /// Records an advertisement of this bike's beacon; returns false (and ignores it) for any other beacon.
    @discardableResult
    public mutating func record(_ advertisement: Advertisement) -> Bool {
        guard advertisement.beacon == beacon else { return false }
        let estimate = estimator.update(time: advertisement.time, rssi: Double(advertisement.rssi), measuredPower: advertisement.measuredPower.map(Double.init))
        history.append(SignalSample(
            time: advertisement.time,
            rssi: advertisement.rssi,
            filtered: estimate.filteredRSSI ?? Double(advertisement.rssi),
            measuredPower: advertisement.measuredPower
        ))
        return true
    }

    public func estimate(at time: Double) -> ProximityEstimate {
        estimator.estimate(at: time)
    }
}
