/// The readings of the last few seconds and their robust statistics.
///
/// A time window (not a count) keeps the estimator's reaction time the same whether the beacon is
/// heard ten times a second or once every ten seconds. The median and the median absolute
/// deviation ignore the multipath fades and reflections that make single BLE readings jump by
/// 10–20 dB, where a mean would be dragged along.
struct RSSIWindow: Sendable, Equatable {
    struct Reading: Sendable, Equatable {
        var time: Double
        var rssi: Double
    }

    /// Readings older than this, relative to the newest, are dropped, seconds.
    let span: Double
    /// Upper bound on stored readings, so a beacon shouting 100 times a second costs bounded memory.
    let capacity: Int
    private(set) var readings: [Reading] = []

    init(span: Double, capacity: Int) {
        self.span = span
        self.capacity = max(1, capacity)
    }

    var isEmpty: Bool { readings.isEmpty }
    var count: Int { readings.count }

    mutating func append(time: Double, rssi: Double) {
        readings.append(Reading(time: time, rssi: rssi))
        let oldest = time - span
        let expired = readings.firstIndex { $0.time >= oldest } ?? readings.count
        let excess = max(expired, readings.count - capacity)
        if excess > 0 { readings.removeFirst(excess) }
    }

    mutating func removeAll() { readings.removeAll(keepingCapacity: true) }

    /// Median RSSI and a robust standard deviation (1.4826 × MAD, which equals σ for Gaussian
    /// noise); the deviation is nil with fewer than three readings, where it means nothing.
    func statistics() -> (median: Double, spread: Double?)? {
        guard !readings.isEmpty else { return nil }
        let values = readings.map(\.rssi)
        let median = Self.median(values)
        guard values.count >= 3 else { return (median, nil) }
        let deviation = Self.median(values.map { abs($0 - median) })
        return (median, 1.4826 * deviation)
    }

    /// The middle value, or the mean of the two middle values for an even count.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
