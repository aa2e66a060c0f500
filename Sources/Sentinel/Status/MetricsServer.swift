#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves `GET /metrics` (Prometheus text format) on a local port until cancelled.
public enum MetricsServer {
    /// Binds `host:port` and answers each request with `metrics()`; throws if the port is taken.
    public static func run(host: String, port: Int, logger: Logger, metrics: @escaping @Sendable () async -> String) async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                }
            }
        logger.info("serving metrics", metadata: ["url": "http://\(host):\(port)/metrics"])
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask {
                        try? await serve(connection, metrics: metrics)
                    }
                }
            }
        }
    }

    private static func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>,
                              metrics: @Sendable () async -> String) async throws {
        try await connection.executeThenClose { inbound, outbound in
            var path = ""
            var method = HTTPMethod.GET
            for try await part in inbound {
                switch part {
                case let .head(head):
                    path = head.uri
                    method = head.method
                case .body:
                    continue
                case .end:
                    let found = method == .GET && (path == "/metrics" || path.hasPrefix("/metrics?"))
                    let body = found ? await metrics() : "only GET /metrics is served here\n"
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4" : "text/plain")
                    headers.add(name: "Content-Length", value: "\(body.utf8.count)")
                    headers.add(name: "Connection", value: "close")
                    try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: found ? .ok : .notFound, headers: headers)))
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(string: body))))
                    try await outbound.write(.end(nil))
                    return
                }
            }
        }
    }
}
