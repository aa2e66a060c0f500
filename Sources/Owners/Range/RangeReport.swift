#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One JSON line of `bikebeacon range` when stdout is not a terminal.
///
/// A line is written for every advertisement of the bike heard (`event: "reading"`), and one
/// when the bike goes out of range because nothing was heard for the estimator's stale period
/// (`event: "out_of_range"`), so a script sees both arrivals and losses without polling.
public struct RangeReport: Equatable, Sendable, Encodable {
    public enum Event: String, Sendable, Encodable {
        case reading
        case outOfRange = "out_of_range"
    }

    public var event: Event
    /// Epoch seconds: the reading's time, or when the bike went out of range.
    public var time: Double
    public var bike: String?
    /// `UUID:MAJOR:MINOR`.
    public var beacon: String
    /// `immediate`, `near`, `far` or `out_of_range`.
    public var zone: String
    /// Metres, nil when out of range.
    public var distance: Double?
    public var distanceUncertainty: Double?
    public var filteredRSSI: Double?
    /// The raw RSSI of the latest reading, dBm.
    public var rssi: Int?
    public var measuredPower: Int?
    /// When the bike was last heard, epoch seconds.
    public var lastHeard: Double?
    /// `warmer`, `colder` or `steady`; nil when out of range.
    public var trend: String?

    public init(view: RangeView, event: Event) {
        let inRange = view.estimate.zone != .unknown
        self.event = event
        self.time = view.now
        self.bike = view.bike
        self.beacon = view.beacon.description
        self.zone = inRange ? view.estimate.zone.rawValue : "out_of_range"
        self.distance = inRange ? view.estimate.distance.map { Self.round($0, 3) } : nil
        self.distanceUncertainty = inRange ? view.estimate.distanceUncertainty.map { Self.round($0, 3) } : nil
        self.filteredRSSI = view.estimate.filteredRSSI.map { Self.round($0, 2) }
        self.rssi = view.history.last?.rssi
        self.measuredPower = view.history.last?.measuredPower
        self.lastHeard = view.history.last?.time
        self.trend = view.trend?.rawValue
    }

    /// The report as one line of JSON with keys in a stable order.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Encodes absent values as null so every line has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(event, forKey: .event)
        try c.encode(time, forKey: .time)
        try c.encode(bike, forKey: .bike)
        try c.encode(beacon, forKey: .beacon)
        try c.encode(zone, forKey: .zone)
        try c.encode(distance, forKey: .distance)
        try c.encode(distanceUncertainty, forKey: .distanceUncertainty)
        try c.encode(filteredRSSI, forKey: .filteredRSSI)
        try c.encode(rssi, forKey: .rssi)
        try c.encode(measuredPower, forKey: .measuredPower)
        try c.encode(lastHeard, forKey: .lastHeard)
        try c.encode(trend, forKey: .trend)
    }

    enum CodingKeys: String, CodingKey {
        case event, time, bike, beacon, zone, distance, distanceUncertainty, filteredRSSI, rssi, measuredPower, lastHeard, trend
    }

    private static func round(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }
}
