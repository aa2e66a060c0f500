import Foundation

/// Settings that hold for every beacon a receiver hears.
public struct ProximityConfiguration: Sendable, Equatable {
    /// Log-distance path-loss exponent: 2 in free space, higher indoors.
    public var pathLossExponent: Double
    /// Added to every raw RSSI to correct this receiver's bias, dB.
    public var rxOffset: Double
    /// Measured power used when the frame carries none, dBm at 1 m.
    public var defaultMeasuredPower: Double
    /// With no reading for this long the zone becomes unknown, seconds.
    public var staleAfter: Double

    public init(pathLossExponent: Double = 2.0, rxOffset: Double = 0, defaultMeasuredPower: Double = -59, staleAfter: Double = 30) {
        self.pathLossExponent = pathLossExponent
        self.rxOffset = rxOffset
        self.defaultMeasuredPower = defaultMeasuredPower
        self.staleAfter = staleAfter
    }
}

/// Smooths one beacon's RSSI into a distance and zone. Pure: time is an input.
public struct ProximityEstimator: Sendable {
    public let configuration: ProximityConfiguration
    private var filtered: Double?
    private var measuredPower: Double?
    private var lastTime: Double?

    public init(configuration: ProximityConfiguration = .init()) {
        self.configuration = configuration
    }

    public mutating func update(time: Double, rssi: Double, measuredPower: Double?) -> ProximityEstimate {
        let value = rssi + configuration.rxOffset
        filtered = filtered.map { $0 + 0.3 * (value - $0) } ?? value
        if let measuredPower { self.measuredPower = measuredPower }
        lastTime = time
        return estimate(at: time)
    }

    public func estimate(at time: Double) -> ProximityEstimate {
        guard let filtered, let lastTime, time - lastTime <= configuration.staleAfter else {
            return ProximityEstimate(time: time, filteredRSSI: filtered, distance: nil, distanceUncertainty: nil, zone: .unknown)
        }
        let power = measuredPower ?? configuration.defaultMeasuredPower
        let distance = pow(10, (power - filtered) / (10 * configuration.pathLossExponent))
        return ProximityEstimate(time: time, filteredRSSI: filtered, distance: distance, distanceUncertainty: nil, zone: Zone(distance: distance))
    }
}
