import Durable
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import TestSupport
@testable import GPSD

/// The client's connection handling against a scripted peer on loopback: gpsd's real output in
/// pieces, garbage between reports, the peer going away and coming back. (`GPSDRealDaemonTests`
/// runs the client against Debian's real gpsd fed by gpsfake.)
@Suite(.serialized) struct GPSDClientTests {
    /// Each connection gets the next script: byte chunks to send, then the connection is closed.
    final class ScriptedPeer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let scripts: NIOLockedValueBox<[[[UInt8]]]>
        let received: NIOLockedValueBox<[UInt8]>

        init(scripts: NIOLockedValueBox<[[[UInt8]]]>, received: NIOLockedValueBox<[UInt8]>) {
            self.scripts = scripts
            self.received = received
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
            received.withLockedValue { $0 += bytes }
            // gpsd answers the WATCH command; so does this peer, then hangs up.
            guard bytes.contains(UInt8(ascii: "\n")) else { return }
            let script = scripts.withLockedValue { $0.isEmpty ? [] : $0.removeFirst() }
            for chunk in script { context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: chunk)), promise: nil) }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0))).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
    }

    static func serve(_ scripts: [[[UInt8]]]) async throws -> (any Channel, NIOLockedValueBox<[UInt8]>) {
        let box = NIOLockedValueBox(scripts)
        let received = NIOLockedValueBox<[UInt8]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptedPeer(scripts: box, received: received))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (channel, received)
    }

    final class Positions: Sendable {
        let box = NIOLockedValueBox<[GPSDPosition]>([])
        var all: [GPSDPosition] { box.withLockedValue { $0 } }
    }

    @Test func everyReportArrivesAcrossAReconnectAndGarbageIsSkipped() async throws {
        let walk = try GPSDProtocolTests.lines("haicom-305N.json").map { $0 + [UInt8(ascii: "\n")] }
        let start = try Data(contentsOf: Paths.fixture("gpsd/session-start.json"))
        // First connection: the session start, half the walk cut at odd places, garbage in between.
        let half = walk.count / 2
        var first = Array(start) + walk[..<half].joined() + Array("not json\n{\"class\":\"TPV\",\"mode\":\"x\"}\n".utf8)
        first += Array(repeating: UInt8(ascii: "x"), count: 20_000) + [UInt8(ascii: "\n")]
        let chunks = stride(from: 0, to: first.count, by: 997).map { Array(first[$0..<min($0 + 997, first.count)]) }
        // Second connection (gpsd restarted): the rest.
        let (server, received) = try await Self.serve([chunks, [Array(start) + Array(walk[half...].joined())]])
        let port = try #require(server.localAddress?.port)
        var configuration = GPSDClientConfiguration(host: "127.0.0.1", port: port)
        configuration.backoff = Backoff(initial: 0.05, maximum: 0.2)
        let client = GPSDClient(configuration: configuration)
        let positions = Positions()
        let task = Task { await client.run { position in positions.box.withLockedValue { $0.append(position) } } }
        let expected = try GPSDProtocolTests.positions("haicom-305N.json")
        // Each report is handed over with an await: in a full parallel test run the cooperative pool can
        // be busy for tens of seconds (one run took 37 s), which is not what this test is about.
        #expect(try await eventually(within: 90) { positions.all.count >= expected.count })
        task.cancel()
        await task.value
        try await server.close()

        #expect(positions.all == expected)
        #expect(client.connections >= 2)
        #expect(client.skippedLines == 3)
        let sent = String(decoding: received.withLockedValue { $0 }, as: UTF8.self)
        #expect(sent.hasPrefix(#"?WATCH={"enable":true,"json":true}"# + "\n"))
    }

    @Test func gpsdNotRunningIsRetriedUntilItIs() async throws {
        // A port nothing listens on yet, held by a socket bound without listening: connections are
        // refused, and no other test's server can take the port meanwhile (one did, on a busy run).
        // The same socket then becomes gpsd's: closing it and binding again left a gap in which another
        // test's outgoing connection took the port as its own (EADDRINUSE, on a busy run).
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(holder >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, length) == 0 && getsockname(holder, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        var configuration = GPSDClientConfiguration(host: "127.0.0.1", port: port)
        configuration.backoff = Backoff(initial: 0.05, maximum: 0.2)
        let client = GPSDClient(configuration: configuration)
        let positions = Positions()
        let task = Task { await client.run { position in positions.box.withLockedValue { $0.append(position) } } }
        try await Task.sleep(for: .milliseconds(400))
        #expect(client.connections == 0)
        let line = Array(#"{"class":"TPV","mode":2,"lat":52.09,"lon":5.12,"eph":8.0}"#.utf8) + [UInt8(ascii: "\n")]
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptedPeer(scripts: NIOLockedValueBox([[line]]), received: NIOLockedValueBox([])))
                }
            }
            .withBoundSocket(holder).get()
        #expect(try await eventually(within: 90) { !positions.all.isEmpty })
        task.cancel()
        await task.value
        try await server.close()
        #expect(positions.all.first == GPSDPosition(mode: .twoD, latitude: 52.09, longitude: 5.12, horizontalError: 8))
    }
}
