import AsyncHTTPClient
import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

/// Where the server is and how this sentinel proves who it is.
public struct ServerConnection: Sendable {
    /// E.g. `http://127.0.0.1:8080`, without a trailing slash.
    public var baseURL: String
    /// The token printed by `bikebeacon-server sentinels add`.
    public var token: String
    public var client: HTTPClient
    public var timeout: TimeAmount

    public init(baseURL: String, token: String, client: HTTPClient = .shared, timeout: TimeAmount = .seconds(10)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.client = client
        self.timeout = timeout
    }

    /// Largest answer body read; the full missing list of a big community stays well below it.
    public static let maxBody = 64 << 20

    /// Sends one request with the bearer token (none when empty); returns the status, headers and whole body.
    public func send(_ method: HTTPMethod, _ pathAndQuery: String, headers extra: [(String, String)] = [], json body: Data? = nil)
        async throws -> (status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer)
    {
        var request = HTTPClientRequest(url: baseURL + pathAndQuery)
        request.method = method
        if !token.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: Self.maxBody)
        return (response.status, response.headers, bytes)
    }
}

/// A request the server refused or could not serve.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public var status: UInt
    public var message: String
    /// The API's error code (`invalid_request`, `revoked`, …), when the body had one.
    public var code: String?

    public init(status: HTTPResponseStatus, body: ByteBuffer) {
        self.status = status.code
        let parsed = try? JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView))
        message = parsed?.message ?? String(decoding: body.readableBytesView.prefix(200), as: UTF8.self)
        code = parsed?.error
    }

    /// Worth retrying later: the server is overloaded, rate-limiting or broken, not refusing us.
    public var isTransient: Bool { status == 408 || status == 429 || status >= 500 }

    public var description: String {
        switch status {
        case 401, 403: "the server refused the sentinel token (HTTP \(status): \(message)); check the token in the config, or enrol again with `bikebeacon-server sentinels add`"
        default: "the server answered HTTP \(status): \(message)"
        }
    }
}
