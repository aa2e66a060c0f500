import AsyncHTTPClient
import BikebeaconAPI
import Foundation
import Logging
import ServerClient
import Testing
import TestSupport
@testable import Sentinel
import Subprocesses

/// The sentinel asks for the missing list gzipped and unpacks it within a limit: from the real server,
/// and from a server that answers with a gzip bomb.
@Suite(.serialized, .enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct MissingListGzipTests {
    /// The real server sends the list gzipped (its tag says so, its `Content-Length` is the packed size),
    /// the sentinel reads the same bikes from it, and the gzip tag it keeps gets a 304.
    @Test func theRealServersGzippedListIsRead() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "cafe")
        try await server.start()
        defer { server.stop() }
        _ = try await server.ownerWithMissingBikes([SentinelCoreTests.missing])

        // A client that does not unpack (HTTPClient.shared does): the bytes on the wire, and the sentinel's own unpacking.
        let raw = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            var request = HTTPClientRequest(url: server.url + "/v1/missing")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Accept-Encoding", value: "gzip")
            let response = try await raw.execute(request, timeout: .seconds(10))
            let packed = try await response.body.collect(upTo: 1 << 20)
            #expect(response.headers.first(name: "Content-Encoding") == "gzip")
            #expect(response.headers.first(name: "Content-Length") == "\(packed.readableBytes)")
            #expect(packed.readableBytesView.starts(with: [0x1f, 0x8b]))
            for client in [raw, HTTPClient.shared] {
                let source = HTTPMissingListSource(server: ServerConnection(baseURL: server.url, token: token, client: client))
                guard case let .full(version, bikes, etag) = try await source.fetch(since: nil, etag: nil) else { throw HarnessError("expected the whole list") }
                #expect(bikes.map(\.beacon) == [SentinelCoreTests.missing])
                #expect(etag == "\"v\(version)-gzip\"")
                #expect(try await source.fetch(since: version, etag: etag) == .notModified)
            }
        } catch {
            try await raw.shutdown()
            throw error
        }
        try await raw.shutdown()
    }

    /// A server (or a proxy) whose gzipped answer unpacks to more than the sentinel reads of any answer:
    /// refused, said so in the log, and the list held stays in use.
    @Test func aGzipBombIsRefusedAndTheListKept() async throws {
        let dir = try TestValues.temporaryDirectory()
        let bike = SentinelCoreTests.missing
        // First a real list (version 3, one bike), then 80 MB of spaces in 80 kB of gzip, packed a megabyte at a
        // time (the whole 80 MB in memory at once is more than a small CI machine may give a helper).
        let script = """
            import http.server, json, sys, zlib
            def gzip(pieces):
                packer = zlib.compressobj(9, zlib.DEFLATED, 31)
                return b"".join(packer.compress(piece) for piece in pieces) + packer.flush()
            answers = [
                gzip([json.dumps({"version": 3, "beacons": [{"uuid": "\(bike.uuid.uuidString)", "major": \(bike.major), "minor": \(bike.minor),
                                  "description": {"make": "Gazelle", "model": "Ultimate", "colour": "green"}}]}).encode()]),
                gzip(b" " * (1 << 20) for _ in range(80)),
            ]
            class H(http.server.BaseHTTPRequestHandler):
                timeout = 5  # a client that stops reading the bomb without closing holds its thread no longer
                def do_GET(self):
                    # The first ask of each sentinel (no If-None-Match) gets the list; its refreshes get the bomb.
                    body = answers[1] if self.headers.get("If-None-Match") else answers[0]
                    self.send_response(200); self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Encoding", "gzip"); self.send_header("ETag", '"v3-gzip"')
                    self.send_header("Content-Length", str(len(body))); self.end_headers()
                    try:
                        self.wfile.write(body)
                    except (BrokenPipeError, ConnectionResetError, TimeoutError):
                        pass  # the sentinel drops the bomb mid-answer, or stops reading it
                def log_message(self, *args): pass
            # A thread per connection: with one, a connection stuck in the bomb held every later one in the
            # listen queue, and the next client's connect timed out (seen under a loaded test run).
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        // It binds a port of the kernel's choosing and prints it once it listens: no race for a free port.
        let output = dir.appendingPathComponent("bomb-server.out"), errors = dir.appendingPathComponent("bomb-server.err")
        let process = try ChildProcess.spawn("/usr/bin/python3", ["-c", script], stdout: .file(output.path), stderr: .file(errors.path))
        defer {
            process.send(SIGKILL)
            process.wait()
        }
        let said = try await offPool { firstLine(of: output, writtenBy: process, within: 120) }
        guard let port = said.flatMap({ Int($0) }) else {
            throw HarnessError("the gzip-bomb server never said its port; its stderr: \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        }

        // HTTPClient.shared refuses it by ratio; a client that does not unpack leaves it to the sentinel's limit.
        let raw = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            for (client, limit) in [(HTTPClient.shared, "25 times its packed size"), (raw, "64 MB")] {
                let log = LastErrorLog()
                var logger = Logger(label: "test") { _ in Quiet() }
                logger.handler = LastErrorLog.recording(logger.handler, into: log)
                let source = HTTPMissingListSource(server: ServerConnection(baseURL: "http://127.0.0.1:\(port)", token: "bbs_x", client: client))
                let sync = MissingListSync(source: source, cache: MissingListCache(path: dir.appendingPathComponent("list-\(limit).json").path), logger: logger)
                #expect(try await eventually(within: 60, every: .milliseconds(50)) { await sync.confirm(now: 1000) })
                let held = await sync.registry
                #expect(held.version == 3 && held.contains(bike))

                // The running refresh loop meets the bomb.
                let loop = Task { await sync.run(interval: 0.01, clock: { 1060 }, sleep: { try await Task.sleep(for: .seconds($0)) }) }
                // The refusal's line, taken when it comes: cancelling the loop may log its own end after it.
                var refusal: String?
                _ = try await eventually(within: 120) {
                    refusal = log.last?.message.contains("unpacks to more than") == true ? log.last?.message : nil
                    return refusal != nil
                }
                loop.cancel()
                await loop.value
                let kept = await sync.registry
                #expect(kept.version == 3 && kept.contains(bike))
                let line = try #require(refusal, "no refusal logged within 120 s")
                #expect(line.hasPrefix("missing-list refresh failed; keeping the list held"), "\(line)")
                #expect(line.contains("unpacks to more than \(limit) and was refused"), "\(line)")
            }
        } catch {
            try await raw.shutdown()
            throw error
        }
        try await raw.shutdown()
    }
}
