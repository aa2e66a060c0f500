import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import ServerClient

/// The calls the command line and the demo make to a bikebeacon server as an owner.
/// Over the sentinel's HTTP stack (`ServerConnection`, AsyncHTTPClient), so no binary carries
/// FoundationNetworking and its libcurl.
public struct AccountClient: Sendable {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The server's base URL, without a trailing slash.
    public let server: String

    /// Accepts `https://host[:port][/base]`; refuses anything that is not an absolute http(s) URL.
    public init(server text: String) throws(Failure) {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false else {
            throw Failure(description: "\"\(text)\" is not a server URL: write it like https://bikes.example.org")
        }
        server = trimmed
    }

    /// `POST /v1/sessions`; returns the session token.
    public func logIn(email: String, password: String) async throws(Failure) -> String {
        let body = try? APIJSON.encoder().encode(Credentials(email: email, password: password))
        return try await send(.POST, "/v1/sessions", token: "", json: body, as: Token.self).token
    }

    /// `POST /v1/accounts`.
    public func createAccount(email: String, password: String) async throws(Failure) -> Account {
        let body = try? APIJSON.encoder().encode(Credentials(email: email, password: password))
        return try await send(.POST, "/v1/accounts", token: "", json: body, as: Account.self)
    }

    /// `GET /v1/bikes` with the session's token.
    public func bikes(token: String) async throws(Failure) -> [Owners.Bike] {
        try await send(.GET, "/v1/bikes", token: token, as: BikeList.self).bikes.map { Owners.Bike(name: $0.name, beacon: $0.beacon) }
    }

    /// `POST /v1/bikes`.
    public func register(_ bike: BikeFields, token: String) async throws(Failure) -> BikebeaconAPI.Bike {
        let body = try? APIJSON.encoder().encode(bike)
        return try await send(.POST, "/v1/bikes", token: token, json: body, as: BikebeaconAPI.Bike.self)
    }

    /// `POST /v1/bikes/{id}/missing`: the bike goes on every sentinel's missing list. A tag put on the bike
    /// less than the server's hold ago (24 h by default) needs the police report's reference.
    public func markMissing(bike id: String, policeReference: String? = nil, token: String) async throws(Failure) -> BikebeaconAPI.Bike {
        let body = policeReference.flatMap { try? APIJSON.encoder().encode(MissingRequest(policeReference: $0)) }
        return try await send(.POST, "/v1/bikes/\(id)/missing", token: token, json: body, as: BikebeaconAPI.Bike.self)
    }

    /// `GET /v1/bikes/{id}/sightings`, newest first.
    public func sightings(bike id: String, limit: Int = 100, token: String) async throws(Failure) -> [SightingRecord] {
        try await send(.GET, "/v1/bikes/\(id)/sightings?limit=\(limit)", token: token, as: SightingPage.self).sightings
    }

    /// `GET /v1/bikes/{id}/coverage`: who listens around the bike's last place, and when they did not.
    public func coverage(bike id: String, token: String) async throws(Failure) -> BikeCoverage {
        try await send(.GET, "/v1/bikes/\(id)/coverage", token: token, as: BikeCoverage.self)
    }

    private func send<T: Decodable>(_ method: HTTPMethod, _ path: String, token: String, json: Data? = nil, as type: T.Type) async throws(Failure) -> T {
        let connection = ServerConnection(baseURL: server, token: token, timeout: .seconds(15))
        let answer: (status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer)
        do {
            answer = try await connection.send(method, path, json: json)
        } catch {
            throw Failure(description: "cannot reach \(server): \(error)")
        }
        let data = Data(answer.body.readableBytesView)
        guard (200..<300).contains(answer.status.code) else {
            if let body = try? JSONDecoder().decode(ErrorBody.self, from: data) {
                throw Failure(description: "\(server) said: \(body.message) (\(body.error), HTTP \(answer.status.code))")
            }
            throw Failure(description: "\(server) answered HTTP \(answer.status.code): is this a bikebeacon server?")
        }
        guard let value = try? JSONDecoder().decode(T.self, from: data) else {
            throw Failure(description: "\(server) sent an answer this version does not understand: is this a bikebeacon server?")
        }
        return value
    }
}
