/// The client's memory across connections (3.1.1 §4.4): messages waiting for a connection and
/// QoS 1 messages sent but not yet acknowledged, which go out again with DUP after a reconnect,
/// and the last retained message of each topic, sent again after every reconnect because a
/// broker restarted without persistence has forgotten them. Pure: the connection edge asks it
/// what to send.
public struct MQTTSession: Sendable {
    /// Waiting and unacknowledged messages kept at most; the oldest waiting ones go first.
    public let capacity: Int
    public private(set) var waiting: [MQTTMessage] = []
    public private(set) var inFlight: [MQTTPublish] = []
    /// Messages given up because the broker was away too long.
    public private(set) var dropped = 0
    private var nextID: UInt16 = 1
    /// The last retained message per topic, in the order topics were first published.
    private var retained: [String: MQTTMessage] = [:]
    private var retainedOrder: [String] = []

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    public var isIdle: Bool { waiting.isEmpty && inFlight.isEmpty }

    /// Queues a message. A retained message replaces a waiting one for the same topic: the
    /// broker would keep only the last anyway.
    public mutating func enqueue(_ message: MQTTMessage) {
        if message.retain {
            if retained.updateValue(message, forKey: message.topic) == nil { retainedOrder.append(message.topic) }
        }
        if message.retain, let index = waiting.lastIndex(where: { $0.topic == message.topic && $0.retain }) {
            waiting.remove(at: index)
        }
        waiting.append(message)
        let excess = waiting.count + inFlight.count - capacity
        if excess > 0 {
            let removed = min(excess, waiting.count)
            waiting.removeFirst(removed)
            dropped += removed
        }
    }

    /// After CONNACK: the unacknowledged messages again (DUP set), the retained ones not among
    /// them or waiting, then everything waiting.
    public mutating func resume() -> [MQTTPublish] {
        inFlight = inFlight.map { MQTTPublish(message: $0.message, packetID: $0.packetID, duplicate: true) }
        let pending = Set(inFlight.map(\.message.topic) + waiting.map(\.topic))
        waiting.insert(contentsOf: retainedOrder.filter { !pending.contains($0) }.compactMap { retained[$0] }, at: 0)
        return inFlight + drain()
    }

    /// While connected: the waiting messages as PUBLISH packets, QoS 1 ones now in flight.
    public mutating func drain() -> [MQTTPublish] {
        defer { waiting.removeAll(keepingCapacity: true) }
        return waiting.map { message in
            guard message.qos == .atLeastOnce else { return MQTTPublish(message: message, packetID: nil) }
            let publish = MQTTPublish(message: message, packetID: takeID())
            inFlight.append(publish)
            return publish
        }
    }

    /// PUBACK: the broker has the message. Returns false for an id nothing waits for.
    @discardableResult
    public mutating func acknowledge(_ id: UInt16) -> Bool {
        guard let index = inFlight.firstIndex(where: { $0.packetID == id }) else { return false }
        inFlight.remove(at: index)
        return true
    }

    /// Ids are 1…65535 and never reused while in flight.
    private mutating func takeID() -> UInt16 {
        while true {
            let id = nextID
            nextID = nextID == UInt16.max ? 1 : nextID + 1
            if !inFlight.contains(where: { $0.packetID == id }) { return id }
        }
    }
}
