import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MQTT
import Proximity

/// What to publish when: the sentinel's view of its own bikes and of missing bikes in range,
/// turned into MQTT messages. Pure: every input carries its time, nothing is read from a clock.
///
/// - A bike's state (zone, distance, RSSI, last seen) goes out when it changes enough (another
///   zone, ≥ 0.5 m, ≥ 2 dB) and at most once a second; a change held back by the rate limit
///   goes out on a later step.
/// - `home` when the region monitor says the bike entered its place, `not_home` when it left;
///   at start, `not_home` only after `grace` seconds without it coming home, so a restart is
///   not a departure.
/// - The count of missing bikes in range whenever it changes (no identities).
/// - With ESPresense on, each published reading also goes to `espresense/devices/<id>/<room>`,
///   and a bike still heard is reported there again every `espresenseRefresh` seconds, as
///   ESPresense itself does: `mqtt_room` and the companion learn a device's room only from these
///   messages (not retained), so one lost before the broker connection was up would otherwise
///   leave a parked bike roomless until it moved.
public struct MQTTPresence: Sendable {
    public struct Configuration: Sendable {
        public var topics: MQTTTopics
        public var espresense: Bool
        /// Seconds after start before a bike not heard is published as `not_home`.
        public var grace: Double
        public var minimumInterval: Double = 1
        public var distanceStep: Double = 0.5
        public var rssiStep: Double = 2
        /// ESPresense's default "skip" age (5000 ms): a device it hears is reported at least this often.
        public var espresenseRefresh: Double = 5

        public init(topics: MQTTTopics, espresense: Bool, grace: Double) {
            self.topics = topics
            self.espresense = espresense
            self.grace = grace
        }
    }

    /// One bike's published state; `nil` fields are unknown (JSON null).
    struct Reading: Equatable, Sendable, Encodable {
        var zone: Zone
        var distance: Double?
        var rssi: Int?
        var lastSeen: Double?

        enum CodingKeys: String, CodingKey { case zone, distance, rssi, lastSeen = "last_seen" }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(zone, forKey: .zone)
            try c.encode(distance.map { ($0 * 100).rounded() / 100 }, forKey: .distance)
            try c.encode(rssi, forKey: .rssi)
            try c.encode(lastSeen.map(RFC3339.format), forKey: .lastSeen)
        }
    }

    struct Bike: Sendable {
        let bike: OwnBike
        let slug: String
        var home: Bool?
        var published: Reading?
        var publishedAt = -Double.infinity
        var pending: Reading?
        var lastAdvertisement: Advertisement?
        /// The tag's last plausible calibrated power: what its distance rests on.
        var measuredPower: Int?
        /// Seconds between the last two advertisements heard.
        var interval: Double?
        /// Distance and time of the last ESPresense message, for its `speed`.
        var espresenseDistance: (distance: Double, time: Double)?
    }

    public let configuration: Configuration
    private var bikes: [Bike]
    private let index: [BeaconID: Int]
    private var startedAt: Double?
    private var missingInRange: Set<BeaconID> = []
    private var publishedMissing: Int?
    /// Added to times to stamp `last_seen`: the core's timeline to the wall clock (`SentinelCore.stampShift`).
    public var stampShift = 0.0

    public init(configuration: Configuration, bikes: [OwnBike]) {
        self.configuration = configuration
        self.bikes = bikes.map { Bike(bike: $0, slug: MQTTTopics.slug($0.name)) }
        index = Dictionary(bikes.enumerated().map { ($1.beacon, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// One step of the sentinel: an advertisement (with the tracker's estimate for its beacon)
    /// or a tick, the core's output for it, and the time of either.
    public mutating func step(advertisement: Advertisement?, estimate: ProximityEstimate?, output: SentinelCore.Output,
                              time: Double) -> [MQTTMessage] {
        var messages: [MQTTMessage] = []
        if startedAt == nil { startedAt = time }
        for sighting in output.sightings {
            if sighting.event == .departed { missingInRange.remove(sighting.beacon) } else { missingInRange.insert(sighting.beacon) }
        }
        if publishedMissing != missingInRange.count {
            publishedMissing = missingInRange.count
            messages.append(MQTTMessage(topic: configuration.topics.missingInRange, text: "\(missingInRange.count)", retain: true))
        }
        for name in output.arrivals {
            for i in bikes.indices where bikes[i].bike.name == name { messages += setHome(i, true) }
        }
        for alarm in output.alarms {
            for i in bikes.indices where bikes[i].bike.name == alarm.bike {
                messages += setHome(i, false)
                // Out of range: the distance and signal are unknown now; when it was last heard stays.
                let lastSeen = bikes[i].lastAdvertisement?.time ?? bikes[i].published?.lastSeen
                messages += publish(i, Reading(zone: .unknown, distance: nil, rssi: nil, lastSeen: lastSeen), time: time)
            }
        }
        if let advertisement, let i = index[advertisement.beacon], let estimate {
            if let previous = bikes[i].lastAdvertisement, advertisement.time > previous.time {
                bikes[i].interval = advertisement.time - previous.time
            }
            bikes[i].lastAdvertisement = advertisement
            if let power = advertisement.measuredPower { bikes[i].measuredPower = power }
            let reading = Reading(zone: estimate.zone, distance: estimate.distance, rssi: estimate.filteredRSSI.map { Int($0.rounded()) },
                                  lastSeen: advertisement.time)
            if changed(reading, from: bikes[i].published) {
                if time - bikes[i].publishedAt >= configuration.minimumInterval {
                    messages += publish(i, reading, time: time)
                } else {
                    bikes[i].pending = reading
                }
            } else {
                bikes[i].pending = nil
            }
            if configuration.espresense, reading.zone != .unknown,
               time - (bikes[i].espresenseDistance?.time ?? -.infinity) >= configuration.espresenseRefresh,
               let message = espresense(i, reading, time: time) {
                messages.append(message)
            }
        }
        for i in bikes.indices {
            if let pending = bikes[i].pending, time - bikes[i].publishedAt >= configuration.minimumInterval {
                messages += publish(i, pending, time: time)
            }
            if bikes[i].home == nil, let startedAt, time - startedAt >= configuration.grace {
                messages += setHome(i, false)
                if bikes[i].published == nil { messages += publish(i, Reading(zone: .unknown), time: time) }
            }
        }
        return messages
    }

    /// Another zone, a distance ≥ `distanceStep` away, or an RSSI ≥ `rssiStep` away.
    func changed(_ reading: Reading, from published: Reading?) -> Bool {
        guard let published else { return true }
        if reading.zone != published.zone { return true }
        switch (reading.distance, published.distance) {
        case let (new?, old?): if abs(new - old) >= configuration.distanceStep { return true }
        case (nil, nil): break
        default: return true
        }
        switch (reading.rssi, published.rssi) {
        case let (new?, old?): return Double(abs(new - old)) >= configuration.rssiStep
        case (nil, nil): return false
        default: return true
        }
    }

    private mutating func setHome(_ i: Int, _ home: Bool) -> [MQTTMessage] {
        guard bikes[i].home != home else { return [] }
        bikes[i].home = home
        return [MQTTMessage(topic: configuration.topics.presence(bikes[i].slug), text: home ? "home" : "not_home", retain: true)]
    }

    private mutating func publish(_ i: Int, _ reading: Reading, time: Double) -> [MQTTMessage] {
        bikes[i].published = reading
        bikes[i].publishedAt = time
        bikes[i].pending = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var stamped = reading
        stamped.lastSeen = reading.lastSeen.map { $0 + stampShift }
        guard let state = try? encoder.encode(stamped) else { return [] }
        var messages = [MQTTMessage(topic: configuration.topics.state(bikes[i].slug), payload: Array(state), retain: true)]
        if configuration.espresense, reading.zone != .unknown, let message = espresense(i, reading, time: time) {
            messages.append(message)
        }
        return messages
    }

    /// The reading as ESPresense publishes a device it hears, for `mqtt_room` and the companion.
    private mutating func espresense(_ i: Int, _ reading: Reading, time: Double) -> MQTTMessage? {
        guard let distance = reading.distance, let advertisement = bikes[i].lastAdvertisement else { return nil }
        var speed = 0.0
        if let previous = bikes[i].espresenseDistance, time > previous.time {
            speed = (distance - previous.distance) / (time - previous.time)
        }
        bikes[i].espresenseDistance = (distance, time)
        let power = bikes[i].measuredPower ?? Int(ProximityConfiguration().defaultMeasuredPower)
        let report = ESPresenseReport(beacon: bikes[i].bike.beacon, name: bikes[i].bike.name, advertisement: advertisement, measuredPower: power,
                                      rssi: reading.rssi, distance: distance, speed: speed, interval: bikes[i].interval)
        guard let payload = report.json else { return nil }
        let topic = MQTTTopics.espresenseDevice(id: report.id, room: configuration.topics.node)
        return MQTTMessage(topic: topic, payload: payload, qos: .atMostOnce, retain: false)
    }
}
