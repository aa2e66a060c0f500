/// Why bytes from the broker are not an MQTT 3.1.1 packet a client may receive.
public struct MQTTProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Bytes → packets. Pure and total: any input gives a packet, "need more bytes", or an error,
/// never a crash, so a confused or hostile broker costs a reconnect and nothing more.
public enum MQTTPacketParser {
    /// Larger packets are refused before they are buffered; a sentinel receives only acks.
    public static let defaultMaximumPacketSize = 1 << 20

    /// The first complete packet at the start of `bytes` and how many bytes it took, or nil
    /// when more bytes are needed.
    public static func parse(_ bytes: ArraySlice<UInt8>, maximumPacketSize: Int = defaultMaximumPacketSize) throws(MQTTProtocolError)
        -> (packet: MQTTPacket, length: Int)? {
        guard let first = bytes.first else { return nil }
        // An unknown type is refused at once, not after waiting for the length it claims.
        guard MQTTPacket.Kind(rawValue: first >> 4) != nil else { throw MQTTProtocolError("unsupported packet type \(first >> 4)") }
        var length = 0
        var multiplier = 1
        var index = bytes.startIndex + 1
        while true {
            guard index < bytes.endIndex else { return nil }
            guard index - bytes.startIndex <= 4 else { throw MQTTProtocolError("remaining length longer than 4 bytes") }
            let byte = bytes[index]
            length += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            index += 1
            if byte & 0x80 == 0 { break }
        }
        guard length <= maximumPacketSize else {
            throw MQTTProtocolError("packet of \(length) bytes is larger than the \(maximumPacketSize) accepted")
        }
        guard bytes.endIndex - index >= length else { return nil }
        let body = bytes[index..<index + length]
        let packet = try decode(first: first, body: body)
        return (packet, index + length - bytes.startIndex)
    }

    static func decode(first: UInt8, body: ArraySlice<UInt8>) throws(MQTTProtocolError) -> MQTTPacket {
        let flags = first & 0x0F
        guard let kind = MQTTPacket.Kind(rawValue: first >> 4) else {
            throw MQTTProtocolError("unsupported packet type \(first >> 4)")
        }
        var reader = Reader(body)
        let packet: MQTTPacket
        switch kind {
        case .publish:
            let qosBits = (flags >> 1) & 0x03
            guard let qos = MQTTQoS(rawValue: qosBits) else { throw MQTTProtocolError("PUBLISH with QoS \(qosBits), which this client does not speak") }
            let duplicate = flags & 0x08 != 0
            guard qos != .atMostOnce || !duplicate else { throw MQTTProtocolError("PUBLISH QoS 0 with the DUP flag") }
            let topic = try reader.string()
            guard !topic.isEmpty, !topic.contains("+"), !topic.contains("#") else { throw MQTTProtocolError("PUBLISH to an invalid topic name") }
            var id: UInt16?
            if qos != .atMostOnce {
                let value = try reader.uint16()
                guard value != 0 else { throw MQTTProtocolError("PUBLISH with packet id 0") }
                id = value
            }
            let message = MQTTMessage(topic: topic, payload: Array(reader.rest()), qos: qos, retain: flags & 0x01 != 0)
            return .publish(MQTTPublish(message: message, packetID: id, duplicate: duplicate))
        case .connect:
            try expect(flags: flags, 0, kind)
            packet = .connect(try connect(&reader))
        case .connack:
            try expect(flags: flags, 0, kind)
            let acknowledge = try reader.byte()
            guard acknowledge & 0xFE == 0 else { throw MQTTProtocolError("CONNACK with reserved flags set") }
            packet = .connack(sessionPresent: acknowledge == 1, returnCode: MQTTConnectReturnCode(code: try reader.byte()))
        case .puback:
            try expect(flags: flags, 0, kind)
            packet = .puback(packetID: try reader.uint16())
        case .pingreq:
            try expect(flags: flags, 0, kind)
            packet = .pingreq
        case .pingresp:
            try expect(flags: flags, 0, kind)
            packet = .pingresp
        case .disconnect:
            try expect(flags: flags, 0, kind)
            packet = .disconnect
        }
        guard reader.isAtEnd else { throw MQTTProtocolError("\(kind) packet longer than its contents") }
        return packet
    }

    private static func expect(flags: UInt8, _ expected: UInt8, _ kind: MQTTPacket.Kind) throws(MQTTProtocolError) {
        guard flags == expected else { throw MQTTProtocolError("\(kind) packet with reserved flags \(flags)") }
    }

    private static func connect(_ reader: inout Reader) throws(MQTTProtocolError) -> MQTTConnect {
        guard try reader.string() == "MQTT", try reader.byte() == 4 else { throw MQTTProtocolError("CONNECT for another protocol version") }
        let flags = try reader.byte()
        guard flags & 0x01 == 0 else { throw MQTTProtocolError("CONNECT with the reserved flag set") }
        let keepAlive = try reader.uint16()
        let clientID = try reader.string()
        var will: MQTTMessage?
        if flags & 0x04 != 0 {
            guard let qos = MQTTQoS(rawValue: (flags >> 3) & 0x03) else { throw MQTTProtocolError("CONNECT with a will QoS this client does not speak") }
            will = MQTTMessage(topic: try reader.string(), payload: Array(try reader.binary()), qos: qos, retain: flags & 0x20 != 0)
        } else if flags & 0x38 != 0 {
            throw MQTTProtocolError("CONNECT with will QoS or retain but no will")
        }
        let username = flags & 0x80 != 0 ? try reader.string() : nil
        let password = flags & 0x40 != 0 ? Array(try reader.binary()) : nil
        return MQTTConnect(clientID: clientID, cleanSession: flags & 0x02 != 0, keepAlive: keepAlive, username: username,
                           password: password, will: will)
    }

    /// Reads big-endian integers and length-prefixed strings from a packet's body.
    private struct Reader {
        var bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        var isAtEnd: Bool { bytes.isEmpty }

        mutating func byte() throws(MQTTProtocolError) -> UInt8 {
            guard let value = bytes.popFirst() else { throw MQTTProtocolError("packet ends early") }
            return value
        }

        mutating func uint16() throws(MQTTProtocolError) -> UInt16 {
            UInt16(try byte()) << 8 | UInt16(try byte())
        }

        mutating func binary() throws(MQTTProtocolError) -> ArraySlice<UInt8> {
            let count = Int(try uint16())
            guard bytes.count >= count else { throw MQTTProtocolError("packet ends inside a string") }
            defer { bytes = bytes.dropFirst(count) }
            return bytes.prefix(count)
        }

        mutating func string() throws(MQTTProtocolError) -> String {
            let raw = try binary()
            guard let text = String(validating: raw, as: UTF8.self), !text.unicodeScalars.contains("\u{0}") else {
                throw MQTTProtocolError("string that is not valid UTF-8")
            }
            return text
        }

        mutating func rest() -> ArraySlice<UInt8> {
            defer { bytes = [] }
            return bytes
        }
    }
}
