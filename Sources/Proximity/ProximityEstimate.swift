/// What the estimator believes about one beacon at one instant.
public struct ProximityEstimate: Equatable, Sendable {
    public var time: Double
    /// Smoothed RSSI in dBm, nil before the first reading.
    public var filteredRSSI: Double?
    /// Estimated distance in metres, nil when unknown.
    public var distance: Double?
    /// One-sigma uncertainty of `distance`, metres.
    public var distanceUncertainty: Double?
    public var zone: Zone

    public init(time: Double, filteredRSSI: Double?, distance: Double?, distanceUncertainty: Double?, zone: Zone) {
        self.time = time
        self.filteredRSSI = filteredRSSI
        self.distance = distance
        self.distanceUncertainty = distanceUncertainty
        self.zone = zone
    }
}
