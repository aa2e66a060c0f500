import Foundation
import Testing
import TestSupport
@testable import Sentinel
import Subprocesses

/// `bikebeacon sentinel` publishing to a real mosquitto while it replays a real capture
/// (Tests/Fixtures/captures/govee-h5100.btsnoop, MIT, see SOURCE.txt there) in which both an
/// own bike's tag and a missing bike's tag are heard. An independent client, mosquitto_sub,
/// sees what Home Assistant would.
@Suite(.serialized) struct MQTTSentinelTests {
    static let ownBike = """
    ownBikes:
      - name: Commuter
        beacon: \(SentinelCoreTests.own)
    """

    static func config(_ dir: URL, bikes: String = ownBike, espresense: Bool = true) throws -> String {
        try SentinelCommandTests.config(dir, extra: """
        \(bikes)
        mqtt:
          url: mqtt://nobody@127.0.0.1:9
          prefix: bikebeacon
          discovery: homeassistant
          espresense: \(espresense)
          name: garage
        """)
    }

    static func sentinel(_ config: String, broker: Mosquitto, drainTimeout: Int = 5) -> [String] {
        ["sentinel", "--config", config, "--replay", SentinelCommandTests.capture, "--drain-timeout", "\(drainTimeout)", "--mqtt-url", broker.url]
    }

    static func json(_ payload: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
    }

    /// A roaming sentinel on Debian's gpsd fed gpsd's recorded walk by gpsfake: with
    /// `mqtt.publishLocation` off nothing on the broker names a place; on, the sentinel's GPS
    /// tracker is announced and its position sent, never retained.
    @Test func aRoamingSentinelPublishesItsPositionOnlyWhenAskedTo() async throws {
        try await GPSFake.oneAtATime {
            let gpsd = try await GPSFake.started(log: Paths.fixture("gpsd/haicom-305N.log").path)
            defer { gpsd.kill() }
            for publish in [false, true] {
                let broker = try await Mosquitto.started()
                let dir = try SentinelCommandTests.stateDirectory(missing: [TestValues.bike(SentinelCoreTests.missing)])
                let config = try SentinelCommandTests.config(dir, extra: """
                \(Self.ownBike)
                location: {gpsd: {host: 127.0.0.1, port: \(gpsd.port)}}
                mqtt:
                  url: mqtt://nobody@127.0.0.1:9
                  name: bus12
                  publishLocation: \(publish)
                """)
                let finish = try await broker.watch()
                // The dead server keeps the sentinel up for the drain timeout: seconds of fixes.
                let result = try await run("bikebeacon", Self.sentinel(config, broker: broker, drainTimeout: 6))
                let seen = await finish()
                #expect(result.status == 0, "\(result.stderr)")
                let located = seen.filter { $0.payload.contains("latitude") || $0.payload.contains("-27.21") || $0.payload.contains("153.05") }
                let announced = seen.contains { $0.topic == "homeassistant/device_tracker/bus12/location/config" && !$0.payload.isEmpty }
                if publish {
                    #expect(announced)
                    let positions = located.filter { $0.topic == "bikebeacon/bus12/location" }.compactMap { Self.json($0.payload) }
                    #expect(!positions.isEmpty && positions.count == located.count)
                    #expect(positions.allSatisfy { ($0["latitude"] as? Double).map { abs($0 + 27.21) < 0.01 } == true && $0["longitude"] as? Double != nil })
                    #expect(try await broker.retained().allSatisfy { $0.topic != "bikebeacon/bus12/location" })
                } else {
                    #expect(!announced)
                    #expect(located.isEmpty, "\(located.map(\.topic))")
                }
            }
        }
    }

    @Test func replayPublishesDiscoveryPresenceStatesAndThenRemovesARemovedBike() async throws {
        let broker = try await Mosquitto.started()
        let dir = try SentinelCommandTests.stateDirectory(missing: [TestValues.bike(SentinelCoreTests.missing)])
        let finish = try await broker.watch()
        let result = try await run("bikebeacon", Self.sentinel(try Self.config(dir), broker: broker))
        let seen = await finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("connected to the MQTT broker"))
        func payloads(_ topic: String) -> [String] { seen.filter { $0.topic == topic }.map(\.payload) }

        // Discovery: one device, a tracker and four sensors for the bike, the missing count.
        let configs = seen.filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(Set(configs.map(\.topic)).count == 6)
        for config in configs {
            let problems = DiscoverySchema.problems(topic: config.topic, payload: Array(config.payload.utf8), discoveryPrefix: "homeassistant")
            #expect(problems.isEmpty, "\(config.topic): \(problems)")
        }
        // The bike came home during the capture and left when it ended.
        let presence = payloads("bikebeacon/garage/bikes/commuter/presence")
        #expect(presence.contains("home"))
        #expect(presence.last == "not_home")
        // States on change, at most once a second of capture time.
        let states = payloads("bikebeacon/garage/bikes/commuter/state").compactMap(Self.json)
        let heard = states.filter { $0["zone"] as? String != "unknown" }
        #expect(heard.count >= 2)
        #expect(heard.allSatisfy { ($0["distance"] as? Double ?? 0) > 0 && ($0["rssi"] as? Int ?? 0) < 0 })
        // The rule itself (change, at most once a second) is MQTTPresenceTests'; here: far fewer
        // states than advertisements, and no more than one per second of capture.
        let times = heard.compactMap { ($0["last_seen"] as? String).flatMap(RFC3339.parse) }
        #expect(times.count == heard.count)
        let advertisements = try await run("bikebeacon", ["replay", SentinelCommandTests.capture, "--json"]).lines.filter { $0.contains("\"minor\": 62207") }
        #expect(heard.count * 2 < advertisements.count)
        #expect(Double(heard.count) <= (times.max() ?? 0) - (times.min() ?? 0) + 1)
        #expect(states.last?["zone"] as? String == "unknown")
        // The missing bike was counted while in range, never named.
        let missing = payloads("bikebeacon/garage/missing_in_range")
        #expect(missing.first == "0" && missing.contains("1") && missing.last == "0")
        #expect(!seen.contains { $0.payload.contains("20596") || $0.payload.contains("25984") || $0.topic.contains("25984") })
        // ESPresense: the own bike as a device in the sentinel's room.
        let espresense = seen.filter { $0.topic == "espresense/devices/iBeacon:494e5445-4c4c-495f-524f-434b535f4857-20597-62207/garage" }
        #expect(!espresense.isEmpty)
        for (index, report) in espresense.compactMap({ Self.json($0.payload) }).enumerated() {
            for key in ["id", "name", "rssi@1m", "rssi", "raw", "distance", "speed", "mac"] + (index > 0 ? ["interval"] : []) {
                #expect(report[key] != nil, "\(key)")
            }
        }
        #expect(payloads("espresense/rooms/garage/status") == ["online", "offline"])
        // A clean stop says offline itself; everything else stays retained for Home Assistant.
        #expect(payloads("bikebeacon/garage/status") == ["online", "offline"])
        let retained = try await broker.retained()
        #expect(retained.contains { $0.topic == "homeassistant/device_tracker/garage/commuter/config" })
        #expect(retained.contains { $0.topic == "bikebeacon/garage/bikes/commuter/presence" && $0.payload == "not_home" })

        // The bike is taken out of the config: its entities and states go, the sentinel's stay.
        let again = try await run("bikebeacon", Self.sentinel(try Self.config(dir, bikes: ""), broker: broker))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("removing retained MQTT topics"))
        let after = try await broker.retained()
        #expect(!after.contains { $0.topic.contains("commuter") })
        #expect(after.contains { $0.topic == "homeassistant/sensor/garage/missing_in_range/config" })
    }

    @Test func reconnectsAfterABrokerRestartAndLeavesItsWillWhenKilled() async throws {
        let broker = try await Mosquitto.started()
        let dir = try SentinelCommandTests.stateDirectory(missing: [TestValues.bike(SentinelCoreTests.missing)])
        // The server is unreachable, so the sentinel waits for its outbox long after the replay.
        let process = try ChildProcess.spawn(Paths.executable("bikebeacon").path,
                                             Self.sentinel(try Self.config(dir, espresense: false), broker: broker, drainTimeout: 600),
                                             stdout: .discard, stderr: .discard)
        defer { process.send(SIGKILL) }
        func retained(_ topic: String) async throws -> String? { try await broker.retained(topic).last?.payload }
        #expect(try await eventually(within: 60, every: .milliseconds(200)) { try await retained("bikebeacon/garage/bikes/commuter/presence") == "not_home" })
        #expect(try await retained("bikebeacon/garage/status") == "online")

        // A broker restarted without persistence forgets everything; the sentinel reconnects and
        // publishes its status, discovery and states again.
        let port = broker.port
        broker.stop()
        try await broker.start(port: port)
        #expect(try await eventually(within: 60, every: .milliseconds(200)) { try await retained("bikebeacon/garage/status") == "online" })
        #expect(try await eventually(within: 60, every: .milliseconds(200)) { try await retained("homeassistant/device_tracker/garage/commuter/config") != nil })
        #expect(try await retained("bikebeacon/garage/bikes/commuter/presence") == "not_home")

        // kill -9: no goodbye, so the broker publishes the last will.
        process.send(SIGKILL)
        await waitForExit(process)
        #expect(try await eventually(within: 60, every: .milliseconds(200)) { try await retained("bikebeacon/garage/status") == "offline" })
    }
}
