import BikebeaconAPI
import Foundation
import Hummingbird
import Logging

/// Health and the API description on the API's port; metrics on a listener of their own.
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

        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"],
                     body: .init(byteBuffer: ByteBuffer(bytes: try OpenAPIDocument.bytes())))
        }
    }

    /// `GET /metrics` alone: served on `serve --metrics-host/--metrics-port` (loopback by default), never on the API's
    /// port, which the reverse proxy publishes. Route names, request counts and timings are for the operator's
    /// Prometheus; on the public port they would tell anyone how busy the server is and which routes are used.
    /// `beforeScrape` brings gauges read from the database up to date (`countSentinels`).
    static func metricsRouter(_ metrics: ServerMetrics, beforeScrape: @escaping @Sendable () async -> Void) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/metrics") { _, _ in
            await beforeScrape()
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
        return router
    }

    /// Sentinels by state, counted from the database at each scrape, so every replica reports the network's states alike.
    static func countSentinels(_ health: SentinelHealthStore, into metrics: ServerMetrics, logger: Logger) async {
        do {
            metrics.sentinels(try await health.counts())
        } catch {
            logger.error("metrics: cannot count sentinels by state; the gauge keeps its last values", metadata: ["error": "\(error)"])
        }
    }

    static func metricsListener(_ metrics: ServerMetrics, beforeScrape: @escaping @Sendable () async -> Void, host: String, port: Int,
                                logger: Logger) -> some ApplicationProtocol {
        Application(router: metricsRouter(metrics, beforeScrape: beforeScrape),
                    configuration: .init(address: .hostname(host, port: port), serverName: "bikebeacon-metrics"), logger: logger)
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
