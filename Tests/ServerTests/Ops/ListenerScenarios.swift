#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import LocalServer
import NIOCore
import Subprocesses
import Testing
import TestSupport
@testable import Server

/// What the server's sockets allow: metrics only on their own listener, and no connection held open by a
/// request that never finishes arriving, while live-event streams stay open.
enum ListenerScenarios {
    /// `/metrics` is not on the API's port (the one a proxy publishes); Prometheus reads it on `metricsPort`.
    static func metricsOnTheirOwnListener(_ backend: Backend) async throws {
        // Not an ephemeral port, which another test's server binding port 0 could be given in between: the metrics listener
        // then cannot bind, the whole server stops, and the test fails ("I/O on closed channel" once in a full local run).
        let metricsPort = try LoopbackPort.free()
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.metricsPort = metricsPort })
        try await harness.run(.live) { client in
            expectError(try await client.send(.get, "/metrics"), .notFound, "not_found")
            var text = ""
            // Generous: on CI the whole suite starts servers at once on 2 cores, and a scrape counts sentinels in the database.
            let served = try await eventually(within: 30) {
                guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(metricsPort)/metrics"),
                                                                          timeout: .seconds(10)),
                      response.status == .ok else { return false }
                text = String(buffer: try await response.body.collect(upTo: 1 << 20))
                return true
            }
            #expect(served, "nothing answered on the metrics port \(metricsPort)")
            #expect(text.contains("bikebeacon_http_requests_total{"), "\(text.prefix(500))")
            #expect(text.contains(#"status="404""#), "the API's refusal of /metrics is counted")
        }
    }

    /// A request whose head never finishes is cut after the idle timeout (it used to stay open for good); an open
    /// event stream, which sends nothing after its request, is not.
    static func halfSentRequestsTimeOut(_ backend: Backend) async throws {
        // Set up on a server with the usual idle timeout: the test client keeps one connection, and on a loaded
        // machine a pause of a second between two set-up requests let the 1 s timeout close it (CI: "I/O on closed channel").
        let setUp = try await Harness.make(backend)
        let (token, sentinel) = try await setUp.run(.live, keepDatabase: true) { client in
            let token = try await client.owner("ann@example.org")
            let (_, sentinel) = try await setUp.sentinel("cafe")
            let bike = try await client.bike(token)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: token)
            return (token, sentinel)
        }
        var options = setUp.options
        options.idleTimeout = .seconds(1)
        let harness = Harness(database: setUp.database, options: options, cleanup: setUp.cleanup)
        try await harness.run(.live) { client in
            let port = try #require(client.port)
            let stream = await readEvents(port: port, token: token, until: holdsASighting)

            let start = ContinuousClock.now
            let closed = try await Task.detached { try RawConnection.closedByPeer(port: port, sending: "GET /healthz HTTP/1.1\r\nHost: x\r\n",
                                                                                  within: .seconds(5)) }.value
            let elapsed = ContinuousClock.now - start
            #expect(closed && elapsed < .seconds(3), "a half-sent request was still open after \(elapsed)")

            // The stream, silent for longer than the timeout, still delivers. (The test client's own connection was
            // idle too and is closed: the sighting goes on a new one.)
            try await Task.sleep(for: .milliseconds(1500))
            var post = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/sightings")
            post.method = .POST
            post.headers.add(name: "Authorization", value: "Bearer \(sentinel)")
            post.headers.add(name: "Content-Type", value: "application/json")
            post.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(Fixture.Batch(sightings: [Fixture.sighting(event: "departed")]))))
            #expect(try await postClosingRaces(post).status == .ok)
            let watchdog = Task {
                try await Task.sleep(for: .seconds(30))
                stream.cancel()
            }
            let text = try await stream.value
            watchdog.cancel()
            #expect(text.contains("event: sighting"), "the stream closed after the idle timeout: \(text)")
        }
    }
}

extension ListenerScenarios {
    /// Sends `request`, again if the server closed the connection before it went out: with a one-second idle timeout
    /// on a loaded machine the server may rightly cut a new connection before the client writes on it (the CI run
    /// that failed with "I/O on closed channel"). Each try may take 30 s, the suite's usual wait: in a full parallel
    /// run one sighting's POST on SQLite passed 10 s (CI of 3cf07a4, `deadlineExceeded`).
    static func postClosingRaces(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        for _ in 1..<3 {
            do { return try await HTTPClient.shared.execute(request, timeout: .seconds(30)) }
            catch let error as ChannelError where error == .ioOnClosedChannel {}
            catch let error as HTTPClientError where error == .remoteConnectionClosed {}
        }
        return try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    }
}

extension ListenerScenarios {
    /// A client that leaves halfway through its request body is nobody's error: the server neither answers nor
    /// counts (or logs) a 500 for it.
    static func clientAbortIsNoServerError(_ backend: Backend) async throws {
        let metrics = ServerMetrics()
        try await Harness.make(backend).run(.live, metrics: metrics) { client in
            let port = try #require(client.port)
            let fd = try RawConnection.open(port: port, sending: "POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                                                  + "Content-Length: 100\r\n\r\n{\"email\": \"a")
            try await Task.sleep(for: .milliseconds(200))
            close(fd)
            #expect(try await client.send(.get, "/healthz").status == .ok)
            try await Task.sleep(for: .milliseconds(300))
            let text = String(decoding: metrics.render(), as: UTF8.self)
            #expect(text.contains(#"route="/healthz""#))
            #expect(!text.contains(#"status="500""#), "\(text)")
        }
    }
}

/// A plain TCP connection to loopback, for requests no HTTP client would send.
enum RawConnection {
    /// Connects and sends `text`; the caller closes the descriptor.
    static func open(port: Int, sending text: String) throws -> Int32 {
        guard let fd = connectToLoopback(port: port) else { throw LocalServerError("cannot connect to 127.0.0.1:\(port)") }
        _ = text.withCString { send(fd, $0, strlen($0), 0) }
        return fd
    }

    /// Connects, sends `text`, and waits up to `within` for the server to close the connection.
    static func closedByPeer(port: Int, sending text: String, within: Duration) throws -> Bool {
        let fd = try open(port: port, sending: text)
        defer { close(fd) }
        return receive(fd, within: within) { _ in false }.closed
    }

    /// Reads until what came (from this call on) satisfies `done`; false when `within` passed or the peer closed first.
    static func read(_ fd: Int32, within: Duration, until done: (String) -> Bool) -> Bool {
        receive(fd, within: within, until: done).done
    }

    private static func receive(_ fd: Int32, within: Duration, until done: (String) -> Bool) -> (done: Bool, closed: Bool) {
        let deadline = ContinuousClock.now + within
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return (false, false) }
            guard poller.revents != 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            // End of stream or a reset: the server closed it.
            guard count > 0 else { return (false, true) }
            text += String(decoding: buffer[..<count], as: UTF8.self)
            if done(text) { return (true, false) }
        }
        return (false, false)
    }
}
