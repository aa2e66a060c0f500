import Foundation

/// The outcome of running a built executable.
public struct RunResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

/// Runs one of the package's executables to completion, as a user would from a shell.
///
/// Async all the way: the child's exit arrives through its termination handler and its output is
/// read on dedicated threads, so a test waiting for a slow child frees its cooperative thread for
/// the other tests (two cores run the whole suite).
public func run(_ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> RunResult {
    try await run(path: Paths.executable(executable).path, arguments, stdin: stdin, environment: environment)
}

/// Runs any program to completion (e.g. a system tool a test inspects a binary with).
public func run(path: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { _, new in new }
    process.environment = env
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    // Both pipes drain while the child runs, so a chatty child never blocks on a full pipe.
    async let outData = readToEnd(out.fileHandleForReading)
    async let errData = readToEnd(err.fileHandleForReading)
    let status: Int32
    do {
        status = try await withCheckedThrowingContinuation { (exited: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { exited.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                exited.resume(throwing: error)
                return
            }
            let writer = input.fileHandleForWriting
            onThread {
                if let stdin { try? writer.write(contentsOf: stdin) }
                try? writer.close()
            }
        }
    } catch {
        // Never launched: close the write ends so the readers see end of file.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        _ = await (outData, errData)
        throw error
    }
    return RunResult(status: status,
                     stdout: String(decoding: await outData, as: UTF8.self),
                     stderr: String(decoding: await errData, as: UTF8.self))
}

/// Reads a pipe to its end on a thread of its own (the read blocks) and resumes the caller with the bytes.
private func readToEnd(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { done in
        onThread { done.resume(returning: handle.readDataToEndOfFile()) }
    }
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
