import Foundation
import Synchronization
import TestSupport
import Subprocesses

/// A private `dbus-daemon` with python-dbusmock's bluez5 template on it, in a temp dir of its own.
///
/// The daemon runs under a small shell that kills it when our end of its stdin closes, which also
/// happens when the test process dies; the mock exits by itself when its bus goes away. So a
/// crashed test run leaves no processes behind.
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
    private let daemon = Mutex<ChildProcess?>(nil)
    private let mock = Mutex<ChildProcess?>(nil)
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
        let process = try ChildProcess.spawn(
            "/bin/sh", ["-c", #"dbus-daemon --session --nofork --address="unix:path=$1" & d=$!; cat >/dev/null; kill -9 $d; wait $d"#, "sh", socket],
            input: true, stdout: .discard, stderr: .discard)
        daemon.withLock { $0 = process }
        try await waitFor("the private bus socket", within: 5) { [socket] in FileManager.default.fileExists(atPath: socket) }
    }

    /// Stops dbus-daemon (the mock goes with it).
    private func stopBus() async {
        guard let process = daemon.withLock({ $0.take() }) else { return }
        process.closeInput()
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
        let process = try ChildProcess.spawn(Self.python, ["-m", "dbusmock", "--template", "bluez5", "-l", mockLog(number).path],
                                             environment: environment, stdout: .discard, stderr: .discard)
        mock.withLock { $0 = process }
        try await control("wait-bluez")
    }

    /// Kills the mock as a crash would (SIGKILL) and waits until it is gone.
    func killMock() async {
        guard let process = mock.withLock({ $0.take() }) else { return }
        process.send(SIGKILL)
        await waitForExit(process)
    }

    /// What the n-th mock was asked, one call per line.
    func mockCalls(_ number: Int = 1) -> String {
        (try? String(contentsOf: mockLog(number), encoding: .utf8)) ?? ""
    }

    /// Runs one action of the control script against this bus; throws with its stderr on failure.
    @discardableResult
    func control(_ arguments: String...) async throws -> String {
        let result = try await run(path: Self.python, [Self.control] + arguments, environment: environment)
        guard result.status == 0 else {
            throw MockError("bluez_mock_control \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
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
