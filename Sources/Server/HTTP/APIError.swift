import BikebeaconAPI
import Foundation
import Hummingbird

/// Every refused request becomes one of these: a status and a `{error, message}` JSON body.
/// `error` is a stable machine-readable code, `message` tells the caller what to change.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.xContentTypeOptions] = "nosniff"
        let body = try JSONEncoder().encode(ErrorBody(error: code, message: message))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static let unauthenticated = APIError(.unauthorized, "unauthenticated",
        "send 'Authorization: Bearer TOKEN' with a valid token", headers: [.wwwAuthenticate: "Bearer"])
    static let sessionEnded = APIError(.unauthorized, "session_ended",
        "your session has ended (logged out, revoked or expired); log in again")
    static let ownerOnly = APIError(.forbidden, "forbidden", "this endpoint needs an owner's session token")
    static let sentinelOnly = APIError(.forbidden, "forbidden", "this endpoint needs a sentinel token")
    static let bikeNotFound = APIError(.notFound, "not_found", "no such bike")

    static func invalid(_ message: String) -> APIError { APIError(.badRequest, "invalid_request", message) }

    /// 429 with `Retry-After`, so a client or sentinel waits that long instead of retrying at once.
    static func rateLimited(retryAfter seconds: Int, _ message: String) -> APIError {
        APIError(.tooManyRequests, "rate_limited", message, headers: [.retryAfter: String(seconds)])
    }
}
