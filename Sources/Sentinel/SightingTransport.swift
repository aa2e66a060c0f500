import Foundation
import NIOCore
import NIOHTTP1
import ServerClient

/// The server's answer to a batch: how many it stored, how many it already had, and which it
/// refused and why.
public struct SightingReceipt: Codable, Equatable, Sendable {
    public struct Rejection: Codable, Equatable, Sendable {
        public var id: String
        public var reason: String

        public init(id: String, reason: String) {
            self.id = id
            self.reason = reason
        }
    }

    public var accepted: Int
    public var duplicates: Int
    public var rejected: [Rejection]

    public init(accepted: Int, duplicates: Int, rejected: [Rejection]) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejected = rejected
    }
}

/// Where sightings go; the server over HTTP, or a stand-in in tests.
public protocol SightingTransport: Sendable {
    /// Sends one batch. Returns only when the server processed the whole batch; throws otherwise.
    func send(_ sightings: [Sighting]) async throws -> SightingReceipt
}

/// `POST /v1/sightings`.
public struct HTTPSightingTransport: SightingTransport {
    public let server: ServerConnection

    public init(server: ServerConnection) {
        self.server = server
    }

    struct Batch: Encodable { var sightings: [Sighting] }

    public func send(_ sightings: [Sighting]) async throws -> SightingReceipt {
        let body = try JSONEncoder().encode(Batch(sightings: sightings))
        let (status, _, answer) = try await server.send(.POST, "/v1/sightings", json: body)
        guard status == .ok else { throw ServerError(status: status, body: answer) }
        return try JSONDecoder().decode(SightingReceipt.self, from: Data(answer.readableBytesView))
    }
}
