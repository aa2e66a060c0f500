import Foundation
import Synchronization
import TestSupport

/// A private `dbus-daemon` with python-dbusmock's bluez5 template on it, in a temp dir of its own.
///
/// The daemon runs under a small shell that kills it when our end of its stdin closes, which also
/// happens when the test process dies; the mock exits by itself when its bus goes away. So a
/// crashed test run leaves no processes behind. Children of the test runner inherit a signal mask
/// that blocks SIGTERM, so both are ended with SIGKILL.
final class MockBlueZ: Sendable {
    /// Debian's interpreter: python3-dbus and python3-dbusmock are installed for it (a pyenv
    /// `python3` earlier on PATH would not have them).
    static let python = "/usr/bin/python3"
    static let control = Paths.repository.appendingPathComponent("Tests/Mocks/bluez_mock_control.py").path
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: python)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/bluez5.py")
    }

    let directory: URL
    let address: String
    private let socket: String
    private let daemon = Mutex<(Process, Pipe)?>(nil)
    private let mock = Mutex<Process?>(nil)
    private let mockStarts = Mutex(0)

    /// Starts the bus and the mock, with one powered adapter `hci0` unless told otherwise.
    static func start(adapter: Bool = true) async throws -> MockBlueZ {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-dbus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let bus = MockBlueZ(directory: directory)
        do {
            try await bus.startBus()
            try await bus.startMock()
            if adapter { try await bus.control("add-adapter", "hci0") }
            return bus
        } catch {
            await bus.stop()
            throw error
        }
    }

    private init(directory: URL) {
        self.directory = directory
        socket = directory.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
    }

    /// Starts dbus-daemon on the socket (again, after `stopBus`).
    private func startBus() async throws {
        try? FileManager.default.removeItem(atPath: socket)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #"dbus-daemon --session --nofork --address="unix:path=$1" & d=$!; cat >/dev/null; kill -9 $d; wait $d"#,
            "sh", socket,
        ]
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        daemon.withLock { $0 = (process, stdin) }
        try await waitFor("the private bus socket", within: 5) { [socket] in FileManager.default.fileExists(atPath: socket) }
    }

    /// Stops dbus-daemon (the mock goes with it).
    private func stopBus() async {
        guard let (process, stdin) = daemon.withLock({ $0.take() }) else { return }
        try? stdin.fileHandleForWriting.close()
        await waitForExit(process)
    }

    /// The system bus going down and coming back (dbus restarted): a new daemon on the same
    /// socket, a new mock, an adapter.
    func restartBus() async throws {
        await killMock()
        await stopBus()
        try await startBus()
        try await startMock()
        try await control("add-adapter", "hci0")
    }

    /// The environment that points a child (the CLI, the control script) at this bus.
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    /// Starts (or restarts) the bluez5 mock and waits until it owns org.bluez. Each start logs
    /// the calls it receives to `mock-N.log`.
    func startMock() async throws {
        let number = mockStarts.withLock { $0 += 1; return $0 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["-m", "dbusmock", "--template", "bluez5", "-l", mockLog(number).path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        mock.withLock { $0 = process }
        try await control("wait-bluez")
    }

    /// Kills the mock as a crash would (SIGKILL) and waits until it is gone.
    func killMock() async {
        guard let process = mock.withLock({ $0.take() }) else { return }
        kill(process.processIdentifier, SIGKILL)
        await waitForExit(process)
    }

    /// What the n-th mock was asked, one call per line.
    func mockCalls(_ number: Int = 1) -> String {
        (try? String(contentsOf: mockLog(number), encoding: .utf8)) ?? ""
    }

    /// Runs one action of the control script against this bus; throws with its stderr on failure.
    @discardableResult
    func control(_ arguments: String...) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.control] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        await waitForExit(process)
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw MockError("bluez_mock_control \(arguments.joined(separator: " ")) failed: \(message)")
        }
        return output
    }

    /// Stops the mock and the bus and removes the temp dir.
    func stop() async {
        await killMock()
        await stopBus()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Polls until `condition` holds; throws after `seconds`.
    func waitFor(_ what: String, within seconds: Double, _ condition: () -> Bool) async throws {
        if try await eventually(within: seconds, condition) { return }
        throw MockError("timed out after \(seconds) s waiting for \(what)")
    }

    private func mockLog(_ number: Int) -> URL { directory.appendingPathComponent("mock-\(number).log") }
}

struct MockError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Waits for a child without blocking a cooperative thread; kills it after `seconds`.
func waitForExit(_ process: Process, killAfter seconds: Double = 15) async {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while process.isRunning {
        if ContinuousClock.now > deadline { kill(process.processIdentifier, SIGKILL) }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// Runs `body` against a fresh mock and always tears it down.
func withMockBlueZ(adapter: Bool = true, _ body: (MockBlueZ) async throws -> Void) async throws {
    let bus = try await MockBlueZ.start(adapter: adapter)
    do {
        try await body(bus)
    } catch {
        await bus.stop()
        throw error
    }
    await bus.stop()
}
