import Benchmarks
import Testing
@testable import MQTT
import TestSupport

/// Whatever a broker sends, the parser gives a packet, "need more" or an error: never a trap or
/// a loop. Inputs are random bytes and mutations of real packets (the bytes mosquitto sends a
/// publishing client: CONNACK, PUBACK, PINGRESP, and a PUBLISH as a subscriber gets it).
@Suite struct MQTTFuzzTests {
    static let seeds: [[UInt8]] = [
        MQTTPacket.connack(sessionPresent: false, returnCode: .accepted),
        .connack(sessionPresent: true, returnCode: .notAuthorized),
        .puback(packetID: 1),
        .puback(packetID: 0xBEEF),
        .pingresp,
        .publish(MQTTPublish(message: MQTTMessage(topic: "bikebeacon/garage/status", text: "online", retain: true), packetID: 7)),
        .publish(MQTTPublish(message: MQTTMessage(topic: "homeassistant/sensor/garage/commuter_distance/config",
                                                  text: #"{"name":"commuter distance","unit_of_measurement":"m"}"#, qos: .atMostOnce), packetID: nil)),
        .connect(MQTTConnect(clientID: "bikebeacon-garage", cleanSession: false, keepAlive: 30, username: "u", password: [1, 2],
                             will: MQTTMessage(topic: "w", text: "offline", retain: true))),
    ].map { $0.encode() }

    @Test(.cpuBound) func randomAndMutatedInputsNeverTrap() throws {
        var rng = SplitMix64(seed: 0x4D51_5454)
        var outcomes = (packets: 0, incomplete: 0, errors: 0)
        for round in 0..<300_000 {
            let input = round % 2 == 0 ? Self.random(&rng) : Self.mutated(&rng)
            do {
                if let (packet, length) = try MQTTPacketParser.parse(input[...]) {
                    outcomes.packets += 1
                    try #require(length > 0 && length <= input.count)
                    // What parses is a packet this client can write again and read back unchanged.
                    try #require(try MQTTPacketParser.parse(packet.encode()[...])?.packet == packet)
                } else {
                    outcomes.incomplete += 1
                }
            } catch {
                outcomes.errors += 1
            }
        }
        // The mutator keeps many inputs whole, so every outcome must really occur.
        #expect(outcomes.packets > 20_000)
        #expect(outcomes.incomplete > 20_000)
        #expect(outcomes.errors > 20_000)
    }

    /// A stream of seeds and noise, read the way the channel's frame decoder reads it, always
    /// moves forward and stops at the first error.
    @Test func streamsAlwaysMakeProgress() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                stream += Bool.random(using: &rng) ? Self.seeds.randomElement(using: &rng) ?? [] : Self.mutated(&rng)
            }
            var offset = 0
            while offset < stream.count {
                guard let parsed = try? MQTTPacketParser.parse(stream[offset...]) else { break }
                offset += parsed.length
            }
            #expect(offset <= stream.count)
        }
    }

    static func random(_ rng: inout SplitMix64) -> [UInt8] {
        var bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        if !bytes.isEmpty, Bool.random(using: &rng) {
            // A plausible first byte and a small length reach past the header checks.
            bytes[0] = [0x20, 0x30, 0x32, 0x33, 0x40, 0xD0, 0x10].randomElement(using: &rng) ?? 0
            if bytes.count > 1 { bytes[1] = UInt8(Int.random(in: 0...min(bytes.count, 127), using: &rng)) }
        }
        return bytes
    }

    static func mutated(_ rng: inout SplitMix64) -> [UInt8] {
        var bytes = seeds.randomElement(using: &rng) ?? []
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            case 1: bytes[index] = UInt8.random(in: 0...255, using: &rng)
            case 2: bytes.remove(at: index)
            case 3: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: index)
            default: bytes = Array(bytes.prefix(index))
            }
        }
        return bytes
    }
}
