import Foundation
import Subprocesses

/// A real mosquitto broker on a loopback port for one test, with a password file and,
/// optionally, a TLS listener. mosquitto and mosquitto-clients come from `scripts/setup --test`;
/// without them a test fails with a message saying so.
///
/// Children of the test runner inherit a mask that blocks SIGTERM and SIGALRM, so processes are
/// stopped with SIGKILL and mosquitto_sub's `-W` timeout is not used.
public final class Mosquitto: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One message as `mosquitto_sub` printed it.
    public struct Received: Equatable, Sendable {
        public var retained: Bool
        public var topic: String
        public var payload: String

        public init(retained: Bool, topic: String, payload: String) {
            self.retained = retained
            self.topic = topic
            self.payload = payload
        }
    }

    public static let username = "bikebeacon"
    public static let password = "p4ss w0rd"

    public let directory: URL
    public private(set) var port = 0
    /// PEM of the CA that signed the TLS listener's certificate (when started with `tls`).
    public let caFile: String?
    private var process: ChildProcess?
    /// mosquitto_sub processes still running, stopped with the broker even when a test fails early.
    private var subscribers: [Subscriber] = []
    private let lock = NSLock()

    /// `mqtt://user:pass@127.0.0.1:port` (or `mqtts://…@localhost` with TLS), password percent-encoded.
    public var url: String {
        let password = Self.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return caFile == nil ? "mqtt://\(Self.username):\(password)@127.0.0.1:\(port)" : "mqtts://\(Self.username):\(password)@localhost:\(port)"
    }

    public init(tls: Bool = false) throws {
        for tool in ["mosquitto", "mosquitto_passwd", "mosquitto_sub"] where Self.which(tool) == nil {
            throw Failure(description: "\(tool) is not installed: run scripts/setup --test (Debian packages mosquitto, mosquitto-clients)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let passwd = directory.appendingPathComponent("passwd").path
        guard Self.shell(Self.which("mosquitto_passwd") ?? "mosquitto_passwd", ["-b", "-c", passwd, Self.username, Self.password]) == 0 else {
            throw Failure(description: "mosquitto_passwd failed")
        }
        caFile = tls ? try Self.makeCertificates(in: directory) : nil
        try launchOnAnyPort(wanted: nil)
    }

    deinit { stop() }

    /// Starts a broker off the cooperative pool (certificates and start-up block); see `init`.
    public static func started(tls: Bool = false) async throws -> Mosquitto {
        try await offPool { try Mosquitto(tls: tls) }
    }

    /// Starts again on `port` (a restarted broker, which remembers nothing).
    public func start(port: Int) async throws {
        try await offPool { try self.launchOnAnyPort(wanted: port) }
    }

    /// Starts on `wanted`, or on a random free port (trying again when it is taken). Blocks.
    private func launchOnAnyPort(wanted: Int?) throws {
        for _ in 0..<20 {
            let candidate = wanted ?? Int.random(in: 20_000...60_000)
            if try launch(port: candidate) {
                port = candidate
                return
            }
            if wanted != nil { break }
        }
        throw Failure(description: "mosquitto did not start; see \(directory.path)/log")
    }

    public func stop() {
        lock.lock()
        let running = process
        process = nil
        let clients = subscribers
        subscribers = []
        lock.unlock()
        for client in clients { client.process.send(SIGKILL) }
        guard let running, running.isRunning else { return }
        running.send(SIGKILL)
        running.wait()
    }

    /// Retained messages now on the broker. mosquitto_sub `--retained-only` prints them and
    /// exits at the first live message, a marker published until it has.
    public func retained(_ topic: String = "#") async throws -> [Received] {
        try await offPool { try self.retainedNow(topic) }
    }

    private func retainedNow(_ topic: String) throws -> [Received] {
        let marker = "bikebeacon-test/marker"
        let subscriber = try subscriber(topic, extra: ["--retained-only", "-t", marker])
        for _ in 0..<300 where subscriber.process.isRunning {
            Self.shell(Self.which("mosquitto_pub") ?? "/usr/bin/mosquitto_pub", connection + ["-t", marker, "-m", "end"])
            Thread.sleep(forTimeInterval: 0.1)
        }
        subscriber.process.send(SIGKILL)
        subscriber.process.wait()
        return subscriber.received().filter { $0.topic != marker }
    }

    /// Starts `mosquitto_sub` on `topic`; `finish` stops it and returns what it printed.
    public func watch(_ topic: String = "#") async throws -> @Sendable () async -> [Received] {
        let subscriber = try subscriber(topic, extra: [])
        // Give the subscription time to be in place before the caller acts.
        try await Task.sleep(for: .milliseconds(500))
        return {
            subscriber.process.send(SIGKILL)
            await waitForExit(subscriber.process)
            return subscriber.received()
        }
    }

    /// Host, port, credentials and CA for the mosquitto clients.
    private var connection: [String] {
        var arguments = ["-p", "\(port)", "-u", Self.username, "-P", Self.password]
        if let caFile { arguments += ["-h", "localhost", "--cafile", caFile] } else { arguments += ["-h", "127.0.0.1"] }
        return arguments
    }

    /// A running `mosquitto_sub` and the file it prints to.
    struct Subscriber: Sendable {
        let process: ChildProcess
        let output: URL

        func received() -> [Received] { Mosquitto.parse((try? Data(contentsOf: output)) ?? Data()) }
    }

    private func subscriber(_ topic: String, extra: [String]) throws -> Subscriber {
        let output = directory.appendingPathComponent("sub-\(UUID().uuidString).out")
        let process = try ChildProcess.spawn("/usr/bin/env", ["mosquitto_sub"] + connection + ["-t", topic, "-F", "%r %t %p"] + extra,
                                             stdout: .file(output.path), stderr: .discard)
        let subscriber = Subscriber(process: process, output: output)
        lock.lock()
        subscribers = subscribers.filter(\.process.isRunning) + [subscriber]
        lock.unlock()
        return subscriber
    }

    static func parse(_ data: Data) -> [Received] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2 else { return nil }
            return Received(retained: parts[0] == "1", topic: String(parts[1]), payload: parts.count > 2 ? String(parts[2]) : "")
        }
    }

    /// True once mosquitto runs on `port`; false if it exited (e.g. the port was taken).
    private func launch(port: Int) throws -> Bool {
        let log = directory.appendingPathComponent("log")
        try? FileManager.default.removeItem(at: log)
        var config = """
        user \(ProcessInfo.processInfo.userName)
        persistence false
        allow_anonymous false
        password_file \(directory.path)/passwd
        log_dest file \(log.path)
        log_type all
        listener \(port) 127.0.0.1

        """
        if caFile != nil {
            config += "cafile \(directory.path)/ca.pem\ncertfile \(directory.path)/server.pem\nkeyfile \(directory.path)/server.key\n"
        }
        let path = directory.appendingPathComponent("mosquitto.conf")
        try config.write(to: path, atomically: true, encoding: .utf8)
        let process = try ChildProcess.spawn(Self.which("mosquitto") ?? "/usr/sbin/mosquitto", ["-c", path.path],
                                             stdout: .discard, stderr: .discard)
        for _ in 0..<100 {
            if let text = try? String(contentsOf: log, encoding: .utf8), text.contains(" running") {
                lock.lock()
                self.process = process
                lock.unlock()
                return true
            }
            if !process.isRunning { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.send(SIGKILL)
        process.wait()
        return false
    }

    /// A throwaway CA and a certificate for localhost / 127.0.0.1 signed by it; returns the CA file.
    private static func makeCertificates(in directory: URL) throws -> String {
        let d = directory.path
        let steps: [[String]] = [
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=bikebeacon test CA",
             "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem"],
            ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "\(d)/server.key", "-out", "\(d)/server.csr"],
            ["openssl", "x509", "-req", "-in", "\(d)/server.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key", "-CAcreateserial",
             "-days", "2", "-extfile", "\(d)/san.ext", "-out", "\(d)/server.pem"],
        ]
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: "\(d)/san.ext", atomically: true, encoding: .utf8)
        for step in steps where shell("/usr/bin/env", step) != 0 {
            throw Failure(description: "openssl failed: \(step.joined(separator: " "))")
        }
        return "\(d)/ca.pem"
    }

    @discardableResult
    static func shell(_ program: String, _ arguments: [String]) -> Int32 {
        guard let process = try? ChildProcess.spawn(program, arguments, stdout: .discard, stderr: .discard) else { return -1 }
        return process.wait()
    }

    static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let paths = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        return paths.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
