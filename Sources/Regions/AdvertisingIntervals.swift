/// The last few gaps between readings of one beacon, for its 95th-percentile interval.
/// Fixed capacity: per-beacon memory stays bounded however long the beacon is heard.
struct AdvertisingIntervals: Sendable {
    private var samples: [Float] = []
    private var next = 0
    private let capacity: Int
    /// Cached so timeouts cost nothing per tick; refreshed on every new sample.
    private(set) var p95: Double?

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { samples.count }

    mutating func append(_ interval: Double) {
        if samples.count < capacity {
            samples.append(Float(interval))
        } else {
            samples[next] = Float(interval)
        }
        next = (next + 1) % capacity
        let sorted = samples.sorted()
        // Nearest-rank percentile: the smallest sample with at least 95 % at or below it.
        let rank = Int((0.95 * Double(sorted.count)).rounded(.up))
        p95 = Double(sorted[max(0, rank - 1)])
    }
}
