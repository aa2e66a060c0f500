import Hummingbird
import Prometheus

/// This server's Prometheus registry. Each server instance (and each test) has its own, so no
/// global bootstrap is needed. Metrics are declared on the registry with their HELP text (its
/// swift-metrics factory can only register them without).
public struct ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    public init() {
        registry = PrometheusCollectorRegistry()
    }

    func countSightings(accepted: Int, duplicates: Int, rejected: Int) {
        for (outcome, count) in [("accepted", accepted), ("duplicate", duplicates), ("rejected", rejected)] {
            registry.makeCounter(name: "bikebeacon_sightings_total", labels: [("outcome", outcome)],
                                 help: "Sightings sentinels sent, by outcome.").increment(by: Int64(count))
        }
    }

    func request(route: String, method: String, status: Int, duration: Duration) {
        registry.makeCounter(name: "bikebeacon_http_requests_total", labels: [("route", route), ("method", method), ("status", String(status))],
                             help: "HTTP requests by route template, method and status.").increment()
        registry.makeDurationHistogram(name: "bikebeacon_http_request_duration_seconds", labels: [("route", route), ("method", method)],
                                       buckets: Self.durationBuckets, help: "Time to answer, by route template and method.")
            .record(duration)
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
            metrics.request(route: context.endpointPath ?? "unmatched", method: Self.label(request.method),
                            status: status, duration: ContinuousClock.now - start)
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

    /// The methods this API answers keep their name; any other counts as `other`. A method is any token the
    /// client chooses, and each new label pair is a series the registry keeps and `/metrics` prints forever.
    static func label(_ method: HTTPRequest.Method) -> String {
        [.get, .head, .post, .put, .delete, .patch, .options].contains(method) ? method.rawValue : "other"
    }
}
