import Beacon
import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import Registry
import ServerClient

/// Where the missing list comes from; the server over HTTP, or a stand-in in tests.
public protocol MissingListSource: Sendable {
    /// Asks for the list; `since` and `etag` describe the list held, if any.
    func fetch(since: Int64?, etag: String?) async throws -> MissingListAnswer
}

/// `GET /v1/missing` with `If-None-Match` and `?since=`.
public struct HTTPMissingListSource: MissingListSource {
    public let server: ServerConnection

    public init(server: ServerConnection) {
        self.server = server
    }

    public func fetch(since: Int64?, etag: String?) async throws -> MissingListAnswer {
        let path = since.map { "/v1/missing?since=\($0)" } ?? "/v1/missing"
        let headers = etag.map { [("If-None-Match", $0)] } ?? []
        let (status, responseHeaders, body) = try await server.send(.GET, path, headers: headers)
        if status == .notModified { return .notModified }
        guard status == .ok else { throw ServerError(status: status, body: body) }
        return try MissingListWire.decode(Data(body.readableBytesView), etag: responseHeaders.first(name: "ETag"))
    }
}
