import Beacon
import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import Registry
import ServerClient

/// Where the missing list comes from; the server over HTTP, or a stand-in in tests.
public protocol MissingListSource: Sendable {
    /// Asks for the list; `since` and `etag` describe the list held, if any.
    func fetch(since: Int64?, etag: String?) async throws -> MissingListAnswer
}

/// `GET /v1/missing` with `If-None-Match` and `?since=`, carrying the sentinel's heartbeat (the
/// `Bikebeacon-Heartbeat` header) when one is due: the refresh the sentinel makes anyway tells the
/// server how it is, without a request of its own. The answer's `Date` measures the clock offset.
public struct HTTPMissingListSource: MissingListSource {
    public let server: ServerConnection
    public let heartbeat: HeartbeatProbe?
    /// Told the server's `Date`, so a sentinel whose clock is not set yet stamps by the server's.
    public let serverTime: ServerTime?

    public init(server: ServerConnection, heartbeat: HeartbeatProbe? = nil, serverTime: ServerTime? = nil) {
        self.server = server
        self.heartbeat = heartbeat
        self.serverTime = serverTime
    }

    public func fetch(since: Int64?, etag: String?) async throws -> MissingListAnswer {
        let path = since.map { "/v1/missing?since=\($0)" } ?? "/v1/missing"
        // A city's list is 1.4 MB of JSON and a fifth of that gzipped: worth it on a sentinel's Wi-Fi or mobile link.
        var headers = [("Accept-Encoding", "gzip")] + (etag.map { [("If-None-Match", $0)] } ?? [])
        let sentAt = Date().timeIntervalSince1970
        if let beat = await heartbeat?.due(now: sentAt) {
            headers.append((SentinelHeartbeat.headerName, String(decoding: try JSONEncoder().encode(beat), as: UTF8.self)))
        }
        let sent = ContinuousClock.now
        var (status, responseHeaders, body) = try await Self.unpacking { try await server.send(.GET, path, headers: headers) }
        if let date = responseHeaders.first(name: "Date").flatMap(HTTPDate.parse) {
            serverTime?.observe(date: date, sent: sent, received: .now)
            await heartbeat?.serverDate(date, sentAt: sentAt, receivedAt: Date().timeIntervalSince1970)
        }
        if status == .badRequest, let heartbeat, case let refusal = ServerError(status: status, body: body), refusal.code == "invalid_heartbeat" {
            // The list matters more than the heartbeat: ask again without it.
            await heartbeat.refused(refusal.message)
            (status, responseHeaders, body) = try await Self.unpacking {
                try await server.send(.GET, path, headers: headers.filter { $0.0 != SentinelHeartbeat.headerName })
            }
        }
        if status == .notModified { return .notModified }
        guard status == .ok else { throw ServerError(status: status, body: body) }
        // Decoded where it lies: a city's list is held once as bytes while it is decoded, not twice.
        return try MissingListWire.decode(consume body, contentEncoding: responseHeaders.first(name: "Content-Encoding"),
                                          etag: responseHeaders.first(name: "ETag"))
    }

    /// The client's own gzip decoding refusing an answer (`HTTPClient.shared`: over 25 times its packed size) said
    /// as the sentinel's refusal, not as AsyncHTTPClient's error.
    private static func unpacking<T>(_ send: () async throws -> T) async throws -> T {
        do {
            return try await send()
        } catch let error as NIOHTTPDecompression.DecompressionError {
            switch error {
            case .limit: throw MissingListWireError.unpacksTooLarge(limit: "25 times its packed size")
            default: throw MissingListWireError.notGzip("\(error)")
            }
        }
    }
}
