import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A stand-in for gpsd for `bench sentinel`: on 127.0.0.1, it writes a recorded gpsd session's
/// lines (TPV and SKY, in order, over and over) to every client at `rate` lines a second. A real
/// gpsd fed by gpsfake cannot go much faster than 1 Hz and costs more CPU than the client it
/// feeds; this puts the whole cost of a fast receiver on the client.
final class RecordedGPSD: Sendable {
    let port: Int
    private let channel: any Channel
    private let written: NIOLockedValueBox<Int>

    /// Lines written to clients so far.
    var linesWritten: Int { written.withLockedValue { $0 } }

    init(lines: [[UInt8]], rate: Double) async throws {
        precondition(!lines.isEmpty && rate > 0)
        let written = NIOLockedValueBox(0)
        let interval = TimeAmount.nanoseconds(Int64(1e9 / rate))
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Writer(lines: lines, interval: interval, written: written))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw ChannelError.inputClosed }
        self.port = port
        self.written = written
    }

    func stop() async { try? await channel.close().get() }

    /// Writes one line per `interval` while the client is connected; reads (the watch command) are dropped.
    private final class Writer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer

        let lines: [[UInt8]]
        let interval: TimeAmount
        let written: NIOLockedValueBox<Int>
        private let task = NIOLockedValueBox<RepeatedTask?>(nil)

        init(lines: [[UInt8]], interval: TimeAmount, written: NIOLockedValueBox<Int>) {
            self.lines = lines
            self.interval = interval
            self.written = written
        }

        func channelActive(context: ChannelHandlerContext) {
            let channel = context.channel
            let (lines, written) = (lines, written)
            let next = NIOLockedValueBox(0)
            task.withLockedValue {
                $0 = channel.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: interval) { _ in
                    let index = next.withLockedValue { value in
                        defer { value = (value + 1) % lines.count }
                        return value
                    }
                    channel.writeAndFlush(channel.allocator.buffer(bytes: lines[index] + [UInt8(ascii: "\n")]), promise: nil)
                    written.withLockedValue { $0 += 1 }
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            task.withLockedValue { $0?.cancel() }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
    }
}
