import BikebeaconAPI
import Foundation
import Hummingbird

/// Health, metrics and the API description.
enum OpsRoutes {
    static func add(to router: Router<AppContext>, state: ServerState) {
        router.get("/healthz") { _, _ in
            do {
                _ = try await state.missingList.version()
            } catch {
                state.logger.error("health check: the database does not answer", metadata: ["error": "\(error)"])
                return try JSONResponse.make(Health(status: "unavailable", database: state.database.flavor.rawValue),
                                             status: .serviceUnavailable)
            }
            return try JSONResponse.make(Health(status: "ok", database: state.database.flavor.rawValue))
        }

        router.get("/metrics") { _, _ in
            // Counted from the database at each scrape, so every replica reports the network's states alike.
            do {
                state.metrics.sentinels(try await state.sentinelHealth.counts())
            } catch {
                state.logger.error("metrics: cannot count sentinels by state; the gauge keeps its last values", metadata: ["error": "\(error)"])
            }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: state.metrics.render())))
        }

        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"],
                     body: .init(byteBuffer: ByteBuffer(bytes: try OpenAPIDocument.bytes())))
        }
    }
}

/// The hand-written OpenAPI 3.1 document shipped as a resource.
public enum OpenAPIDocument {
    public static func bytes() throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw APIError(.notFound, "not_found", "this build has no openapi.yaml resource")
        }
        return Array(try Data(contentsOf: url))
    }
}
