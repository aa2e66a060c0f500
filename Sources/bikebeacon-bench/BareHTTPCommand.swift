import ArgumentParser
import Hummingbird
import Logging

/// The framework's own limit: a Hummingbird application with one route and nothing of ours (no
/// middleware, no database), on the same HTTP/1 server configuration as `bikebeacon-server`.
/// `scripts/bench-server` runs wrk against it and against `GET /v1/missing` (304) on the same core.
struct BareHTTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bare-http",
        abstract: "Serve GET /bare (an empty 304) and GET /bare-stream (an idle event stream) with a bare Hummingbird router: the baselines for the server's hottest route and its open streams.")

    @Option var host = "127.0.0.1"
    @Option var port = 8090

    func run() async throws {
        let router = Router()
        router.get("/bare") { _, _ in Response(status: .notModified, headers: [.eTag: "\"v1\""]) }
        // An open server-sent-events stream holding nothing of ours, sending the same comment as
        // `/v1/events` on the same schedule: what the framework itself spends per open stream.
        router.get("/bare-stream") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(15))
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                }
                try await writer.finish(nil)
            })
        }
        var logger = Logger(label: "bikebeacon-bench-bare")
        logger.logLevel = .warning
        let app = Application(router: router, server: .http1(configuration: .init(idleTimeout: .seconds(30))),
                              configuration: .init(address: .hostname(host, port: port), serverName: "bikebeacon"), logger: logger)
        try await app.runService()
    }
}
