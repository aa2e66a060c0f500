import Beacon
import Proximity
import Regions
import Tracking

/// Follows one bike's beacon through the sentinel's own pipeline (`BeaconTracker`, the bike as
/// an own-bike region), so what an owner sees is what a sentinel decides, and keeps the reading
/// history the range view draws. Pure: time comes from the advertisements and callers.
public struct RangeTracker: Sendable {
    public let beacon: BeaconID
    /// The tag as measured at this receiver (`bikebeacon calibrate`): its RSSI at 1 m replaces the
    /// power the frames advertise, its exponent the default one.
    public let calibration: TagCalibration?
    public private(set) var history: SignalHistory
    private var tracker: BeaconTracker

    public init(beacon: BeaconID, calibration: TagCalibration? = nil, configuration: TrackerConfiguration = TrackerConfiguration(),
                historyCapacity: Int = 120) {
        self.beacon = beacon
        self.calibration = calibration
        var configuration = configuration
        if let calibration { configuration.proximity = calibration.applied(to: configuration.proximity) }
        tracker = BeaconTracker(ownRegions: [Region(name: "range", beacon: beacon)], configuration: configuration)
        history = SignalHistory(capacity: historyCapacity)
    }

    /// Seconds without a reading after which the estimator calls the beacon unknown.
    public var staleAfter: Double { tracker.configuration.proximity.staleAfter }

    /// Records an advertisement of this bike's beacon; returns false (and ignores it) for any other beacon.
    @discardableResult
    public mutating func record(_ advertisement: Advertisement) -> Bool {
        guard advertisement.beacon == beacon else { return false }
        var advertisement = advertisement
        if let calibration { advertisement.measuredPower = Int(calibration.measuredPower.rounded()) }
        _ = tracker.observe(advertisement)
        let estimate = tracker.estimate(of: beacon, at: advertisement.time)
        history.append(SignalSample(
            time: advertisement.time,
            rssi: advertisement.rssi,
            filtered: estimate?.filteredRSSI ?? Double(advertisement.rssi),
            measuredPower: advertisement.measuredPower
        ))
        return true
    }

    /// The bike's estimate at `time`; before its first reading, the estimate of a beacon never heard.
    public func estimate(at time: Double) -> ProximityEstimate {
        tracker.estimate(of: beacon, at: time)
            ?? ProximityEstimator(configuration: tracker.configuration.proximity).estimate(at: time)
    }
}
