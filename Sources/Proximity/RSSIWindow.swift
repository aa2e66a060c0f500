/// The readings of the last few seconds and their robust statistics.
///
/// A time window (not a count) keeps the estimator's reaction time the same whether the beacon is
/// heard ten times a second or once every ten seconds. The median and the median absolute
/// deviation ignore the multipath fades and reflections that make single BLE readings jump by
/// 10–20 dB, where a mean would be dragged along. The values are also kept sorted, so each
/// reading costs a binary search and a short move instead of a sort.
struct RSSIWindow: Sendable, Equatable {
    struct Reading: Sendable, Equatable {
        var time: Double
        var rssi: Double
    }

    /// Readings older than this, relative to the newest, are dropped, seconds.
    let span: Double
    /// Upper bound on stored readings, so a beacon shouting 100 times a second costs bounded memory.
    let capacity: Int
    /// In arrival order from `head`; the slots before `head` are expired and reclaimed in bulk.
    private var readings: [Reading] = []
    private var head = 0
    private var sorted: [Double] = []

    init(span: Double, capacity: Int) {
        self.span = span
        self.capacity = max(1, capacity)
    }

    var count: Int { sorted.count }

    mutating func append(time: Double, rssi: Double) {
        readings.append(Reading(time: time, rssi: rssi))
        sorted.insert(rssi, at: Self.insertionIndex(of: rssi, in: sorted))
        let oldest = time - span
        while head < readings.count, readings[head].time < oldest || readings.count - head > capacity {
            let value = readings[head].rssi
            sorted.remove(at: Self.insertionIndex(of: value, in: sorted))
            head += 1
        }
        if head > 64, head * 2 > readings.count {
            readings.removeFirst(head)
            head = 0
        }
    }

    mutating func removeAll() {
        readings.removeAll(keepingCapacity: true)
        sorted.removeAll(keepingCapacity: true)
        head = 0
    }

    /// Drops the readings stamped before `time`: what a window forgets once the beacon has moved.
    mutating func removeAll(before time: Double) {
        while head < readings.count, readings[head].time < time {
            sorted.remove(at: Self.insertionIndex(of: readings[head].rssi, in: sorted))
            head += 1
        }
    }

    /// Median RSSI; nil when empty.
    var median: Double? {
        sorted.isEmpty ? nil : Self.median(ofSorted: sorted)
    }

    /// Median RSSI and a robust standard deviation (1.4826 × MAD, which equals σ for Gaussian
    /// noise); the deviation is nil with fewer than three readings, where it means nothing.
    func statistics() -> (median: Double, spread: Double?)? {
        guard let median else { return nil }
        guard sorted.count >= 3 else { return (median, nil) }
        return (median, 1.4826 * medianAbsoluteDeviation(from: median))
    }

    /// The middle of the deviations |x − median|, found by walking outwards from the median:
    /// the deviations on each side are already in increasing order.
    private func medianAbsoluteDeviation(from median: Double) -> Double {
        let n = sorted.count
        var left = Self.insertionIndex(of: median, in: sorted) - 1
        var right = left + 1
        var previous = 0.0
        for rank in 0...(n / 2) {
            let leftDeviation = left >= 0 ? median - sorted[left] : .infinity
            let rightDeviation = right < n ? sorted[right] - median : .infinity
            let next: Double
            if leftDeviation <= rightDeviation {
                next = leftDeviation
                left -= 1
            } else {
                next = rightDeviation
                right += 1
            }
            if rank == n / 2 { return n % 2 == 1 ? next : (previous + next) / 2 }
            previous = next
        }
        return previous
    }

    /// First index whose value is not less than `value`.
    static func insertionIndex(of value: Double, in sorted: [Double]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The middle value, or the mean of the two middle values for an even count.
    static func median(ofSorted sorted: [Double]) -> Double {
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
