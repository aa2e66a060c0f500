#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MQTT
import Proximity

/// Home Assistant MQTT discovery: the retained config messages that make one device per
/// sentinel with, per own bike, a `device_tracker` and sensors for distance, zone, RSSI and
/// last seen, plus the count of missing bikes in range, and (`publishLocation`) a GPS
/// `device_tracker` of the sentinel itself. Pure: bikes in, messages out.
public enum HomeAssistantDiscovery {
    /// One config message; keys as Home Assistant documents them (snake_case).
    struct Config: Encodable, Equatable {
        struct Device: Encodable, Equatable {
            var identifiers: [String]
            var name: String
            var manufacturer = "bikebeacon"
            var model = "bikebeacon sentinel"
            var swVersion = BikebeaconVersion.current
            /// Where the owner manages the bikes: the community server's dashboard.
            var configurationUrl: String?
        }

        var name: String
        var uniqueId: String
        /// Nil for the sentinel's GPS tracker, whose position comes from its JSON attributes.
        var stateTopic: String?
        var availabilityTopic: String
        var payloadAvailable = "online"
        var payloadNotAvailable = "offline"
        var device: Device
        var payloadHome: String?
        var payloadNotHome: String?
        var sourceType: String?
        var jsonAttributesTopic: String?
        var valueTemplate: String?
        var unitOfMeasurement: String?
        var deviceClass: String?
        var stateClass: String?
        var options: [String]?
        var icon: String?
    }

    /// The config messages for this sentinel and its own bikes, retained; `configurationURL` is
    /// the device's link in Home Assistant.
    public static func configs(topics: MQTTTopics, bikes: [OwnBike], publishLocation: Bool = false,
                               configurationURL: String? = nil) -> [MQTTMessage] {
        guard !topics.discovery.isEmpty else { return [] }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return entries(topics: topics, bikes: bikes, publishLocation: publishLocation, configurationURL: configurationURL).compactMap { topic, config in
            guard let data = try? encoder.encode(config) else { return nil }
            return MQTTMessage(topic: topic, payload: Array(data), qos: .atLeastOnce, retain: true)
        }
    }

    /// Every retained topic this sentinel owns for these bikes: configs and states. What was
    /// owned before and is not now gets an empty retained message, which removes it.
    public static func retainedTopics(topics: MQTTTopics, bikes: [OwnBike], publishLocation: Bool = false) -> Set<String> {
        var owned = Set(entries(topics: topics, bikes: bikes, publishLocation: publishLocation).map(\.topic))
        owned.insert(topics.missingInRange)
        for bike in bikes {
            owned.insert(topics.presence(MQTTTopics.slug(bike.name)))
            owned.insert(topics.state(MQTTTopics.slug(bike.name)))
        }
        return owned
    }

    /// Empty retained messages for topics published before and owned no more: the entities'
    /// configs, and the states to clear once Home Assistant has dropped those entities. A state
    /// emptied while its entity still listens reaches the entity's templates as an empty payload,
    /// which Home Assistant logs as an error.
    public static func removals(topics: MQTTTopics, previous: Set<String>, current: Set<String>)
        -> (entities: [MQTTMessage], states: [MQTTMessage]) {
        let gone = previous.subtracting(current).sorted()
        let isConfig = { (topic: String) in !topics.discovery.isEmpty && topic.hasPrefix(topics.discovery + "/") && topic.hasSuffix("/config") }
        func empty(_ topic: String) -> MQTTMessage { MQTTMessage(topic: topic, payload: [], qos: .atLeastOnce, retain: true) }
        return (gone.filter(isConfig).map(empty), gone.filter { !isConfig($0) }.map(empty))
    }

    static func entries(topics: MQTTTopics, bikes: [OwnBike], publishLocation: Bool = false,
                        configurationURL: String? = nil) -> [(topic: String, config: Config)] {
        guard !topics.discovery.isEmpty else { return [] }
        let node = topics.node
        let device = Config.Device(identifiers: ["bikebeacon_\(node)"], name: "bikebeacon \(node)", configurationUrl: configurationURL)
        func config(_ object: String, name: String, state: String) -> Config {
            Config(name: name, uniqueId: "bikebeacon_\(node)_\(object)", stateTopic: state,
                   availabilityTopic: topics.status, device: device)
        }
        var result: [(String, Config)] = []
        var missing = config("missing_in_range", name: "Missing bikes in range", state: topics.missingInRange)
        missing.stateClass = "measurement"
        missing.icon = "mdi:bicycle"
        result.append((topics.discoveryConfig(component: "sensor", object: "missing_in_range"), missing))
        if publishLocation {
            // Home Assistant places a GPS device_tracker from latitude, longitude and gps_accuracy in its attributes.
            var tracker = Config(name: "Location", uniqueId: "bikebeacon_\(node)_location", availabilityTopic: topics.status, device: device)
            tracker.sourceType = "gps"
            tracker.jsonAttributesTopic = topics.location
            tracker.icon = "mdi:bus"
            result.append((topics.discoveryConfig(component: "device_tracker", object: "location"), tracker))
        }
        for bike in bikes {
            let slug = MQTTTopics.slug(bike.name)
            let state = topics.state(slug)
            var tracker = config(slug, name: bike.name, state: topics.presence(slug))
            tracker.payloadHome = "home"
            tracker.payloadNotHome = "not_home"
            tracker.sourceType = "bluetooth_le"
            tracker.jsonAttributesTopic = state
            tracker.icon = "mdi:bike"
            result.append((topics.discoveryConfig(component: "device_tracker", object: slug), tracker))

            /// One sensor reading `field` from the bike's JSON state.
            func sensor(_ field: String, _ label: String, deviceClass: String, unit: String? = nil, measurement: Bool = false,
                        options: [String]? = nil) -> (String, Config) {
                var sensor = config("\(slug)_\(field)", name: "\(bike.name) \(label)", state: state)
                sensor.valueTemplate = "{{ value_json.\(field) }}"
                sensor.deviceClass = deviceClass
                sensor.unitOfMeasurement = unit
                sensor.stateClass = measurement ? "measurement" : nil
                sensor.options = options
                return (topics.discoveryConfig(component: "sensor", object: "\(slug)_\(field)"), sensor)
            }
            result.append(sensor("distance", "distance", deviceClass: "distance", unit: "m", measurement: true))
            result.append(sensor("zone", "zone", deviceClass: "enum", options: Zone.allCases.map(\.rawValue)))
            result.append(sensor("rssi", "RSSI", deviceClass: "signal_strength", unit: "dBm", measurement: true))
            result.append(sensor("last_seen", "last seen", deviceClass: "timestamp"))
        }
        return result
    }
}
