/// The MQTT 3.1.1 control packets a publishing client sends and receives (OASIS standard,
/// section 3). Pure values: `encode` and `MQTTPacketParser` turn them into bytes and back.
public enum MQTTPacket: Equatable, Sendable {
    case connect(MQTTConnect)
    case connack(sessionPresent: Bool, returnCode: MQTTConnectReturnCode)
    case publish(MQTTPublish)
    case puback(packetID: UInt16)
    case pingreq
    case pingresp
    case disconnect

    /// The fixed header's packet type (high nibble of the first byte).
    enum Kind: UInt8 {
        case connect = 1, connack = 2, publish = 3, puback = 4, pingreq = 12, pingresp = 13, disconnect = 14
    }
}

public enum MQTTQoS: UInt8, Sendable, Comparable {
    case atMostOnce = 0
    case atLeastOnce = 1

    public static func < (a: MQTTQoS, b: MQTTQoS) -> Bool { a.rawValue < b.rawValue }
}

/// CONNECT (3.1): who we are, how long the broker waits for us, and what it says if we vanish.
public struct MQTTConnect: Equatable, Sendable {
    public var clientID: String
    public var cleanSession: Bool
    /// Seconds; the broker drops a client silent for 1.5 times this.
    public var keepAlive: UInt16
    public var username: String?
    public var password: [UInt8]?
    /// Published by the broker when the connection ends without DISCONNECT.
    public var will: MQTTMessage?

    public init(clientID: String, cleanSession: Bool, keepAlive: UInt16, username: String? = nil, password: [UInt8]? = nil,
                will: MQTTMessage? = nil) {
        self.clientID = clientID
        self.cleanSession = cleanSession
        self.keepAlive = keepAlive
        self.username = username
        self.password = password
        self.will = will
    }
}

/// CONNACK return codes (3.2.2.3); anything but `accepted` means the broker closes.
public enum MQTTConnectReturnCode: Equatable, Sendable {
    case accepted
    case unacceptableProtocolVersion
    case identifierRejected
    case serverUnavailable
    case badUsernameOrPassword
    case notAuthorized
    case reserved(UInt8)

    public init(code: UInt8) {
        switch code {
        case 0: self = .accepted
        case 1: self = .unacceptableProtocolVersion
        case 2: self = .identifierRejected
        case 3: self = .serverUnavailable
        case 4: self = .badUsernameOrPassword
        case 5: self = .notAuthorized
        default: self = .reserved(code)
        }
    }

    public var code: UInt8 {
        switch self {
        case .accepted: 0
        case .unacceptableProtocolVersion: 1
        case .identifierRejected: 2
        case .serverUnavailable: 3
        case .badUsernameOrPassword: 4
        case .notAuthorized: 5
        case let .reserved(code): code
        }
    }
}

/// What an application publishes: the part of a PUBLISH that survives a reconnect.
public struct MQTTMessage: Equatable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    /// The broker keeps the last retained message of a topic for every later subscriber.
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }
}

/// PUBLISH (3.3): a message on the wire, with its packet id (QoS 1) and redelivery flag.
public struct MQTTPublish: Equatable, Sendable {
    public var message: MQTTMessage
    /// Present exactly when QoS > 0.
    public var packetID: UInt16?
    /// Set when a QoS 1 message is sent again after a reconnect (3.3.1.1).
    public var duplicate: Bool

    public init(message: MQTTMessage, packetID: UInt16?, duplicate: Bool = false) {
        self.message = message
        self.packetID = packetID
        self.duplicate = duplicate
    }
}
