import NIOCore

/// What the connection tells the client's loop.
enum MQTTConnectionEvent: Sendable {
    case packet(MQTTPacket)
    case malformed(MQTTProtocolError)
    case failed(any Error)
    case closed
    /// The ticker's clock when it fired. Timeouts are judged at that moment, not when the loop gets
    /// to the tick: on a busy machine a CONNACK or PINGRESP that came first waits ahead of it in the
    /// queue, and must not be timed out by the delay.
    case tick(ContinuousClock.Instant)
}

/// Frames the byte stream into packets with the pure parser.
struct MQTTFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = MQTTPacket

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let bytes = Array(buffer.readableBytesView)
        guard let (packet, length) = try MQTTPacketParser.parse(bytes[...]) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: length)
        context.fireChannelRead(wrapInboundOut(packet))
        return .continue
    }
}

/// Hands packets, errors and the end of the connection to the client's loop.
final class MQTTEventForwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = MQTTPacket
    let sink: AsyncStream<MQTTConnectionEvent>.Continuation

    init(sink: AsyncStream<MQTTConnectionEvent>.Continuation) { self.sink = sink }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sink.yield(.packet(unwrapInboundIn(data)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? MQTTProtocolError {
            sink.yield(.malformed(error))
        } else {
            sink.yield(.failed(error))
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.yield(.closed)
        context.fireChannelInactive()
    }
}
