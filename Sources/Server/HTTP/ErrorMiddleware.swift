import Foundation
import Hummingbird
import Logging
import NIOHTTP1

/// Turns every error that escapes a handler, including the framework's own (no route, body too
/// large, malformed JSON), into an `APIError`, so no client ever sees a non-JSON error.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as DecodingError {
            throw APIError.invalid("the body is not the expected JSON: \(Self.describe(error))")
        } catch let error as HTTPResponseError {
            throw Self.translate(error)
        } catch let error as HTTPParserError {
            // The client closed the connection before its request was whole (or sent no HTTP): nobody is left to
            // answer and nothing failed here. Rethrown, the framework closes the connection without a response.
            context.logger.debug("the client left before its request was complete",
                                 metadata: ["path": .string(request.uri.path), "error": .string("\(error)")])
            throw error
        } catch {
            context.logger.error("request failed; the client got 500",
                                 metadata: ["path": .string(request.uri.path), "error": .string(String(reflecting: error))])
            throw APIError(.internalServerError, "internal", "the server failed; the operator can find the cause in its log")
        }
    }

    static func translate(_ error: HTTPResponseError) -> APIError {
        let status = error.status
        switch status.code {
        case 404: return APIError(status, "not_found", "no such resource")
        case 405: return APIError(status, "method_not_allowed", "this method is not allowed on this resource")
        case 413: return APIError(status, "too_large", "the body exceeds the server's limit of \(AppContext.bodyLimit) bytes")
        default:
            let message = (error as? HTTPError)?.body ?? status.reasonPhrase
            return APIError(status, status.code < 500 ? "bad_request" : "internal", message)
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        }
        switch error {
        case let .keyNotFound(key, context): return "missing field '\(key.stringValue)'\(path(context))"
        case let .typeMismatch(type, context): return "expected \(type)\(path(context))"
        case let .valueNotFound(type, context): return "expected \(type)\(path(context))"
        case let .dataCorrupted(context): return "malformed JSON\(path(context))"
        @unknown default: return "malformed JSON"
        }
    }
}
