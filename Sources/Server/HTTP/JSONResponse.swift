import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird

/// JSON bodies with the API's conventions (sorted keys, no escaped slashes), the `Content-Type`, and
/// `nosniff`, so no browser ever reads an answer (which may echo what an owner typed) as anything but JSON.
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        make(encoded: ByteBuffer(bytes: try encoder.encode(value)), status: status, headers: headers)
    }

    /// A body encoded (and perhaps compressed, with its `Content-Encoding` in `headers`) ahead of time.
    static func make(encoded body: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    static let encoder = APIJSON.encoder()

    /// Decodes a request body, within the context's body limit; no text in it may hold a NUL (`TextFields`).
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: AppContext) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { throw APIError.invalid("the request needs a JSON body") }
        let json = Data(buffer.readableBytesView)
        let value = try JSONDecoder().decode(T.self, from: json)
        if let field = TextFields.fieldWithNUL(in: json) {
            throw APIError.invalid("'\(field)' holds a NUL character (\\u0000); no text may contain one")
        }
        return value
    }

    /// Decodes an optional body: nil when the request has none (`POST /v1/bikes/{id}/missing` without a reference).
    static func decodeIfPresent<T: Decodable>(_ type: T.Type, from request: Request, context: AppContext) async throws -> T? {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { return nil }
        return try await decode(T.self, from: request, context: context)
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
