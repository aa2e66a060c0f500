import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import MQTT
import TestSupport

/// What mosquitto never does, played by a scripted peer (a fake, because no real broker sends
/// malformed packets, withholds a PUBACK or stops answering pings on demand): the client must
/// reconnect cleanly, with a log line, and send the unacknowledged QoS 1 message again with DUP.
@Suite struct MisbehavingBrokerTests {
    /// Per connection: what the client sent, and the script's choice of answer.
    final class Script: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let record: Record
        var buffer: [UInt8] = []
        var connection = 0

        init(record: Record) { self.record = record }

        func channelActive(context: ChannelHandlerContext) {
            connection = record.newConnection()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            buffer += Array(unwrapInboundIn(data).readableBytesView)
            while let (packet, length) = try? MQTTPacketParser.parse(buffer[...]) {
                buffer.removeFirst(length)
                record.received(packet, connection: connection)
                answer(packet, context: context)
            }
        }

        private func answer(_ packet: MQTTPacket, context: ChannelHandlerContext) {
            func send(_ bytes: [UInt8]) { context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: bytes)), promise: nil) }
            switch (packet, connection) {
            case (.connect, _):
                send(MQTTPacket.connack(sessionPresent: connection > 1, returnCode: .accepted).encode())
            case (.publish, 1):
                // The first connection dies before the broker acknowledges anything.
                context.close(promise: nil)
            case let (.publish(publish), 2):
                if let id = publish.packetID { send(MQTTPacket.puback(packetID: id).encode()) }
                // Then garbage: an unknown packet type with a remaining length that lies.
                send([0x50, 0x7F, 0x01])
            case let (.publish(publish), _):
                if let id = publish.packetID { send(MQTTPacket.puback(packetID: id).encode()) }
            case (.pingreq, 3):
                // The third connection goes silent: the client must notice and reconnect.
                break
            case (.pingreq, _):
                send(MQTTPacket.pingresp.encode())
            default:
                break
            }
        }
    }

    final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private var connections = 0
        private var packets: [(Int, MQTTPacket)] = []

        func newConnection() -> Int {
            lock.lock()
            defer { lock.unlock() }
            connections += 1
            return connections
        }

        func received(_ packet: MQTTPacket, connection: Int) {
            lock.lock()
            packets.append((connection, packet))
            lock.unlock()
        }

        func pings(connection: Int) -> Int {
            lock.lock()
            defer { lock.unlock() }
            return packets.filter { $0.0 == connection && $0.1 == .pingreq }.count
        }

        func publishes(connection: Int) -> [MQTTPublish] {
            lock.lock()
            defer { lock.unlock() }
            return packets.compactMap { number, packet in
                if case let .publish(publish) = packet, number == connection { return publish }
                return nil
            }
        }
    }

    @Test func malformedPacketsCostAReconnectAndUnackedMessagesComeAgainWithDUP() async throws {
        let record = Record()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Script(record: record)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let log = LogCapture()
        let address = MQTTBrokerAddress(host: "127.0.0.1", port: port, tls: false)
        var configuration = MQTTClientConfiguration(broker: address, clientID: "scripted") { _ in 0.1 }
        configuration.keepAlive = 1
        let client = MQTTClient(configuration: configuration, logger: log.logger())
        let running = Task { await client.run() }
        await client.publish(MQTTMessage(topic: "bike/state", text: "near", qos: .atLeastOnce, retain: true))
        // Generous: the first minute of a full test run on two cores can starve the client's tasks for tens of seconds.
        #expect(await client.flush(timeout: .seconds(90)))
        let first = try #require(record.publishes(connection: 1).first)
        let again = try #require(record.publishes(connection: 2).first)
        #expect(!first.duplicate && again.duplicate)
        #expect(again.packetID == first.packetID && again.message == first.message)
        // The garbage after the PUBACK ends connection 2 with a log line; a third one follows.
        #expect(try await eventually { await client.connections >= 3 })
        #expect(log.messages.contains { $0.contains("malformed packet") && $0.contains("unsupported packet type 5") })
        await client.publish(MQTTMessage(topic: "bike/state", text: "far", retain: true))
        #expect(await client.flush(timeout: .seconds(30)))
        #expect(record.publishes(connection: 3).contains { $0.message.payload == Array("far".utf8) })
        // Keep-alive: PINGREQs go out when nothing else does; unanswered, they end the connection.
        #expect(try await eventually { await client.connections >= 4 })
        #expect(record.pings(connection: 3) >= 1)
        #expect(log.messages.contains { $0.contains("stopped answering pings") })
        running.cancel()
        await running.value
        try await server.close()
    }
}
