import Foundation
import Subprocesses

/// The outcome of running a built executable.
public struct RunResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// Runs one of the package's executables to completion, as a user would from a shell.
///
/// Async all the way: the child's exit is awaited on a thread of its own, so a test waiting for a
/// slow child frees its cooperative thread for the other tests (two cores run the whole suite).
public func run(_ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> RunResult {
    try await run(path: Paths.executable(executable).path, arguments, stdin: stdin, environment: environment)
}

/// Runs any program to completion (e.g. a system tool a test inspects a binary with). Its output
/// goes to files, read once it exits, so a chatty child never blocks on a full pipe.
public func run(path: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> RunResult {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("stdout"), err = directory.appendingPathComponent("stderr")
    let child = try ChildProcess.spawn(path, arguments, environment: environment, input: stdin != nil,
                                       stdout: .file(out.path), stderr: .file(err.path))
    async let written: Void = offPool { if let stdin { child.writeInput([UInt8](stdin)) } }
    let status = try await exitStatus(of: child)
    try await written
    func text(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
    return RunResult(status: status, stdout: text(out), stderr: text(err))
}

/// Waits for a child's exit on a thread of its own; its exit status (128 + signal when killed).
public func exitStatus(of child: ChildProcess) async throws -> Int32 {
    try await offPool { child.wait() }
}

/// The child's exit status once it ends by itself, or nil while it still runs after `limit`; polled,
/// so no cooperative thread is held.
public func exitStatus(of child: ChildProcess, within limit: Duration) async -> Int32? {
    let deadline = ContinuousClock.now + limit
    while child.isRunning {
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return child.wait()
}

/// Waits for a child without blocking a cooperative thread; kills it after `seconds`.
public func waitForExit(_ child: ChildProcess, killAfter seconds: Double = 15) async {
    guard await exitStatus(of: child, within: .milliseconds(Int(seconds * 1000))) == nil else { return }
    child.send(SIGKILL)
    _ = try? await exitStatus(of: child)
}

/// Runs blocking work (starting a peer, waiting for a child) on a thread of its own and returns its
/// result: the cooperative pool has only as many threads as cores (two on CI), and a test blocking
/// one starves every other test's async work.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { done in
        onThread { done.resume(with: Result { try work() }) }
    }
}

/// Runs blocking work on a new thread, never on Swift's cooperative pool.
private func onThread(_ work: @escaping @Sendable () -> Void) {
    Thread { work() }.start()
}

/// The first line `child` writes to `file`: waits (blocking) until a whole line is there, the child
/// exits, or `seconds` pass.
public func firstLine(of file: URL, writtenBy child: ChildProcess, within seconds: Double) -> String? {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if let text = try? String(contentsOf: file, encoding: .utf8), let end = text.firstIndex(of: "\n") {
            return String(text[..<end])
        }
        guard child.isRunning else { return nil }
        usleep(20_000)
    }
    return nil
}
