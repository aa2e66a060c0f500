import Durable
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Where gpsd listens and how the client retries.
public struct GPSDClientConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Seconds from opening the socket to a connection.
    public var connectTimeout: Double = 10
    /// The wait before reconnecting after gpsd went away or could not be reached.
    public var backoff = Backoff(initial: 1, maximum: 30)

    public init(host: String = "127.0.0.1", port: Int = 2947) {
        self.host = host
        self.port = port
    }
}

/// A small client of gpsd's JSON protocol on SwiftNIO: connects, asks for a watch, hands every
/// TPV report on, and reconnects with `Backoff` when gpsd goes away (restarted, not yet up). No
/// Swift package speaks gpsd, and a sentinel needs only positions, so it is this small. Lines that
/// are not JSON, or TPVs with values out of range, are skipped with a log line; other report
/// classes are skipped silently (a debug line).
///
/// Not an actor: its loop runs for as long as gpsd talks, and the counters must stay readable
/// (by the status writer) however busy it is, so they sit behind a lock of their own.
public final class GPSDClient: Sendable {
    private let configuration: GPSDClientConfiguration
    private let logger: Logger
    private let counters = NIOLockedValueBox(Counters())

    struct Counters {
        var connections = 0
        var isConnected = false
        var skippedLines = 0
    }

    /// Connections gpsd accepted so far.
    public var connections: Int { counters.withLockedValue { $0.connections } }
    public var isConnected: Bool { counters.withLockedValue { $0.isConnected } }
    /// Lines skipped because they were not reports (bad JSON, out-of-range values, overlong).
    public var skippedLines: Int { counters.withLockedValue { $0.skippedLines } }

    public init(configuration: GPSDClientConfiguration, logger: Logger = Logger(label: "bikebeacon.gpsd")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Connects and stays connected until the task is cancelled, calling `deliver` with each TPV
    /// report in the order gpsd sent them.
    public func run(deliver: @escaping @Sendable (GPSDPosition) async -> Void) async {
        var failures = 0
        while !Task.isCancelled {
            let gotReports = await connectOnce(deliver: deliver)
            guard !Task.isCancelled else { break }
            failures = gotReports ? 1 : failures + 1
            let delay = configuration.backoff.delay(afterFailures: failures, random: Double.random(in: 0..<1)) ?? configuration.backoff.maximum
            logger.info("reconnecting to gpsd", metadata: ["gpsd": "\(address)", "inSeconds": "\(delay)", "attempt": "\(failures)"])
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    private var address: String { "\(configuration.host):\(configuration.port)" }

    /// One connection from socket to close; returns whether gpsd sent anything on it.
    private func connectOnce(deliver: @Sendable (GPSDPosition) async -> Void) async -> Bool {
        let (events, sink) = AsyncStream<GPSDConnectionEvent>.makeStream()
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Int64(configuration.connectTimeout * 1000)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(GPSDEventForwarder(sink: sink)) }
                }
                .connect(host: configuration.host, port: configuration.port).get()
        } catch {
            logger.warning("cannot reach gpsd; is it running (systemctl status gpsd), and are location.gpsd host and port right?",
                           metadata: ["gpsd": "\(address)", "error": "\(error)"])
            return false
        }
        channel.writeAndFlush(channel.allocator.buffer(bytes: GPSDProtocol.watchCommand), promise: nil)
        counters.withLockedValue {
            $0.isConnected = true
            $0.connections += 1
        }
        logger.info("connected to gpsd", metadata: ["gpsd": "\(address)"])
        var framer = GPSDLineFramer()
        var gotReports = false
        var malformed = 0
        var ignored = Set<String>()
        await withTaskCancellationHandler {
            loop: for await event in events {
                switch event {
                case let .bytes(bytes):
                    let overlong = framer.overlong
                    for line in framer.lines(bytes) {
                        gotReports = true
                        switch GPSDProtocol.decode(line) {
                        case let .success(.position(position)):
                            await deliver(position)
                        case let .success(.other(name)):
                            if ignored.insert(name).inserted {
                                logger.debug("ignoring gpsd reports of this class", metadata: ["class": "\(name)"])
                            }
                        case let .failure(error):
                            malformed += 1
                            counters.withLockedValue { $0.skippedLines += 1 }
                            // A peer sending garbage at full speed must not flood the journal.
                            if malformed <= 10 {
                                logger.warning("skipping a line from gpsd that is not a report\(malformed == 10 ? " (further ones on this connection are not logged)" : "")",
                                               metadata: ["gpsd": "\(address)", "reason": "\(error)", "bytes": "\(line.count)"])
                            }
                        }
                    }
                    if framer.overlong > overlong {
                        counters.withLockedValue { $0.skippedLines += framer.overlong - overlong }
                        logger.warning("skipping an overlong line from gpsd", metadata: ["gpsd": "\(address)", "limit": "\(framer.maximumLength)"])
                    }
                case let .failed(error):
                    logger.warning("the gpsd connection failed; reconnecting", metadata: ["gpsd": "\(address)", "error": "\(error)"])
                    break loop
                case .closed:
                    logger.warning("gpsd closed the connection; reconnecting", metadata: ["gpsd": "\(address)"])
                    break loop
                }
            }
        } onCancel: {
            sink.finish()
        }
        counters.withLockedValue { $0.isConnected = false }
        try? await channel.close().get()
        return gotReports
    }
}

/// What the connection tells the client's loop.
enum GPSDConnectionEvent: Sendable {
    case bytes([UInt8])
    case failed(any Error)
    case closed
}

/// Hands the bytes gpsd sends, errors and the end of the connection to the client's loop.
final class GPSDEventForwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let sink: AsyncStream<GPSDConnectionEvent>.Continuation

    init(sink: AsyncStream<GPSDConnectionEvent>.Continuation) { self.sink = sink }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        sink.yield(.bytes(buffer.readBytes(length: buffer.readableBytes) ?? []))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        sink.yield(.failed(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.yield(.closed)
        context.fireChannelInactive()
    }
}
