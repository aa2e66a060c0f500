import Hummingbird
import CoreMetrics
import Metrics
import Prometheus

/// This server's Prometheus registry, fed through swift-metrics with an explicit factory so
/// each server instance (and each test) has its own numbers and no global bootstrap is needed.
public struct ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        self.factory = factory
    }

    func countSightings(accepted: Int, duplicates: Int, rejected: Int) {
        Counter(label: "bikebeacon_sightings_total", dimensions: [("outcome", "accepted")], factory: factory).increment(by: accepted)
        Counter(label: "bikebeacon_sightings_total", dimensions: [("outcome", "duplicate")], factory: factory).increment(by: duplicates)
        Counter(label: "bikebeacon_sightings_total", dimensions: [("outcome", "rejected")], factory: factory).increment(by: rejected)
    }

    func request(route: String, method: String, status: Int, nanoseconds: Int64) {
        let dimensions = [("route", route), ("method", method), ("status", String(status))]
        Counter(label: "bikebeacon_http_requests_total", dimensions: dimensions, factory: factory).increment()
        CoreMetrics.Timer(label: "bikebeacon_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                      factory: factory).recordNanoseconds(nanoseconds)
    }

    /// The text exposition format.
    func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// Counts and times every request by route template (never the raw path, which would explode label cardinality).
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = AppContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        func record(_ status: Int) {
            let elapsed = ContinuousClock.now - start
            let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            metrics.request(route: context.endpointPath ?? "unmatched", method: request.method.rawValue,
                            status: status, nanoseconds: nanoseconds)
        }
        do {
            let response = try await next(request, context)
            record(response.status.code)
            return response
        } catch let error as HTTPResponseError {
            record(error.status.code)
            throw error
        }
    }
}
