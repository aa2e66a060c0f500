import Foundation
import MQTT
import Testing
@testable import Sentinel

/// The discovery messages against Home Assistant's documented MQTT discovery schema
/// (home-assistant.io/integrations/mqtt, device_tracker.mqtt and sensor.mqtt), and the removal
/// of a bike taken out of the config.
@Suite struct HomeAssistantDiscoveryTests {
    static let topics = MQTTTopics(prefix: "bikebeacon", node: "garage", discovery: "homeassistant")
    static let bikes = [OwnBike(name: "Commuter", beacon: TestValues.intel, zone: .near),
                        OwnBike(name: "Kid's bike", beacon: TestValues.blueCharm, zone: nil)]

    @Test func everyConfigFollowsTheSchema() throws {
        let messages = HomeAssistantDiscovery.configs(topics: Self.topics, bikes: Self.bikes)
        #expect(messages.count == 1 + 5 * Self.bikes.count)
        for message in messages {
            #expect(message.retain && message.qos == .atLeastOnce)
            let problems = DiscoverySchema.problems(topic: message.topic, payload: message.payload, discoveryPrefix: "homeassistant")
            #expect(problems.isEmpty, "\(message.topic): \(problems)")
        }
        let topics = Set(messages.map(\.topic))
        #expect(topics.contains("homeassistant/device_tracker/garage/commuter/config"))
        #expect(topics.contains("homeassistant/sensor/garage/kid_s_bike_distance/config"))
        #expect(topics.contains("homeassistant/sensor/garage/missing_in_range/config"))
        // One device per sentinel.
        let devices = Set(try messages.map { try DiscoverySchema.object($0.payload)["device"] as? [String: Any] }.map { "\($0?["identifiers"] ?? "")" })
        #expect(devices.count == 1)
    }

    @Test func aRemovedBikeLosesItsEntitiesAndRetainedState() {
        let before = HomeAssistantDiscovery.retainedTopics(topics: Self.topics, bikes: Self.bikes)
        let after = HomeAssistantDiscovery.retainedTopics(topics: Self.topics, bikes: [Self.bikes[0]])
        let removals = HomeAssistantDiscovery.removals(topics: Self.topics, previous: before, current: after)
        #expect((removals.entities + removals.states).allSatisfy { $0.payload.isEmpty && $0.retain })
        // The entities go first; their states are cleared only after (MQTTBridge waits for the broker
        // between the two), or Home Assistant renders the still-listening entities on an empty payload.
        #expect(Set(removals.entities.map(\.topic)) == [
            "homeassistant/device_tracker/garage/kid_s_bike/config",
            "homeassistant/sensor/garage/kid_s_bike_distance/config", "homeassistant/sensor/garage/kid_s_bike_zone/config",
            "homeassistant/sensor/garage/kid_s_bike_rssi/config", "homeassistant/sensor/garage/kid_s_bike_last_seen/config",
        ])
        #expect(Set(removals.states.map(\.topic)) == ["bikebeacon/garage/bikes/kid_s_bike/presence", "bikebeacon/garage/bikes/kid_s_bike/state"])
        let none = HomeAssistantDiscovery.removals(topics: Self.topics, previous: after, current: after)
        #expect(none.entities.isEmpty && none.states.isEmpty)
    }

    /// Home Assistant's device page shows the software version and links to where the owner manages bikes.
    @Test func theDeviceNamesItsVersionAndItsConfigurationURL() throws {
        let messages = HomeAssistantDiscovery.configs(topics: Self.topics, bikes: Self.bikes, configurationURL: "https://bikes.example.org")
        for message in messages {
            let device = try #require(try DiscoverySchema.object(message.payload)["device"] as? [String: Any])
            #expect(device["sw_version"] as? String == BikebeaconVersion.current)
            #expect(device["configuration_url"] as? String == "https://bikes.example.org")
        }
        let unlinked = try DiscoverySchema.object(try #require(HomeAssistantDiscovery.configs(topics: Self.topics, bikes: Self.bikes).first).payload)
        #expect((unlinked["device"] as? [String: Any])?["configuration_url"] == nil)
    }

    /// `mqtt.publishLocation: true`: one more device_tracker, of the sentinel itself, placed by GPS
    /// attributes; turned off again, the entity is removed. Off (the default), nothing names a place.
    @Test func theSentinelsOwnLocationOnlyWhenAskedFor() throws {
        let off = HomeAssistantDiscovery.configs(topics: Self.topics, bikes: Self.bikes)
        #expect(!off.contains { $0.topic.contains("location") || String(decoding: $0.payload, as: UTF8.self).contains("location") })

        let on = HomeAssistantDiscovery.configs(topics: Self.topics, bikes: Self.bikes, publishLocation: true)
        #expect(on.count == off.count + 1)
        let message = try #require(on.first { $0.topic == "homeassistant/device_tracker/garage/location/config" })
        #expect(DiscoverySchema.problems(topic: message.topic, payload: message.payload, discoveryPrefix: "homeassistant").isEmpty)
        let config = try DiscoverySchema.object(message.payload)
        #expect(config["source_type"] as? String == "gps" && config["json_attributes_topic"] as? String == "bikebeacon/garage/location")
        #expect(config["state_topic"] == nil)

        let removals = HomeAssistantDiscovery.removals(
            topics: Self.topics, previous: HomeAssistantDiscovery.retainedTopics(topics: Self.topics, bikes: Self.bikes, publishLocation: true),
            current: HomeAssistantDiscovery.retainedTopics(topics: Self.topics, bikes: Self.bikes))
        #expect(removals.entities.map(\.topic) == ["homeassistant/device_tracker/garage/location/config"])
    }

    @Test func noDiscoveryPrefixNoConfigs() {
        let topics = MQTTTopics(prefix: "bikebeacon", node: "garage", discovery: "")
        #expect(HomeAssistantDiscovery.configs(topics: topics, bikes: Self.bikes).isEmpty)
    }
}

/// The parts of Home Assistant's MQTT discovery schema a sentinel uses, as documented:
/// the topic `<prefix>/<component>/<node_id>/<object_id>/config`; required and allowed keys
/// per component; device classes with their units. Used on payloads built here and on those a
/// real broker hands to an independent subscriber.
enum DiscoverySchema {
    static let common: Set<String> = ["name", "unique_id", "state_topic", "availability_topic", "payload_available",
                                      "payload_not_available", "device", "json_attributes_topic", "value_template", "icon"]
    static let allowed: [String: Set<String>] = [
        "device_tracker": common.union(["payload_home", "payload_not_home", "source_type"]),
        "sensor": common.union(["unit_of_measurement", "device_class", "state_class", "options"]),
    ]
    static let sourceTypes: Set<String> = ["gps", "router", "bluetooth", "bluetooth_le"]
    static let stateClasses: Set<String> = ["measurement", "total", "total_increasing"]
    /// Device class → the units Home Assistant accepts for it (nil: no unit allowed).
    static let units: [String: Set<String>?] = ["distance": ["km", "m", "cm", "mm", "mi", "yd", "in", "ft"], "signal_strength": ["dB", "dBm"],
                                                "timestamp": nil, "enum": nil]

    static func object(_ payload: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { throw CocoaError(.coderReadCorrupt) }
        return object
    }

    static func problems(topic: String, payload: [UInt8], discoveryPrefix: String) -> [String] {
        var problems: [String] = []
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count == 5, levels[0] == discoveryPrefix, levels[4] == "config",
              levels[2].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }),
              levels[3].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            return ["topic is not <prefix>/<component>/<node_id>/<object_id>/config"]
        }
        let component = levels[1]
        guard let keys = allowed[component] else { return ["component \(component) is not one the sentinel should use"] }
        guard let config = try? object(payload) else { return ["payload is not a JSON object"] }
        for key in config.keys where !keys.contains(key) { problems.append("unknown key \(key)") }
        // A GPS tracker takes its position from its JSON attributes and may have no state topic.
        let isGPS = component == "device_tracker" && config["source_type"] as? String == "gps"
        for key in ["name", "unique_id", isGPS ? "json_attributes_topic" : "state_topic", "availability_topic", "device"] where config[key] == nil {
            problems.append("missing \(key)")
        }
        for key in ["state_topic", "availability_topic", "json_attributes_topic"] {
            if let topic = config[key] as? String, topic.isEmpty || topic.contains("+") || topic.contains("#") { problems.append("\(key) is not a topic name") }
        }
        if let device = config["device"] as? [String: Any] {
            if (device["identifiers"] as? [String])?.isEmpty != false { problems.append("device without identifiers") }
            for key in device.keys where !["identifiers", "name", "manufacturer", "model", "sw_version", "configuration_url"].contains(key) { problems.append("device key \(key)") }
        } else {
            problems.append("device is not an object")
        }
        if config["payload_available"] as? String != "online" || config["payload_not_available"] as? String != "offline" {
            problems.append("availability payloads are not online/offline")
        }
        if component == "device_tracker", !isGPS {
            if let source = config["source_type"] as? String, !sourceTypes.contains(source) { problems.append("source_type \(source)") }
            if config["source_type"] as? String != "bluetooth_le" { problems.append("source_type should be bluetooth_le") }
            if config["payload_home"] as? String != "home" || config["payload_not_home"] as? String != "not_home" { problems.append("home payloads") }
        }
        if component == "sensor" {
            if let stateClass = config["state_class"] as? String, !stateClasses.contains(stateClass) { problems.append("state_class \(stateClass)") }
            if let deviceClass = config["device_class"] as? String {
                guard let units = units[deviceClass] else { return problems + ["device_class \(deviceClass) unexpected"] }
                let unit = config["unit_of_measurement"] as? String
                switch (units, unit) {
                case let (allowed?, unit?): if !allowed.contains(unit) { problems.append("unit \(unit) for \(deviceClass)") }
                case (nil, nil): break
                case (nil, _?): problems.append("\(deviceClass) takes no unit")
                case (_?, nil): problems.append("\(deviceClass) needs a unit")
                }
                if deviceClass == "enum", (config["options"] as? [String])?.isEmpty != false { problems.append("enum without options") }
                if deviceClass == "enum" || deviceClass == "timestamp", config["state_class"] != nil { problems.append("\(deviceClass) with a state_class") }
            }
            if let template = config["value_template"] as? String, !(template.hasPrefix("{{") && template.hasSuffix("}}")) {
                problems.append("value_template is not a template")
            }
        }
        return problems
    }
}
