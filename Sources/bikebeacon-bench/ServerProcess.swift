import AsyncHTTPClient
import BikebeaconAPI
import Foundation
import NIOCore
import NIOHTTP1
import Server
#if canImport(Glibc)
import Glibc
#endif

/// A `bikebeacon-server serve` child process on a free loopback port, for benchmarks that need
/// real server processes (replicas, per-process CPU).
final class ServerProcess: Sendable {
    let baseURL: String
    let process: Process

    private init(baseURL: String, process: Process) {
        self.baseURL = baseURL
        self.process = process
    }

    /// `bikebeacon-server` beside this executable, where `swift build` puts both.
    static func binary() throws -> String {
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let path = me.deletingLastPathComponent().appendingPathComponent("bikebeacon-server").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError("no bikebeacon-server beside bikebeacon-bench (\(path)); build it with `swift build -c release`")
        }
        return path
    }

    /// Enrols a sentinel and returns its token (the last line `sentinels add` prints).
    static func enrol(binary: String, database: String, name: String) throws -> String {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: binary)
        child.arguments = ["sentinels", "add", "--name", name, "--latitude", "52.09", "--longitude", "5.12", "--database", database]
        let out = Pipe()
        child.standardOutput = out
        child.standardError = FileHandle.nullDevice
        try child.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0, let token = String(decoding: data, as: UTF8.self).split(separator: "\n").last else {
            throw BenchError("bikebeacon-server sentinels add failed (exit \(child.terminationStatus))")
        }
        return String(token)
    }

    static func start(binary: String, database: String, log: URL) async throws -> ServerProcess {
        let port = try freePort()
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw BenchError("cannot create \(log.path)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", String(port), "--database", database, "--bcrypt-cost", "4", "--sentinel-rate", "100000"]
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let server = ServerProcess(baseURL: "http://127.0.0.1:\(port)", process: process)
        for _ in 0..<200 {
            if let status = try? await server.get("/healthz"), status == .ok { return server }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw BenchError("bikebeacon-server did not come up on \(server.baseURL); see \(log.path)")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// CPU seconds (user + system, from /proc/PID/stat) the server spends during `seconds`.
    func cpuSeconds(over seconds: Double) async throws -> Double {
        let before = try cpu()
        try await Task.sleep(for: .seconds(seconds))
        return try cpu() - before
    }

    private func cpu() throws -> Double {
        let text = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
        // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
        guard let close = text.lastIndex(of: ")") else { throw BenchError("unreadable /proc stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { throw BenchError("unreadable /proc stat") }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func get(_ path: String) async throws -> HTTPResponseStatus {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: baseURL + path), timeout: .seconds(5))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status
    }

    @discardableResult
    func post(_ path: String, token: String? = nil, json: (some Encodable)?) async throws -> HTTPResponseStatus {
        try await send(path, token: token, json: json).status
    }

    func post<T: Decodable>(_ path: String, token: String? = nil, json: some Encodable, answer: T.Type) async throws -> T {
        let (status, body) = try await send(path, token: token, json: json)
        guard (200..<300).contains(status.code) else { throw BenchError("POST \(path) answered \(status.code): \(String(buffer: body))") }
        return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
    }

    private func send(_ path: String, token: String?, json: (some Encodable)?) async throws -> (status: HTTPResponseStatus, body: ByteBuffer) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return (response.status, try await response.body.collect(upTo: 1 << 20))
    }

    /// A port the kernel has just handed out on loopback.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("cannot open a socket to find a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("cannot find a free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// An open `/v1/events` stream, read in the background; `nextEvent` waits for the next event.
final class EventStream: Sendable {
    private let reader: Task<Void, Never>
    private let arrivals: EventSignal
    private let seen: Counter

    private actor Counter {
        var value: UInt64 = 0
        func set(_ new: UInt64) { value = new }
    }

    private init(reader: Task<Void, Never>, arrivals: EventSignal) {
        self.reader = reader
        self.arrivals = arrivals
        seen = Counter()
    }

    static func open(_ baseURL: String, token: String, client: HTTPClient) async throws -> EventStream {
        var request = HTTPClientRequest(url: baseURL + "/v1/events")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, deadline: .distantFuture)
        guard response.status == .ok else { throw BenchError("GET /v1/events answered \(response.status.code)") }
        let arrivals = EventSignal()
        let reader = Task {
            var pending = ""
            do {
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let end = pending.range(of: "\n\n") {
                        if pending[..<end.lowerBound].contains("event: sighting") { await arrivals.signal(.deliveries) }
                        pending = String(pending[end.upperBound...])
                    }
                }
            } catch {}
        }
        return EventStream(reader: reader, arrivals: arrivals)
    }

    /// Whether an event arrived (since the last call) within `timeout`.
    func nextEvent(timeout: Duration) async throws -> Bool {
        let before = await seen.value
        let now = await arrivals.wait(.deliveries, after: before, timeout: timeout)
        guard now != before else { return false }
        await seen.set(before + 1)
        return true
    }

    func close() { reader.cancel() }
}
