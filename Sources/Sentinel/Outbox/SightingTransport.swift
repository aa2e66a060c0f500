import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import ServerClient

/// Where sightings go; the server over HTTP, or a stand-in in tests.
public protocol SightingTransport: Sendable {
    /// Sends one batch. Returns only when the server processed the whole batch; throws otherwise.
    func send(_ sightings: [Sighting]) async throws -> SightingResult
}

/// `POST /v1/sightings`.
public struct HTTPSightingTransport: SightingTransport {
    public let server: ServerConnection

    public init(server: ServerConnection) {
        self.server = server
    }

    public func send(_ sightings: [Sighting]) async throws -> SightingResult {
        let body = try JSONEncoder().encode(SightingBatch(sightings: sightings.map(\.item)))
        let (status, _, answer) = try await server.send(.POST, "/v1/sightings", json: body)
        guard status == .ok else { throw ServerError(status: status, body: answer) }
        return try JSONDecoder().decode(SightingResult.self, from: Data(answer.readableBytesView))
    }
}
