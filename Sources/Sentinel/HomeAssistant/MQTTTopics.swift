/// Where a sentinel publishes: its own topics under `<prefix>/<node>/`, Home Assistant's
/// discovery topics, and ESPresense's.
public struct MQTTTopics: Equatable, Sendable {
    public var prefix: String
    public var node: String
    /// Empty: no Home Assistant discovery.
    public var discovery: String

    public init(prefix: String, node: String, discovery: String) {
        self.prefix = prefix
        self.node = node
        self.discovery = discovery
    }

    /// `online` / `offline` (the last will), retained: availability of every entity.
    public var status: String { "\(prefix)/\(node)/status" }
    /// How many missing bikes are in range now (a count, no identities).
    public var missingInRange: String { "\(prefix)/\(node)/missing_in_range" }
    /// `home` / `not_home`.
    public func presence(_ bike: String) -> String { "\(prefix)/\(node)/bikes/\(bike)/presence" }
    /// JSON: zone, distance, rssi, last_seen.
    public func state(_ bike: String) -> String { "\(prefix)/\(node)/bikes/\(bike)/state" }
    /// JSON: latitude, longitude, gps_accuracy of the sentinel itself (mqtt.publishLocation only).
    public var location: String { "\(prefix)/\(node)/location" }
    public func discoveryConfig(component: String, object: String) -> String { "\(discovery)/\(component)/\(node)/\(object)/config" }

    public static func espresenseDevice(id: String, room: String) -> String { "espresense/devices/\(id)/\(room)" }
    public static func espresenseRoomStatus(room: String) -> String { "espresense/rooms/\(room)/status" }

    /// A name as one topic level and Home Assistant object id: lower case ASCII letters, digits
    /// and `_`; anything else becomes `_`.
    public static func slug(_ name: String) -> String {
        let mapped = name.lowercased().unicodeScalars.map { scalar -> Character in
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" ? Character(scalar) : "_"
        }
        return mapped.isEmpty ? "_" : String(mapped)
    }
}
