import Beacon
import Proximity
import Regions
import Registry

/// Settings of the whole pure pipeline.
public struct TrackerConfiguration: Sendable {
    public var proximity: ProximityConfiguration
    public var regions: RegionMonitorConfiguration
    /// Estimator state of a beacon unheard this long is dropped, seconds; the monitor forgets
    /// on its own `forgetAfter`. Default 300 s.
    public var forgetAfter: Double
    /// Estimate and monitor every beacon heard, not only missing and own bikes: for diagnostics
    /// and the worst-case benchmark.
    public var trackAll: Bool

    public init(proximity: ProximityConfiguration = .init(), regions: RegionMonitorConfiguration = .init(),
                forgetAfter: Double = 300, trackAll: Bool = false) {
        self.proximity = proximity
        self.regions = regions
        self.forgetAfter = forgetAfter
        self.trackAll = trackAll
    }
}

/// What the tracker tells the sentinel.
public struct TrackerEvent: Equatable, Sendable {
    public enum Subject: Equatable, Sendable {
        /// A bike on the missing list, with its public description.
        case missing(BikeDescription)
        /// One of the owner's own bikes, in the owner's region.
        case own
        /// Any other beacon, only with `trackAll`.
        case other
    }

    public var subject: Subject
    public var region: RegionEvent
    /// The beacon's latest estimate when the event happened.
    public var estimate: ProximityEstimate?
}

/// The pure pipeline after decoding: match → estimate → monitor, with bounded state.
///
/// Beacons that are neither missing nor the owner's cost one registry lookup and keep no
/// state, so a busy street costs memory only for the bikes that matter.
public struct BeaconTracker: Sendable {
    public let configuration: TrackerConfiguration
    public private(set) var registry: MissingRegistry
    /// The region that missing bikes enter and leave: anywhere the sentinel hears them.
    public static let sightingRegion = Region.anyBeacon(name: "sighting")

    private var monitor: RegionMonitor
    private let ownRegions: [Region]
    private var estimators: [BeaconID: TrackedEstimator] = [:]
    private var lastForget = -Double.infinity

    private struct TrackedEstimator: Sendable {
        var estimator: ProximityEstimator
        var lastHeard: Double
    }

    public init(ownRegions: [Region] = [], registry: MissingRegistry = MissingRegistry(), configuration: TrackerConfiguration = .init()) {
        self.configuration = configuration
        self.registry = registry
        self.ownRegions = ownRegions
        monitor = RegionMonitor(regions: [Self.sightingRegion] + ownRegions, configuration: configuration.regions)
    }

    /// Beacons with estimator state now.
    public var trackedBeaconCount: Int { estimators.count }

    /// The latest estimate of a tracked beacon at `time`; nil for a beacon without state.
    public func estimate(of beacon: BeaconID, at time: Double) -> ProximityEstimate? {
        estimators[beacon]?.estimator.estimate(at: time)
    }

    /// Takes the list the server sends. Bikes no longer missing stop producing events at once.
    public mutating func updateRegistry(_ registry: MissingRegistry) {
        self.registry = registry
    }

    public mutating func observe(_ advertisement: Advertisement) -> [TrackerEvent] {
        let beacon = advertisement.beacon
        let isMissing = registry.contains(beacon)
        let isOwn = ownRegions.contains { $0.contains(beacon) }
        guard isMissing || isOwn || configuration.trackAll else { return [] }

        let time = advertisement.time
        var tracked = estimators[beacon] ?? TrackedEstimator(estimator: ProximityEstimator(configuration: configuration.proximity), lastHeard: time)
        let estimate = tracked.estimator.update(time: time, rssi: Double(advertisement.rssi), measuredPower: advertisement.measuredPower.map(Double.init))
        tracked.lastHeard = max(tracked.lastHeard, time)
        estimators[beacon] = tracked
        return monitor.observe(beacon, estimate).compactMap { event(for: $0, estimate: estimate) }
    }

    /// Advances time: exits, still-inside reports, and forgetting. Call about once a second.
    public mutating func tick(at time: Double) -> [TrackerEvent] {
        let events = monitor.tick(at: time).compactMap { event(for: $0, estimate: estimators[$0.beacon]?.estimator.estimate(at: time)) }
        // Forgetting walks every beacon; once every few seconds is enough to keep memory flat.
        if time - lastForget >= 10 {
            lastForget = time
            let limit = configuration.forgetAfter
            estimators = estimators.filter { time - $0.value.lastHeard <= limit }
        }
        return events
    }

    private func event(for regionEvent: RegionEvent, estimate: ProximityEstimate?) -> TrackerEvent? {
        let subject: TrackerEvent.Subject
        if regionEvent.region == Self.sightingRegion {
            if let bike = registry.match(regionEvent.beacon) {
                subject = .missing(bike)
            } else if configuration.trackAll {
                subject = .other
            } else {
                return nil
            }
        } else {
            subject = .own
        }
        return TrackerEvent(subject: subject, region: regionEvent, estimate: estimate)
    }
}
