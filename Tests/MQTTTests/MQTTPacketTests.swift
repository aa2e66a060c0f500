import Testing
@testable import MQTT

/// The packet codec against byte sequences written out from the MQTT 3.1.1 standard.
@Suite struct MQTTPacketTests {
    @Test func remainingLengthUsesOneToFourBytes() {
        // The boundaries of OASIS MQTT 3.1.1 table 2.4.
        #expect(MQTTRemainingLength.encode(0) == [0x00])
        #expect(MQTTRemainingLength.encode(127) == [0x7F])
        #expect(MQTTRemainingLength.encode(128) == [0x80, 0x01])
        #expect(MQTTRemainingLength.encode(16_383) == [0xFF, 0x7F])
        #expect(MQTTRemainingLength.encode(16_384) == [0x80, 0x80, 0x01])
        #expect(MQTTRemainingLength.encode(2_097_152) == [0x80, 0x80, 0x80, 0x01])
        #expect(MQTTRemainingLength.encode(268_435_455) == [0xFF, 0xFF, 0xFF, 0x7F])
    }

    @Test func connectCarriesCredentialsWillAndKeepAlive() throws {
        let will = MQTTMessage(topic: "bb/s/status", text: "offline", qos: .atLeastOnce, retain: true)
        let connect = MQTTPacket.connect(MQTTConnect(clientID: "c1", cleanSession: true, keepAlive: 30, username: "u", password: Array("p".utf8), will: will))
        let expected: [UInt8] = [0x10, 42,
                                 0, 4, 0x4D, 0x51, 0x54, 0x54, 4,
                                 0b1110_1110, 0, 30,
                                 0, 2, 0x63, 0x31,
                                 0, 11] + Array("bb/s/status".utf8) + [0, 7] + Array("offline".utf8) + [0, 1, 0x75, 0, 1, 0x70]
        #expect(connect.encode() == expected)
        #expect(try MQTTPacketParser.parse(expected[...])?.packet == connect)
    }

    @Test func publishQoS1HasPacketIDAndFlags() throws {
        let message = MQTTMessage(topic: "a/b", payload: [1, 2, 3], qos: .atLeastOnce, retain: true)
        let packet = MQTTPacket.publish(MQTTPublish(message: message, packetID: 10, duplicate: true))
        let bytes = packet.encode()
        #expect(bytes == [0x3B, 10, 0, 3, 0x61, 0x2F, 0x62, 0, 10, 1, 2, 3])
        let parsed = try #require(try MQTTPacketParser.parse(bytes[...]))
        #expect(parsed.packet == packet && parsed.length == bytes.count)
        let qos0 = MQTTPacket.publish(MQTTPublish(message: MQTTMessage(topic: "t", payload: [], qos: .atMostOnce), packetID: nil))
        #expect(qos0.encode() == [0x30, 3, 0, 1, 0x74])
    }

    @Test func brokerPacketsDecode() throws {
        #expect(try MQTTPacketParser.parse([0x20, 2, 0, 0][...])?.packet == .connack(sessionPresent: false, returnCode: .accepted))
        #expect(try MQTTPacketParser.parse([0x20, 2, 1, 4][...])?.packet == .connack(sessionPresent: true, returnCode: .badUsernameOrPassword))
        #expect(try MQTTPacketParser.parse([0x40, 2, 0x12, 0x34][...])?.packet == .puback(packetID: 0x1234))
        #expect(try MQTTPacketParser.parse([0xD0, 0][...])?.packet == .pingresp)
        #expect(MQTTPacket.pingreq.encode() == [0xC0, 0])
        #expect(MQTTPacket.disconnect.encode() == [0xE0, 0])
    }

    @Test func incompleteInputAsksForMore() throws {
        let bytes = MQTTPacket.publish(MQTTPublish(message: MQTTMessage(topic: "x", payload: Array(repeating: 7, count: 300)), packetID: 5)).encode()
        for cut in 0..<bytes.count { #expect(try MQTTPacketParser.parse(bytes[..<cut]) == nil) }
        // Two packets back to back: the first is taken, its length tells where the second starts.
        let both = MQTTPacket.pingresp.encode() + MQTTPacket.puback(packetID: 1).encode()
        let first = try #require(try MQTTPacketParser.parse(both[...]))
        #expect(first.packet == .pingresp && first.length == 2)
        #expect(try MQTTPacketParser.parse(both[first.length...])?.packet == .puback(packetID: 1))
    }

    @Test(arguments: [
        ([0x20, 3, 0, 0, 0], "longer than its contents"),
        ([0x22, 2, 0, 0], "reserved flags"),
        ([0x20, 2, 2, 0], "reserved flags"),
        ([0x40, 1, 0], "ends early"),
        ([0x36, 5, 0, 1, 0x74, 0, 1], "QoS 3"),
        ([0x32, 5, 0, 1, 0x74, 0, 0], "packet id 0"),
        ([0x38, 3, 0, 1, 0x74], "DUP"),
        ([0x30, 4, 0, 2, 0xC3, 0x28], "UTF-8"),
        ([0x30, 3, 0, 1, 0x23], "invalid topic"),
        ([0x50, 2, 0, 1], "unsupported packet type 5"),
        ([0x00, 0], "unsupported packet type 0"),
        ([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], "longer than 4 bytes"),
        ([0x30, 0xFF, 0xFF, 0xFF, 0x7F], "larger than"),
    ] as [([UInt8], String)])
    func malformedPacketsAreRefusedWithAReason(bytes: [UInt8], reason: String) {
        #expect {
            _ = try MQTTPacketParser.parse(bytes[...])
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
