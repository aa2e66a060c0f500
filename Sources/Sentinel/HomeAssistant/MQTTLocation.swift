#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MQTT

/// The roaming sentinel's own position for its Home Assistant GPS tracker (`mqtt.publishLocation`).
/// Pure: the place in, at most one message out. Not retained, so the broker keeps no position
/// once the sentinel stops; nothing is sent without a fix.
struct MQTTLocation {
    /// Home Assistant's attribute names for a GPS device_tracker.
    struct Attributes: Encodable, Equatable {
        var latitude: Double
        var longitude: Double
        var gpsAccuracy: Double?
    }

    let topics: MQTTTopics
    private var lastSent: Attributes?

    init(topics: MQTTTopics) { self.topics = topics }

    /// The message for the fix now, or nil without a fix or when the position has not changed.
    mutating func step(_ place: SightingPlace) -> MQTTMessage? {
        guard case let .fix(fix) = place else { return nil }
        let attributes = Attributes(latitude: fix.latitude, longitude: fix.longitude, gpsAccuracy: fix.accuracy)
        guard attributes != lastSent else { return nil }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(attributes) else { return nil }
        lastSent = attributes
        return MQTTMessage(topic: topics.location, payload: Array(data), qos: .atMostOnce, retain: false)
    }
}
