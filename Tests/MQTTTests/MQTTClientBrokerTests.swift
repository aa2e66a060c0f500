import Foundation
import Testing
import TestSupport
@testable import MQTT

/// The client against a real mosquitto on loopback: password log-in, last will, retained
/// QoS 0 / 1 messages, TLS, and reconnecting after the broker restarts.
@Suite(.serialized) struct MQTTClientBrokerTests {
    static func configuration(_ broker: Mosquitto, url: String? = nil) throws -> MQTTClientConfiguration {
        let address = try #require(MQTTBrokerAddress(url: url ?? broker.url))
        var configuration = MQTTClientConfiguration(broker: address, clientID: "test-\(UUID().uuidString.prefix(8))") { _ in 0.2 }
        configuration.keepAlive = 5
        configuration.will = MQTTMessage(topic: "t/status", text: "offline", retain: true)
        configuration.birth = [MQTTMessage(topic: "t/status", text: "online", retain: true)]
        configuration.farewell = [MQTTMessage(topic: "t/status", text: "offline", qos: .atMostOnce, retain: true)]
        configuration.trustRootsFile = broker.caFile
        return configuration
    }

    static func status(_ broker: Mosquitto) async throws -> String? {
        try await broker.retained("t/status").last?.payload
    }

    @Test func logsInPublishesAndSaysGoodbye() async throws {
        let broker = try await Mosquitto.started()
        let client = MQTTClient(configuration: try Self.configuration(broker))
        let running = Task { await client.run() }
        await client.publish([MQTTMessage(topic: "t/state", text: #"{"zone":"near"}"#, retain: true),
                              MQTTMessage(topic: "t/zero", text: "0", qos: .atMostOnce, retain: true)])
        #expect(await client.flush(timeout: .seconds(30)))
        let retained = try await broker.retained()
        #expect(retained.contains(.init(retained: true, topic: "t/state", payload: #"{"zone":"near"}"#)))
        #expect(retained.contains(.init(retained: true, topic: "t/zero", payload: "0")))
        // A connection dropped under load makes the broker publish the will; the reconnect then sends the birth again.
        #expect(try await eventually(within: 60, every: .milliseconds(500)) { try await Self.status(broker) == "online" })
        running.cancel()
        await running.value
        #expect(try await Self.status(broker) == "offline")
    }

    @Test func aWrongPasswordIsRefusedWithAReasonAndRetried() async throws {
        let broker = try await Mosquitto.started()
        let log = LogCapture()
        let url = "mqtt://\(Mosquitto.username):wrong@127.0.0.1:\(broker.port)"
        let client = MQTTClient(configuration: try Self.configuration(broker, url: url), logger: log.logger())
        let running = Task { await client.run() }
        let refusedTwice = try await eventually { log.messages.filter { $0.contains("refused the connection") && $0.contains("notAuthorized") }.count >= 2 }
        #expect(refusedTwice)
        #expect(await !client.isConnected)
        #expect(log.messages.contains { $0.contains("reconnecting to the MQTT broker") })
        // The log names the broker but never the password.
        #expect(!log.messages.contains { $0.contains("wrong") })
        running.cancel()
        await running.value
    }

    @Test func reconnectsAfterTheBrokerRestartsAndDeliversWhatWaited() async throws {
        let broker = try await Mosquitto.started()
        let log = LogCapture()
        let client = MQTTClient(configuration: try Self.configuration(broker), logger: log.logger())
        let running = Task { await client.run() }
        #expect(await client.flush(timeout: .seconds(30)))
        let port = broker.port
        broker.stop()
        #expect(try await eventually { await !client.isConnected })
        await client.publish(MQTTMessage(topic: "t/while-down", text: "kept", retain: true))
        #expect(await !client.flush(timeout: .milliseconds(300)))
        try await broker.start(port: port)
        #expect(await client.flush(timeout: .seconds(30)))
        #expect(await client.connections == 2)
        // The restarted broker remembers nothing: what it holds came over the new connection.
        let retained = try await broker.retained()
        #expect(retained.contains(.init(retained: true, topic: "t/while-down", payload: "kept")))
        #expect(retained.contains(.init(retained: true, topic: "t/status", payload: "online")))
        #expect(log.messages.contains { $0.contains("closed the connection") })
        running.cancel()
        await running.value
    }

    @Test func mqttsWithAPrivateCA() async throws {
        let broker = try await Mosquitto.started(tls: true)
        let client = MQTTClient(configuration: try Self.configuration(broker))
        let running = Task { await client.run() }
        await client.publish(MQTTMessage(topic: "t/tls", text: "sealed", retain: true))
        #expect(await client.flush(timeout: .seconds(30)))
        #expect(try await broker.retained("t/tls").map(\.payload) == ["sealed"])
        running.cancel()
        await running.value
    }

    @Test func aCertificateFromAnotherCAIsRefused() async throws {
        let broker = try await Mosquitto.started(tls: true)
        let log = LogCapture()
        var configuration = try Self.configuration(broker)
        configuration.trustRootsFile = nil
        let client = MQTTClient(configuration: configuration, logger: log.logger())
        let running = Task { await client.run() }
        #expect(try await eventually { log.messages.contains { $0.contains("reconnecting to the MQTT broker") } })
        #expect(await !client.isConnected)
        running.cancel()
        await running.value
    }
}
