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

/// What the server answered to a missing-list request.
public enum MissingListAnswer: Equatable, Sendable {
    /// The list held is current (HTTP 304).
    case notModified
    /// The whole list: replaces whatever is held.
    case full(version: Int64, bikes: [MissingBike], etag: String?)
    /// Changes since the version held.
    case delta(MissingListDelta, etag: String?)
}

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

public enum MissingListWireError: Error, CustomStringConvertible, Sendable {
    case unexpectedShape(String)

    public var description: String {
        switch self {
        case let .unexpectedShape(detail): "the server's missing list is not in the expected form (\(detail)); are the server and sentinel versions compatible?"
        }
    }
}

/// The JSON of `GET /v1/missing`: a `MissingList` in full, or a `MissingDelta`.
enum MissingListWire {
    static func decode(_ data: Data, etag: String?) throws -> MissingListAnswer {
        let decoder = JSONDecoder()
        if let full = try? decoder.decode(MissingList.self, from: data) {
            return .full(version: full.version, bikes: full.beacons.map(\.bike), etag: etag)
        }
        do {
            return .delta(try decoder.decode(MissingDelta.self, from: data).delta, etag: etag)
        } catch {
            throw MissingListWireError.unexpectedShape(String(describing: error))
        }
    }
}
