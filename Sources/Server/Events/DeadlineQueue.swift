/// Deadlines, earliest first (a binary min-heap). Pure: the caller gives the instants.
///
/// `EventSignal` keeps one for all its waiters, so one alarm serves tens of thousands of open
/// streams instead of a sleeping timer task each.
struct DeadlineQueue<Instant: Comparable, Key>: Sendable where Instant: Sendable, Key: Sendable {
    private var heap: [(at: Instant, key: Key)] = []

    var count: Int { heap.count }
    var earliest: Instant? { heap.first?.at }

    mutating func insert(_ key: Key, at instant: Instant) {
        heap.append((instant, key))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].at < heap[parent].at else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns every key due at `now` (deadline ≤ now), earliest first.
    mutating func popDue(now: Instant) -> [Key] {
        var due: [Key] = []
        while let first = heap.first, first.at <= now {
            due.append(first.key)
            removeFirst()
        }
        return due
    }

    /// Keeps only the keys `keep` accepts (the waiters still waiting), rebuilding the heap (O(n log n)).
    mutating func filter(_ keep: (Key) -> Bool) {
        let kept = heap.filter { keep($0.key) }
        heap = []
        heap.reserveCapacity(kept.count)
        for entry in kept { insert(entry.key, at: entry.at) }
    }

    private mutating func removeFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].at < heap[smallest].at { smallest = left }
            if right < heap.count, heap[right].at < heap[smallest].at { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
