/// What the estimator believes about one beacon at one instant.
public struct ProximityEstimate: Equatable, Sendable {
    public var time: Double
    /// Smoothed RSSI in dBm, nil before the first reading.
    public var filteredRSSI: Double?
    /// Estimated distance in metres, nil when unknown.
    public var distance: Double?
    /// One-sigma uncertainty of `distance`, metres: the shadowing about the path-loss model and
    /// the filter's own standard error, carried through the model.
    public var distanceUncertainty: Double?
    public var zone: Zone
    /// The distance the latest reading alone points at, metres: fresh evidence for region
    /// monitoring, which weighs it in its own filter. Nil when no reading made this estimate.
    public var readingDistance: Double?
    /// The calibrated model behind `distance` and `readingDistance`, so region monitoring can
    /// weigh a distance in dB, where a reading's scatter does not depend on the exponent.
    public var model: PathLossModel?
    /// Metres within one sigma of `distance`, through the same model as the zone: the reported
    /// zone's band always meets it. Nil when unknown.
    public var distanceRange: ClosedRange<Double>?

    public init(time: Double, filteredRSSI: Double?, distance: Double?, distanceUncertainty: Double?, zone: Zone,
                readingDistance: Double? = nil, model: PathLossModel? = nil, distanceRange: ClosedRange<Double>? = nil) {
        self.time = time
        self.filteredRSSI = filteredRSSI
        self.distance = distance
        self.distanceUncertainty = distanceUncertainty
        self.zone = zone
        self.readingDistance = readingDistance
        self.model = model
        self.distanceRange = distanceRange
    }
}
