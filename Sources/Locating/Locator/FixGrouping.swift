import Proximity

/// Groups a stream of readings into fixes, causally: a fix at time t uses only readings stamped
/// up to t.
///
/// A fix is made at the first reading at least `interval` seconds after the previous fix; at it,
/// each receiver's level is the median of its own readings of the last `window` seconds (the
/// median shrugs off the 10–20 dB fades of single readings). A receiver with none in the window
/// gives its newest reading while that is younger than `longestWindow` seconds, with its age (a
/// site whose receivers report every few seconds still has them in each fix); older, it is left
/// out. Readings are taken in time order; one stamped up to a second before the newest counts as
/// arriving with it (receivers reorder a little).
public struct FixGrouping: Sendable {
    /// A receiver's level at one fix.
    public struct Level: Sendable, Equatable {
        /// Index into the receivers the grouping was made with.
        public var receiver: Int
        public var rssi: Double
        public var count: Int
        /// Seconds from the newest reading in the level to the fix.
        public var age: Double
    }

    /// The levels at one fix.
    public struct Group: Sendable, Equatable {
        public var time: Double
        public var levels: [Level]
    }

    public let window: Double
    public let longestWindow: Double
    public let interval: Double
    private let index: [String: Int]
    private var recent: [[(time: Double, rssi: Double)]]
    private var newest: Double?
    private var lastFix: Double?

    public init(receivers: [String], window: Double, longestWindow: Double, interval: Double) throws(LocatingError) {
        var index: [String: Int] = [:]
        for (position, id) in receivers.enumerated() {
            guard index[id] == nil else { throw .duplicateReceiver(id) }
            index[id] = position
        }
        self.index = index
        self.window = window
        self.longestWindow = max(window, longestWindow)
        self.interval = interval
        recent = Array(repeating: [], count: receivers.count)
    }

    /// With the windows and interval the locator groups by.
    public init(receivers: [String], configuration: LocatorConfiguration) throws(LocatingError) {
        try self.init(receivers: receivers, window: configuration.window, longestWindow: configuration.longestWindow, interval: configuration.interval)
    }

    /// Takes one reading; the levels of a new fix when this reading makes one.
    public mutating func add(_ reading: Reading) throws(LocatingError) -> Group? {
        guard let receiver = index[reading.receiver] else { throw .unknownReceiver(reading.receiver) }
        guard reading.time.isFinite else { throw .time(reading.time) }
        guard ProximityEstimator.isPlausible(rssi: reading.rssi) else { throw .rssi(reading.rssi) }
        var time = reading.time
        if let newest {
            guard time >= newest - 1 else { throw .timeWentBack(time: time, previous: newest) }
            time = max(time, newest)
        }
        newest = time
        recent[receiver].append((time, reading.rssi))
        if let lastFix, time - lastFix < interval { return nil }
        lastFix = time
        var levels: [Level] = []
        for receiver in recent.indices {
            recent[receiver].removeAll { $0.time <= time - longestWindow }
            guard let newestReading = recent[receiver].last else { continue }
            // Stamps only grow (`time` is at least the newest's), so the window's readings are a suffix.
            let start = recent[receiver].firstIndex { $0.time > time - window } ?? recent[receiver].index(before: recent[receiver].endIndex)
            let used = recent[receiver][start...]
            levels.append(Level(receiver: receiver, rssi: RSSISummary.quantile(used.map(\.rssi).sorted(), 0.5), count: used.count,
                                age: time - newestReading.time))
        }
        return Group(time: time, levels: levels)
    }
}
