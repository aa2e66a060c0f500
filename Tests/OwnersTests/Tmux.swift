import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
import Subprocesses
#endif

/// A private tmux server (its own socket) holding one 80×24 session, for driving a full-screen
/// program as a user would: keys in, screen contents out.
final class Tmux: Sendable {
    static let path: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { path != nil }

    let socket = "bikebeacon-test-\(UUID().uuidString.prefix(8))"
    let session = "range"

    /// Starts `command` in a detached 80×24 session. The shell that runs it then prints
    /// `EXIT=<status>` and stays, so the screen the program left behind can be inspected.
    init(command: [String]) throws {
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "80", "-y", "24", quoted + "; echo EXIT=$?; exec sleep 600"])
    }

    deinit {
        _ = try? tmux(["kill-server"])
    }

    /// The visible screen, one string per row.
    func screen() throws -> [String] {
        var lines = try tmux(["capture-pane", "-p", "-t", session]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// A tmux format value for the pane, e.g. `alternate_on`, `cursor_flag`, `pane_pid`.
    func value(_ name: String) throws -> String {
        try tmux(["display-message", "-p", "-t", session, "#{\(name)}"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func send(_ key: String) throws {
        try tmux(["send-keys", "-t", session, key])
    }

    /// Polls every 100 ms until `condition` holds on the screen; nil if `timeout` seconds pass first.
    /// The polling runs on a thread of its own: the program's screen moves on with the wall clock,
    /// and a poll that waited for a busy cooperative pool could miss a state that lasts seconds.
    func waitFor(timeout: Double, _ condition: @escaping @Sendable ([String]) -> Bool) async throws -> [String]? {
        try await offPool { () throws -> [String]? in
            let deadline = Date().addingTimeInterval(timeout)
            repeat {
                let lines = try self.screen()
                if condition(lines) { return lines }
                Thread.sleep(forTimeInterval: 0.1)
            } while Date() < deadline
            return nil
        }
    }

    /// The program's exit status once the shell has printed it, nil if it still runs after `timeout` seconds.
    func waitForExit(timeout: Double) async throws -> Int? {
        let lines = try await waitFor(timeout: timeout) { $0.contains { $0.hasPrefix("EXIT=") } }
        return lines?.first { $0.hasPrefix("EXIT=") }.flatMap { Int($0.dropFirst(5)) }
    }

    /// The program's process id: the child of the pane's shell.
    func programPID() throws -> Int32? {
        let shell = try value("pane_pid")
        let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        return children?.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Runs a tmux client command and returns what it printed.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString).out").path
        defer { unlink(output) }
        try ChildProcess.spawn(Self.path ?? "/usr/bin/tmux", ["-L", socket] + arguments, stdout: .file(output), stderr: .file(output)).wait()
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}

struct StartFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
