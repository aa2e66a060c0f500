/// One reading of the bike's beacon as the range view keeps it.
public struct SignalSample: Equatable, Sendable {
    public var time: Double
    /// Raw RSSI as received, dBm.
    public var rssi: Int
    /// The estimator's smoothed RSSI right after this reading, dBm.
    public var filtered: Double
    /// Calibrated power at 1 m from the frame, when the tag sent a plausible one.
    public var measuredPower: Int?

    public init(time: Double, rssi: Int, filtered: Double, measuredPower: Int?) {
        self.time = time
        self.rssi = rssi
        self.filtered = filtered
        self.measuredPower = measuredPower
    }
}

/// The most recent readings, oldest first, bounded so a long session stays small.
public struct SignalHistory: Equatable, Sendable {
    public let capacity: Int
    public private(set) var samples: [SignalSample] = []

    public init(capacity: Int = 120, samples: [SignalSample] = []) {
        self.capacity = max(1, capacity)
        self.samples = Array(samples.suffix(self.capacity))
    }

    public var last: SignalSample? { samples.last }

    public mutating func append(_ sample: SignalSample) {
        if samples.count == capacity { samples.removeFirst() }
        samples.append(sample)
    }
}
