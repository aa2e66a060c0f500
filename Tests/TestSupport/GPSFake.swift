import Foundation
import Subprocesses

/// A real gpsd on a loopback port, fed a recorded NMEA log by gpsfake (both from Debian's gpsd
/// and gpsd-clients, installed by `scripts/setup --test`); without them a test fails saying so.
///
/// gpsfake starts gpsd as its own child, in gpsfake's process group (gpsfake is started as a group
/// leader), so `kill` takes gpsd down with gpsfake, as a crash or `systemctl restart gpsd` would.
public final class GPSFake: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    private let log: String
    private let cycle: Double
    private var process: ChildProcess?
    private var directory: URL?
    private let lock = NSLock()

    /// `cycle`: seconds between NMEA sentences (gpsfake's -c).
    public init(log: String, port: Int? = nil, cycle: Double = 0.01) throws {
        for tool in ["gpsfake", "gpsd"] where Self.which(tool) == nil {
            throw Failure(description: "\(tool) is not installed: run scripts/setup --test (Debian packages gpsd, gpsd-clients)")
        }
        self.log = log
        self.cycle = cycle
        self.port = try port ?? LoopbackPort.free()
        try start()
    }

    deinit { kill() }

    /// Starts gpsfake off the cooperative pool: `init` blocks until gpsd has the log's device (a second or two, up to
    /// three starts of 30 s on a loaded machine), and a pool thread held that long stalls every test waiting on a peer.
    public static func started(log: String, port: Int? = nil, cycle: Double = 0.01) async throws -> GPSFake {
        try await offPool { try GPSFake(log: log, port: port, cycle: cycle) }
    }

    /// `start` off the cooperative pool.
    public func restart() async throws {
        try await offPool { try self.start() }
    }

    /// Starts gpsfake (and its gpsd) on `port`, looping the log, and waits until gpsd has the log's
    /// device; a start whose gpsd was never given it is killed and made again, up to three times.
    ///
    /// gpsfake names gpsd's control socket $TMPDIR/gpsfake-PID.sock, takes the file's existence as gpsd
    /// being ready, and gives gpsd the log's device through it, saying nothing when that fails. So gpsd
    /// listened and accepted the client, which then waited for fixes that never came:
    /// - a gpsfake killed earlier leaves its socket behind, and once its pid came round again, a gpsd
    ///   slower to start than gpsfake was never given the device (CI of 3803cd3): each start gets a
    ///   TMPDIR of its own, removed by `kill`;
    /// - gpsd makes the socket's file (bind) before it listens, so on a loaded machine gpsfake can
    ///   connect in between and be refused: the likeliest cause of a fresh clone's run of de9147a,
    ///   where every pass came without a fix. So gpsd is asked for its devices before the test goes on.
    private func start() throws {
        for _ in 1...3 {
            try launch()
            if hasDevice(within: 10) { return }
            kill()
        }
        throw Failure(description: "gpsfake did not give gpsd the log's device in three starts")
    }

    /// One gpsfake and its gpsd, listening on `port`.
    private func launch() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpsfake-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // -n: feed gpsd without waiting for a client; -s: a fast tty (at 4800 baud one fix takes a
        // second whatever -c says); -c: seconds between sentences; -W: no session timeout before the test's.
        let process: ChildProcess
        do {
            process = try ChildProcess.spawn(Self.which("gpsfake") ?? "/usr/bin/gpsfake",
                                             ["-q", "-n", "-s", "115200", "-c", String(cycle), "-W", "600", "-P", String(port), log],
                                             environment: ["TMPDIR": directory.path],
                                             stdout: .discard, stderr: .discard, newProcessGroup: true)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        lock.withLock {
            self.process = process
            self.directory = directory
        }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if acceptsConnections(port: port) { return }
            guard process.isRunning else { throw Failure(description: "gpsfake exited (status \(process.wait())) before gpsd listened") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        kill()
        throw Failure(description: "gpsd did not listen on port \(port) within 20 s")
    }

    /// Whether gpsd lists a device (`?DEVICES;`) within `seconds`: gpsfake gives it one as soon as gpsd is up.
    private func hasDevice(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let fd = connectToLoopback(port: port) {
                defer { close(fd) }
                var timeout = timeval(tv_sec: 1, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let query = Array("?DEVICES;\n".utf8)
                if write(fd, query, query.count) == query.count, let devices = Self.devicesLine(fd), devices.contains("\"devices\":[{") {
                    // An empty list reads "devices":[]; one device, "devices":[{"class":"DEVICE","path":…
                    return true
                }
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return false
    }

    /// The rest of gpsd's DEVICES reply on `fd`, up to its line's end (after the VERSION it greets with; gpsd ends
    /// lines with CRLF, one Character in Swift); nil when none comes.
    private static func devicesLine(_ fd: Int32) -> Substring? {
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let text = String(decoding: reply, as: UTF8.self)
            if let start = text.range(of: "\"class\":\"DEVICES\"")?.upperBound, let end = text[start...].firstIndex(where: \.isNewline) {
                return text[start..<end]
            }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            reply += buffer[..<count]
        }
    }

    /// For a test whose fixes did not come: whether gpsfake still runs, and whether its gpsd still lists the log's device.
    public var state: String {
        let running = lock.withLock { process?.isRunning ?? false }
        return "gpsfake \(running ? "running" : "not running"), its gpsd \(hasDevice(within: 1) ? "lists" : "does not list") the log's device"
    }

    /// Kills gpsfake and its gpsd at once, and waits until the port is free.
    public func kill() {
        guard let (process, directory) = lock.withLock({ self.process.take().map { ($0, self.directory.take()) } }) else { return }
        Glibc.kill(-process.pid, SIGKILL)
        process.send(SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning || acceptsConnections(port: port), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    static func which(_ tool: String) -> String? {
        for directory in ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"] {
            let path = directory + "/" + tool
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}

extension GPSFake {
    /// Runs `body` while no other test in this process runs a gpsd: a full parallel test run with
    /// two gpsfake/gpsd pairs at once starved one client of fixes for 90 s, alone each takes 5 s (that
    /// was likely the stale control socket `start` now steers clear of, but one at a time costs little).
    public static func oneAtATime<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await Turn.shared.acquire()
        do {
            let result = try await body()
            await Turn.shared.release()
            return result
        } catch {
            await Turn.shared.release()
            throw error
        }
    }

    private actor Turn {
        static let shared = Turn()
        private var busy = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            guard busy else {
                busy = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// The turn passes straight to the next waiter, if any.
        func release() {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
    }
}
