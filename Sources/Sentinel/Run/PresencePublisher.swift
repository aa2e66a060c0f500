import Beacon
import MQTT
import Proximity

/// Home Assistant's view of the bikes here: each step's presence and ESPresense readings, published to the
/// broker when they change.
struct PresencePublisher {
    private var presence: MQTTPresence
    private let send: @Sendable ([MQTTMessage]) async -> Void

    init(mqtt: MQTTBridge) {
        self.init(presence: mqtt.presence()) { await mqtt.client.publish($0) }
    }

    init(presence: MQTTPresence, publish: @escaping @Sendable ([MQTTMessage]) async -> Void) {
        self.presence = presence
        self.send = publish
    }

    /// What the core's time is moved by to become a wall-clock stamp now.
    var stampShift: Double {
        get { presence.stampShift }
        set { presence.stampShift = newValue }
    }

    /// One step's output; `advertisement`: the one it came from, if any, with the core's `estimate` of its tag.
    mutating func publish(advertisement: Advertisement?, estimate: ProximityEstimate?, output: SentinelCore.Output, time: Double) async {
        let messages = presence.step(advertisement: advertisement, estimate: estimate, output: output, time: time)
        if !messages.isEmpty { await send(messages) }
    }
}
