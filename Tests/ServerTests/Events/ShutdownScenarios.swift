#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import BikebeaconAPI
import Foundation
import LocalServer
import NIOCore
import Subprocesses
import Testing
import TestSupport
@testable import Server

/// A server stops on SIGTERM with its event streams open: it ends every stream (each gets the chunked body's
/// end, so the dashboard reconnects, to a replica or the restarted server) and exits well within systemd's
/// `TimeoutStopSec=30`, after which it would be killed. Once a server with open streams did not stop (the city
/// benchmark's finding 4, in the commit history of scripts/bench-server); this is the real binary, as systemd runs it.
enum ShutdownScenarios {
    static let streams = 1_000
    /// A third of the unit's `TimeoutStopSec`.
    static let bound: Duration = .seconds(10)

    static func stopsWithStreamsOpen(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        do {
            try await stopsWithStreamsOpen(harness)
        } catch {
            await harness.cleanup()
            throw error
        }
        await harness.cleanup()
    }

    private static func stopsWithStreamsOpen(_ harness: Harness) async throws {
        let port = try LoopbackPort.free()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-shutdown-\(UUID().uuidString).log")
        try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: log) }
        let database = switch harness.database.url {
        case let .sqlite(path): "sqlite://\(path)"
        case let .postgres(url): url
        }
        let server = try ChildProcess.spawn(Paths.executable("bikebeacon-server").path,
                                            ["serve", "--host", "127.0.0.1", "--port", "\(port)", "--database", database, "--bcrypt-cost", "4"],
                                            stdout: .discard, stderr: .file(log.path))
        var descriptors: [Int32] = []
        defer {
            for fd in descriptors { close(fd) }
            server.send(SIGKILL)
        }

        let base = "http://127.0.0.1:\(port)"
        #expect(try await eventually(within: 20) { (try? await statusCode(of: base + "/healthz")) == 200 }, "the server did not come up")
        let token = try await owner(base)
        let request = "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
        // In batches, each stream answered before the next batch: 1 000 connects at once would overflow the listen backlog.
        for _ in 0..<(streams / 50) {
            let batch = try await offPool { try (0..<50).map { _ in try RawConnection.open(port: port, sending: request) } }
            descriptors += batch
            let connected = try await offPool { batch.allSatisfy { RawConnection.read($0, within: .seconds(10)) { $0.contains(": connected") } } }
            try #require(connected, "a stream did not open")
        }

        let start = ContinuousClock.now
        server.terminate()
        let status = await exitStatus(of: server, within: bound * 3)
        let elapsed = ContinuousClock.now - start
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none: killed after \(bound * 3)")")
        #expect(elapsed < bound, "the server took \(elapsed) to stop with \(streams) streams open")
        // Each stream ended as a whole response (the last chunk), not cut off by the process's end.
        let opened = descriptors
        let ended = try await offPool {
            opened.filter { RawConnection.read($0, within: .seconds(1)) { $0.hasSuffix("0\r\n\r\n") } }.count
        }
        #expect(ended == streams, "\(streams - ended) of \(streams) streams were cut off, not ended")
        let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(!logged.contains("CONTINUATION MISUSE"), "\(logged.suffix(2000))")
    }

    static func statusCode(of url: String) async throws -> UInt {
        try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .milliseconds(500)).status.code
    }

    /// Signs an owner up and logs in: the session token.
    static func owner(_ base: String) async throws -> String {
        _ = try await post(base + "/v1/accounts")
        return try JSONDecoder().decode(Token.self, from: try await post(base + "/v1/sessions")).token
    }

    static func post(_ url: String) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"email":"ann@example.org","password":"correct horse battery"}"#))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return Data(try await response.body.collect(upTo: 1 << 16).readableBytesView)
    }
}
