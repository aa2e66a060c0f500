#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MQTT

/// The `mqtt:` section of the sentinel config: where to publish and in which dialects.
public struct MQTTSettings: Equatable, Sendable {
    /// `mqtt://user:pass@host:1883` or `mqtts://…`.
    public var url: String
    /// Topic root of this sentinel's own topics: `<prefix>/<name>/…`.
    public var prefix = "bikebeacon"
    /// Home Assistant's discovery prefix; empty: no discovery messages.
    public var discovery = "homeassistant"
    /// Also publish ESPresense-compatible `espresense/devices/<id>/<room>` messages.
    public var espresense = false
    /// This sentinel's node id in topics and its Home Assistant device; defaults to the host name.
    public var name: String
    /// PEM file of the CA that signed the broker's certificate (mqtts:// with a private CA).
    public var caFile: String?
    /// A roaming sentinel also publishes its own position (a Home Assistant device_tracker). Off by
    /// default: whoever reads the broker would see where the van, bus or courier is.
    public var publishLocation = false

    public init(url: String, name: String = MQTTSettings.defaultName()) {
        self.url = url
        self.name = name
    }

    /// The host name as a topic level: lower case letters, digits, `_` and `-`.
    public static func defaultName() -> String {
        MQTTTopics.slug(ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "sentinel")
    }

    init(file: SentinelConfiguration.File.MQTT) {
        self.init(url: file.url, name: file.name ?? Self.defaultName())
        prefix = file.prefix ?? prefix
        discovery = file.discovery ?? discovery
        espresense = file.espresense ?? espresense
        caFile = file.caFile
        publishLocation = file.publishLocation ?? publishLocation
    }

    /// The same settings with another broker URL (`--mqtt-url`, `BIKEBEACON_MQTT_URL`).
    public func with(url: String) -> MQTTSettings {
        var copy = self
        copy.url = url
        return copy
    }

    public var broker: MQTTBrokerAddress? { MQTTBrokerAddress(url: url) }

    /// `bikes`: the own bikes, whose names become topic levels and must stay apart there.
    func validate(bikes: [OwnBike]) throws {
        let slugs = Dictionary(grouping: bikes.map(\.name), by: MQTTTopics.slug)
        if let clash = slugs.values.first(where: { $0.count > 1 }) {
            throw ConfigurationError.invalid("own bikes \(clash.map { "'\($0)'" }.joined(separator: " and ")) would share MQTT topics; name them apart in letters or digits")
        }
        guard broker != nil else {
            throw ConfigurationError.invalid("mqtt.url '\(MQTTBrokerAddress.redacted(url))' must be mqtt://[user:pass@]host[:port] or mqtts://…")
        }
        for (key, value) in [("mqtt.prefix", prefix), ("mqtt.name", name)] where value.isEmpty || value.contains(where: { "+#/".contains($0) }) {
            throw ConfigurationError.invalid("\(key) '\(value)' must be a non-empty topic level without +, # or /")
        }
        if discovery.contains(where: { "+#".contains($0) }) {
            throw ConfigurationError.invalid("mqtt.discovery '\(discovery)' must not contain + or #")
        }
    }
}
