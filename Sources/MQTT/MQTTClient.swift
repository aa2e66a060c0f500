import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// How the client connects and what it says about itself.
public struct MQTTClientConfiguration: Sendable {
    public var broker: MQTTBrokerAddress
    public var clientID: String
    /// Seconds between PINGREQs when nothing else is sent; a broker that leaves a PINGREQ
    /// unanswered this long is taken as gone.
    public var keepAlive: UInt16 = 30
    /// Left with the broker at CONNECT, published by it if we vanish (e.g. `offline`, retained).
    public var will: MQTTMessage?
    /// Published after every CONNACK (e.g. `online` on the will's topic, retained).
    public var birth: [MQTTMessage] = []
    /// Published just before a clean DISCONNECT, after which the broker drops the will.
    public var farewell: [MQTTMessage] = []
    /// PEM file of the CA that signed the broker's certificate (mqtts://); nil: the system's roots.
    public var trustRootsFile: String?
    /// Messages kept while the broker is away (the session's capacity).
    public var capacity = 10_000
    /// Seconds from opening the socket to CONNACK.
    public var connectTimeout: Double = 10
    /// Seconds to wait before the next attempt after `failures` failed ones (1 for the first).
    public var reconnectDelay: @Sendable (_ failures: Int) -> Double

    public init(broker: MQTTBrokerAddress, clientID: String, reconnectDelay: @escaping @Sendable (_ failures: Int) -> Double) {
        self.broker = broker
        self.clientID = clientID
        self.reconnectDelay = reconnectDelay
    }
}

/// A small MQTT 3.1.1 publishing client on SwiftNIO: CONNECT with user name, password and a
/// last will, TLS for mqtts://, keep-alive, QoS 0 and QoS 1 with redelivery (DUP) after a
/// reconnect, reconnection with backoff. No MQTT package is among the Swift packages this
/// project may use, so it is written here, kept to what a sentinel publishes (no subscribing),
/// and tested on its own (MQTTTests) and against mosquitto.
///
/// A malformed packet from the broker ends the connection with a log line and a reconnect.
public actor MQTTClient {
    private let configuration: MQTTClientConfiguration
    private let logger: Logger
    private var session: MQTTSession
    private var channel: (any Channel)?
    private var accepted = false
    private var lastSent = ContinuousClock.now
    /// Connections the broker accepted so far.
    public private(set) var connections = 0

    public init(configuration: MQTTClientConfiguration, logger: Logger = Logger(label: "bikebeacon.mqtt")) {
        self.configuration = configuration
        self.logger = logger
        session = MQTTSession(capacity: configuration.capacity)
    }

    public var isConnected: Bool { accepted }
    /// Messages given up because the broker was away longer than the capacity lasted.
    public var dropped: Int { session.dropped }

    /// Sends now if connected, else keeps the message for the next connection.
    public func publish(_ messages: [MQTTMessage]) {
        for message in messages { session.enqueue(message) }
        if accepted { send(session.drain().map(MQTTPacket.publish)) }
    }

    public func publish(_ message: MQTTMessage) { publish([message]) }

    /// Waits until every message is with the broker (QoS 1 acknowledged), at most `timeout`,
    /// looking every `poll`. Returns whether it got there.
    public func flush(timeout: Duration, poll: Duration = .milliseconds(50)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !(accepted && session.isIdle) {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: poll)
        }
        return true
    }

    /// Connects and stays connected until the task is cancelled; then says goodbye (farewell,
    /// DISCONNECT) if connected.
    public func run() async {
        var failures = 0
        while !Task.isCancelled {
            let wasAccepted = await connectOnce()
            guard !Task.isCancelled else { break }
            failures = wasAccepted ? 1 : failures + 1
            let delay = configuration.reconnectDelay(failures)
            logger.info("reconnecting to the MQTT broker", metadata: ["broker": "\(configuration.broker)", "inSeconds": "\(delay)",
                                                                      "attempt": "\(failures)"])
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    /// One connection from socket to close; returns whether the broker accepted it.
    private func connectOnce() async -> Bool {
        let broker = configuration.broker
        let (events, sink) = AsyncStream<MQTTConnectionEvent>.makeStream()
        let channel: any Channel
        do {
            channel = try await bootstrap(sink: sink).connect(host: broker.host, port: broker.port).get()
        } catch {
            logger.warning("cannot reach the MQTT broker; is it running, and are mqtt.url and its certificate right?",
                           metadata: ["broker": "\(broker)", "error": "\(error)"])
            return false
        }
        self.channel = channel
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                sink.yield(.tick(.now))
            }
        }
        let opened = ContinuousClock.now
        /// When the unanswered PINGREQ went out; any packet from the broker answers it.
        var pingSent: ContinuousClock.Instant?
        var wasAccepted = false
        let password = broker.password.map { Array($0.utf8) }
        send([.connect(MQTTConnect(clientID: configuration.clientID, cleanSession: false, keepAlive: configuration.keepAlive,
                                   username: broker.username, password: password, will: configuration.will))])
        await withTaskCancellationHandler {
            loop: for await event in events {
                switch event {
                case let .packet(packet):
                    pingSent = nil
                    guard handle(packet, accepted: &wasAccepted) else { break loop }
                case let .malformed(error):
                    logger.error("the MQTT broker sent a malformed packet; reconnecting", metadata: ["broker": "\(broker)", "error": "\(error)"])
                    break loop
                case let .failed(error):
                    logger.warning("the MQTT connection failed; reconnecting", metadata: ["broker": "\(broker)", "error": "\(error)"])
                    break loop
                case .closed:
                    logger.warning("the MQTT broker closed the connection; reconnecting", metadata: ["broker": "\(broker)"])
                    break loop
                case let .tick(now):
                    let keepAlive = Duration.seconds(Int(configuration.keepAlive))
                    if !wasAccepted, now - opened > .seconds(configuration.connectTimeout) {
                        logger.warning("the MQTT broker did not answer CONNECT; reconnecting", metadata: ["broker": "\(broker)"])
                        break loop
                    }
                    if wasAccepted, configuration.keepAlive > 0 {
                        if let pingSent, now - pingSent > keepAlive {
                            logger.warning("the MQTT broker stopped answering pings; reconnecting", metadata: ["broker": "\(broker)"])
                            break loop
                        }
                        if pingSent == nil, now - lastSent >= keepAlive {
                            send([.pingreq])
                            // When it really went out, which a late tick's reading is not.
                            pingSent = .now
                        }
                    }
                }
            }
        } onCancel: {
            sink.finish()
        }
        ticker.cancel()
        // From here on, publishing only queues: this connection is ending.
        accepted = false
        if Task.isCancelled, wasAccepted {
            let goodbye = configuration.farewell.map { MQTTPacket.publish(MQTTPublish(message: $0, packetID: nil)) } + [.disconnect]
            for packet in goodbye { try? await channel.writeAndFlush(channel.allocator.buffer(bytes: packet.encode())).get() }
            logger.info("disconnected from the MQTT broker", metadata: ["broker": "\(broker)"])
        }
        self.channel = nil
        try? await channel.close().get()
        return wasAccepted
    }

    /// One packet from the broker; false ends the connection.
    private func handle(_ packet: MQTTPacket, accepted wasAccepted: inout Bool) -> Bool {
        let broker = configuration.broker
        switch packet {
        case let .connack(_, code) where !wasAccepted:
            guard code == .accepted else {
                logger.error("the MQTT broker refused the connection; check the user name and password in mqtt.url and the broker's ACL",
                             metadata: ["broker": "\(broker)", "reason": "\(code)"])
                return false
            }
            wasAccepted = true
            accepted = true
            connections += 1
            for message in configuration.birth { session.enqueue(message) }
            let resent = session.inFlight.count
            send(session.resume().map(MQTTPacket.publish))
            logger.info("connected to the MQTT broker", metadata: ["broker": "\(broker)", "redelivered": "\(resent)"])
            return true
        case let .puback(id) where wasAccepted:
            if !session.acknowledge(id) { logger.debug("PUBACK for a message not in flight", metadata: ["packetID": "\(id)"]) }
            return true
        case .pingresp where wasAccepted:
            return true
        case let .publish(publish) where wasAccepted:
            // Nothing is subscribed; a broker that sends anyway still gets its acknowledgement.
            if let id = publish.packetID { send([.puback(packetID: id)]) }
            return true
        default:
            logger.error("the MQTT broker sent a packet out of order; reconnecting", metadata: ["broker": "\(broker)", "packet": "\(packet)"])
            return false
        }
    }

    private func send(_ packets: [MQTTPacket]) {
        guard let channel, !packets.isEmpty else { return }
        for packet in packets { channel.write(channel.allocator.buffer(bytes: packet.encode()), promise: nil) }
        channel.flush()
        lastSent = .now
    }

    private func bootstrap(sink: AsyncStream<MQTTConnectionEvent>.Continuation) throws -> ClientBootstrap {
        var tlsContext: NIOSSLContext?
        if configuration.broker.tls {
            var tls = TLSConfiguration.makeClientConfiguration()
            if let file = configuration.trustRootsFile { tls.trustRoots = .file(file) }
            tlsContext = try NIOSSLContext(configuration: tls)
        }
        let host = configuration.broker.host
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(Int64(configuration.connectTimeout)))
            .channelInitializer { [tlsContext] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tlsContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: isAddress ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(MQTTFrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(MQTTEventForwarder(sink: sink))
                }
            }
    }
}
