extension MQTTPacket {
    /// The packet's bytes: fixed header, remaining length, variable header, payload (3.1.1 §2).
    public func encode() -> [UInt8] {
        var body: [UInt8] = []
        let first: UInt8
        switch self {
        case let .connect(connect):
            first = Kind.connect.rawValue << 4
            body.appendString("MQTT")
            body.append(4) // protocol level 3.1.1
            var flags: UInt8 = 0
            if connect.username != nil { flags |= 0x80 }
            if connect.password != nil { flags |= 0x40 }
            if let will = connect.will {
                flags |= 0x04 | will.qos.rawValue << 3
                if will.retain { flags |= 0x20 }
            }
            if connect.cleanSession { flags |= 0x02 }
            body.append(flags)
            body.appendUInt16(connect.keepAlive)
            body.appendString(connect.clientID)
            if let will = connect.will {
                body.appendString(will.topic)
                body.appendBinary(will.payload)
            }
            if let username = connect.username { body.appendString(username) }
            if let password = connect.password { body.appendBinary(password) }
        case let .connack(sessionPresent, returnCode):
            first = Kind.connack.rawValue << 4
            body = [sessionPresent ? 1 : 0, returnCode.code]
        case let .publish(publish):
            let message = publish.message
            first = Kind.publish.rawValue << 4 | (publish.duplicate ? 0x08 : 0) | message.qos.rawValue << 1 | (message.retain ? 1 : 0)
            body.appendString(message.topic)
            if let id = publish.packetID { body.appendUInt16(id) }
            body += message.payload
        case let .puback(id):
            first = Kind.puback.rawValue << 4
            body.appendUInt16(id)
        case .pingreq: first = Kind.pingreq.rawValue << 4
        case .pingresp: first = Kind.pingresp.rawValue << 4
        case .disconnect: first = Kind.disconnect.rawValue << 4
        }
        return [first] + MQTTRemainingLength.encode(body.count) + body
    }
}

/// The remaining-length field: 7 bits a byte, least significant first, at most 4 bytes (2.2.3).
public enum MQTTRemainingLength {
    public static let maximum = 268_435_455

    public static func encode(_ length: Int) -> [UInt8] {
        precondition((0...maximum).contains(length), "MQTT packets hold at most 256 MiB")
        var value = length
        var bytes: [UInt8] = []
        repeat {
            var byte = UInt8(value % 128)
            value /= 128
            if value > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value > 0
        return bytes
    }
}

extension [UInt8] {
    mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    mutating func appendBinary(_ bytes: [UInt8]) {
        appendUInt16(UInt16(Swift.min(bytes.count, Int(UInt16.max))))
        self += bytes.prefix(Int(UInt16.max))
    }

    mutating func appendString(_ string: String) { appendBinary(Array(string.utf8)) }
}
