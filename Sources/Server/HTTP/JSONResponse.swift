import BikebeaconAPI
import Foundation
import Hummingbird

/// JSON bodies with the API's conventions (sorted keys, no escaped slashes) and the `Content-Type`.
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    static let encoder = APIJSON.encoder()

    /// Decodes a request body, within the context's body limit.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: AppContext) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { throw APIError.invalid("the request needs a JSON body") }
        return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    }
}
