import Foundation
import Subprocesses

/// A real SMTP server for tests (`scripts/smtp-sink`: aiosmtpd on loopback with a self-signed
/// certificate), and the messages it accepted.
public final class SMTPSink: @unchecked Sendable {
    public enum Security: String, Sendable { case starttls, implicit, none }

    /// One accepted message: the envelope and the data after DATA.
    public struct Received: Decodable, Sendable {
        public var mail_from: String
        public var rcpt_tos: [String]
        public var data: String
        public var tls: Bool
        public var authenticated: Bool
        /// What Python's `email` package reads in the message: an independent MIME decoder.
        public var parsed: Parsed
    }

    public struct Parsed: Decodable, Sendable {
        public var from: String
        public var to: String
        public var subject: String
        public var date: String
        public var message_id: String
        public var content_type: String
        public var text: String?
        public var html: String?
        public var defects: [String]
    }

    public let port: Int
    /// The self-signed certificate (PEM) the sink presents; trust it to connect.
    public let certificatePath: String
    public let directory: URL
    private let process: ChildProcess
    private let ownsDirectory: Bool

    /// Starts the sink; `port` nil picks a free one. Messages go to `directory` (a new temp folder when nil).
    public init(security: Security = .starttls, auth: (user: String, password: String)? = nil, loginOnly: Bool = false,
                port: Int? = nil, directory: URL? = nil) throws {
        let folder = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("smtp-sink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.directory = folder
        ownsDirectory = directory == nil
        var arguments = ["--dir", folder.path, "--tls", security.rawValue, "--port", String(port ?? 0)]
        if let auth { arguments += ["--auth", "\(auth.user):\(auth.password)"] }
        if loginOnly { arguments.append("--no-plain") }
        // stdin stays open while the sink runs: closing it is how the sink is told to stop.
        let run = UUID().uuidString
        let output = folder.appendingPathComponent("sink-\(run).out"), errors = folder.appendingPathComponent("sink-\(run).err")
        let process = try ChildProcess.spawn(Paths.repository.appendingPathComponent("scripts/smtp-sink").path, arguments,
                                             input: true, stdout: .file(output.path), stderr: .file(errors.path))
        self.process = process
        let line = firstLine(of: output, writtenBy: process, within: 30) ?? ""
        let words = line.split(separator: " ")
        guard words.count == 3, words[0] == "ready", let port = Int(words[1]) else {
            process.closeInput()
            Self.reap(process)
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw SinkError(message: "scripts/smtp-sink did not start (needs python3-aiosmtpd and openssl: scripts/setup --test): \(stderr)")
        }
        self.port = port
        certificatePath = String(words[2])
    }

    /// Starts the sink off the cooperative pool (Python's start-up blocks for a while); see `init`.
    public static func start(security: Security = .starttls, auth: (user: String, password: String)? = nil, loginOnly: Bool = false,
                             port: Int? = nil, directory: URL? = nil) async throws -> SMTPSink {
        let credentials = auth.map { [$0.user, $0.password] }
        return try await offPool {
            try SMTPSink(security: security, auth: credentials.map { ($0[0], $0[1]) }, loginOnly: loginOnly, port: port, directory: directory)
        }
    }

    /// Messages accepted so far, in arrival order.
    public func received() throws -> [Received] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        return try files.map { try JSONDecoder().decode(Received.self, from: Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    /// Asks the sink to stop and returns at once; a thread of its own reaps it. For clean-up
    /// (`defer`): a wait here would hold one of the cooperative pool's two threads for seconds.
    public func stop() {
        guard process.isRunning else { return }
        process.closeInput()
        let process = self.process
        Thread { Self.reap(process) }.start()
    }

    /// Stops the sink and returns once its port is dark (the outage tests need that); messages stay readable.
    public func shutDown() async {
        guard process.isRunning else { return }
        process.closeInput()
        let process = self.process
        _ = try? await offPool { Self.reap(process) }
    }

    /// A sink still holding a client's connection may not finish; never wait on it for long.
    private static func reap(_ process: ChildProcess) {
        for _ in 0..<50 where process.isRunning { usleep(100_000) }
        process.send(SIGKILL)
        process.wait()
    }

    deinit {
        stop()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    public struct SinkError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}

extension FileHandle {
    /// Bytes up to (not including) the next newline, or to end of file.
    func readLine() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}
