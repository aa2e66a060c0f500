import Beacon
import Foundation
import MQTT
import Proximity
import Testing
@testable import Sentinel

/// What the sentinel publishes when, with time as an input: the rate rule (zone change,
/// ≥ 0.5 m, ≥ 2 dB, at most once a second per bike), home / not_home without a false
/// departure at start, and the count of missing bikes in range without identities.
@Suite struct MQTTPresenceTests {
    static let topics = MQTTTopics(prefix: "bikebeacon", node: "garage", discovery: "homeassistant")
    static let bike = OwnBike(name: "Commuter", beacon: TestValues.intel, zone: .near)
    static let t0 = TestValues.t0

    static func presence(espresense: Bool = false) -> MQTTPresence {
        MQTTPresence(configuration: .init(topics: topics, espresense: espresense, grace: 30), bikes: [bike])
    }

    static func advertisement(at time: Double, rssi: Int = -70) -> Advertisement {
        Advertisement(beacon: TestValues.intel, rssi: rssi, measuredPower: -62, address: BluetoothAddress("A4:C1:38:05:C7:A1"), time: time)
    }

    static func estimate(_ zone: Zone, _ distance: Double, _ rssi: Double, at time: Double) -> ProximityEstimate {
        ProximityEstimate(time: time, filteredRSSI: rssi, distance: distance, distanceUncertainty: 0.2, zone: zone)
    }

    /// One heard advertisement; returns the state payloads published for it.
    static func hear(_ p: inout MQTTPresence, at time: Double, _ zone: Zone, _ distance: Double, _ rssi: Double) -> [[String: Any]] {
        states(p.step(advertisement: advertisement(at: time), estimate: estimate(zone, distance, rssi, at: time), output: .init(), time: time))
    }

    static func states(_ messages: [MQTTMessage]) -> [[String: Any]] {
        messages.filter { $0.topic == topics.state("commuter") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
        }
    }

    static func texts(_ messages: [MQTTMessage], _ topic: String) -> [String] {
        messages.filter { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    /// A parked bike: its state goes out once, but ESPresense hears of it every 5 s, as from an
    /// ESPresense node, so mqtt_room knows its room even if the first report was lost.
    @Test func aStillBikeIsReportedToESPresenseEveryFiveSeconds() {
        var p = Self.presence(espresense: true)
        let espresenseTopic = "espresense/devices/iBeacon:494e5445-4c4c-495f-524f-434b535f4857-20597-62207/garage"
        var reports: [Double] = []
        var states = 0
        for second in 0..<21 {
            let time = Self.t0 + Double(second)
            let messages = p.step(advertisement: Self.advertisement(at: time), estimate: Self.estimate(.near, 1.0, -70, at: time),
                                  output: .init(), time: time)
            reports += messages.filter { $0.topic == espresenseTopic }.map { _ in Double(second) }
            states += Self.states(messages).count
        }
        #expect(states == 1)
        #expect(reports == [0, 5, 10, 15, 20])
        // Out of range (zone unknown), nothing goes to ESPresense.
        let silent = p.step(advertisement: Self.advertisement(at: Self.t0 + 30), estimate: Self.estimate(.unknown, 9, -99, at: Self.t0 + 30),
                            output: .init(), time: Self.t0 + 30)
        #expect(!silent.contains { $0.topic == espresenseTopic })
    }

    @Test func stateGoesOutOnChangeAndAtMostOnceASecond() throws {
        var p = Self.presence()
        let first = Self.hear(&p, at: Self.t0, .near, 1.0, -70)
        #expect(first.count == 1)
        #expect(first.first?["zone"] as? String == "near")
        #expect(first.first?["distance"] as? Double == 1.0)
        #expect(first.first?["rssi"] as? Int == -70)
        #expect(first.first?["last_seen"] as? String == RFC3339.format(Self.t0))
        // Small moves are no news.
        #expect(Self.hear(&p, at: Self.t0 + 2, .near, 1.4, -71).isEmpty)
        // 2 dB is, but not within the second after the last message: held, then sent on a tick.
        #expect(Self.hear(&p, at: Self.t0 + 2.5, .near, 1.3, -72).count == 1)
        #expect(Self.hear(&p, at: Self.t0 + 3, .near, 1.3, -75).isEmpty)
        #expect(Self.states(p.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0 + 3.2)).isEmpty)
        let held = Self.states(p.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0 + 3.5))
        #expect(held.map { $0["rssi"] as? Int } == [-75])
        // Half a metre, and a zone change, each count.
        #expect(Self.hear(&p, at: Self.t0 + 5, .near, 1.8, -75).first?["distance"] as? Double == 1.8)
        #expect(Self.hear(&p, at: Self.t0 + 6, .far, 1.9, -75).first?["zone"] as? String == "far")
        // A change that is undone before its second is up is never sent.
        #expect(Self.hear(&p, at: Self.t0 + 6.5, .near, 1.9, -75).isEmpty)
        #expect(Self.hear(&p, at: Self.t0 + 6.8, .far, 1.9, -75).isEmpty)
        #expect(Self.states(p.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0 + 8)).isEmpty)
        // Every state is retained, so Home Assistant has one when it starts.
        let message = try #require(p.step(advertisement: Self.advertisement(at: Self.t0 + 9), estimate: Self.estimate(.immediate, 0.3, -55, at: Self.t0 + 9),
                                          output: .init(), time: Self.t0 + 9).first)
        #expect(message.retain && message.qos == .atLeastOnce)
    }

    @Test func homeWhenItArrivesNotHomeWhenItLeaves() {
        var p = Self.presence()
        let presence = Self.topics.presence("commuter")
        _ = Self.hear(&p, at: Self.t0, .near, 1.0, -70)
        let arrived = p.step(advertisement: nil, estimate: nil, output: .init(arrivals: ["Commuter"]), time: Self.t0 + 1)
        #expect(Self.texts(arrived, presence) == ["home"])
        let alarm = OwnBikeAlarm(bike: Self.bike, time: Self.t0 + 100, lastSeen: Self.t0 + 60)
        let left = p.step(advertisement: nil, estimate: nil, output: .init(alarms: [alarm]), time: Self.t0 + 100)
        #expect(Self.texts(left, presence) == ["not_home"])
        // Out of range the distance and signal are unknown; when it was last seen stays.
        let state = Self.states(left)
        #expect(state.first?["zone"] as? String == "unknown")
        #expect(state.first?["distance"] is NSNull && state.first?["rssi"] is NSNull)
        #expect(state.first?["last_seen"] as? String == RFC3339.format(Self.t0))
    }

    @Test func aRestartIsNotADeparture() {
        var p = Self.presence()
        let presence = Self.topics.presence("commuter")
        var published: [String] = []
        for second in stride(from: 0.0, through: 29, by: 1) {
            published += Self.texts(p.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0 + second), presence)
        }
        #expect(published.isEmpty)
        let graceOver = p.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0 + 30)
        #expect(Self.texts(graceOver, presence) == ["not_home"])
        #expect(Self.states(graceOver).first?["zone"] as? String == "unknown")
        // Coming home within the grace gives `home` and never `not_home`.
        var q = Self.presence()
        _ = q.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0)
        let home = q.step(advertisement: nil, estimate: nil, output: .init(arrivals: ["Commuter"]), time: Self.t0 + 5)
        let later = q.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0 + 40)
        #expect(Self.texts(home + later, presence) == ["home"])
    }

    @Test func missingBikesInRangeAreCountedNotNamed() {
        var p = Self.presence()
        let count = Self.topics.missingInRange
        #expect(Self.texts(p.step(advertisement: nil, estimate: nil, output: .init(), time: Self.t0), count) == ["0"])
        let a = TestValues.sighting(.arrived, beacon: TestValues.blueCharm), b = TestValues.sighting(.arrived, beacon: TestValues.other)
        let two = p.step(advertisement: nil, estimate: nil, output: .init(sightings: [a, b]), time: Self.t0 + 1)
        #expect(Self.texts(two, count) == ["2"])
        #expect(!two.contains { String(decoding: $0.payload, as: UTF8.self).contains("426C7565") || $0.topic.contains("426") })
        let still = p.step(advertisement: nil, estimate: nil, output: .init(sightings: [TestValues.sighting(.present, beacon: TestValues.other)]), time: Self.t0 + 2)
        #expect(Self.texts(still, count).isEmpty)
        let gone = p.step(advertisement: nil, estimate: nil, output: .init(sightings: [TestValues.sighting(.departed, beacon: TestValues.blueCharm)]), time: Self.t0 + 3)
        #expect(Self.texts(gone, count) == ["1"])
    }

    @Test func espresenseReportsLikeAnESPresenseNode() throws {
        var p = Self.presence(espresense: true)
        _ = p.step(advertisement: Self.advertisement(at: Self.t0, rssi: -69), estimate: Self.estimate(.near, 1.0, -70, at: Self.t0), output: .init(), time: Self.t0)
        let messages = p.step(advertisement: Self.advertisement(at: Self.t0 + 2, rssi: -77), estimate: Self.estimate(.far, 3.4, -76, at: Self.t0 + 2),
                              output: .init(), time: Self.t0 + 2)
        let report = try #require(messages.first { $0.topic.hasPrefix("espresense/") })
        #expect(report.topic == "espresense/devices/iBeacon:494e5445-4c4c-495f-524f-434b535f4857-20597-62207/garage")
        #expect(!report.retain && report.qos == .atMostOnce)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.payload)) as? [String: Any])
        #expect(json["id"] as? String == "iBeacon:494e5445-4c4c-495f-524f-434b535f4857-20597-62207")
        #expect(json["name"] as? String == "Commuter")
        #expect(json["rssi@1m"] as? Int == -62)
        #expect(json["rssi"] as? Int == -76)
        #expect(json["raw"] as? Int == -77)
        #expect(json["distance"] as? Double == 3.4)
        #expect(json["speed"] as? Double == 1.2)
        #expect(json["mac"] as? String == "a4c13805c7a1")
        #expect(json["interval"] as? Int == 2000)
    }
}
