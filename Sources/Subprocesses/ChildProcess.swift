#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A program started with posix_spawn: the alarm command, the demo's local server. (Foundation's
/// `Process` would pull all of Foundation and ICU into the sentinel.)
public final class ChildProcess: Sendable {
    /// Where the child's stdout or stderr goes.
    public enum Output: Sendable {
        case inherit
        case discard
        /// Appended to this file (created if missing).
        case file(String)
        /// A pipe the parent reads with `readOutputToEnd()` (stdout only).
        case pipe
    }

    public let pid: pid_t
    private let input: Int32?
    private let output: Int32?
    /// The exit status once reaped (128 + signal number when killed by a signal).
    private let status = Mutex<Int32?>(nil)

    private init(pid: pid_t, input: Int32?, output: Int32?) {
        self.pid = pid
        self.input = input
        self.output = output
    }

    deinit {
        if let input { close(input) }
        if let output { close(output) }
    }

    /// Starts `program` (a path) with `arguments` and this process's environment. `input`: give
    /// the child a pipe on stdin for `writeInput`; otherwise it reads /dev/null.
    public static func spawn(_ program: String, _ arguments: [String], input: Bool = false,
                             stdout: Output = .inherit, stderr: Output = .inherit) throws(SpawnError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        func pipeEnds() throws(SpawnError) -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw SpawnError(program: program, code: errno) }
            // Only the dup2'd copies reach the child.
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }
        var inputEnd: Int32?
        if input {
            let ends = try pipeEnds()
            inputEnd = ends.write
            parentEnds.append(ends.write)
            childEnds.append(ends.read)
            posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        var outputEnd: Int32?
        for (fd, target) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch target {
            case .inherit: break
            case .discard: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
            case let .file(path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .pipe:
                guard fd == 1 else { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0); continue }
                let ends = try pipeEnds()
                outputEnd = ends.read
                parentEnds.append(ends.read)
                childEnds.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.write, 1)
            }
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard result == 0 else {
            for fd in parentEnds { close(fd) }
            throw SpawnError(program: program, code: result)
        }
        return ChildProcess(pid: pid, input: inputEnd, output: outputEnd)
    }

    /// Writes `bytes` to the child's stdin and closes it. A child that exits without reading is
    /// not an error (the caller ignores SIGPIPE; EPIPE ends the write).
    public func writeInput(_ bytes: [UInt8]) {
        guard let input else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += written
        }
        close(input)
    }

    /// Everything the child writes to its stdout pipe, until it closes it.
    public func readOutputToEnd() -> [UInt8] {
        guard let output else { return [] }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            result += buffer[..<count]
        }
        return result
    }

    /// Blocks until the child exits; its exit status (128 + signal when a signal ended it).
    @discardableResult
    public func wait() -> Int32 {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            guard errno == EINTR else { return status.withLock { $0 } ?? -1 }
        }
        return record(raw)
    }

    /// Whether the child has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        if status.withLock({ $0 }) != nil { return false }
        var raw: Int32 = 0
        let reaped = waitpid(pid, &raw, WNOHANG)
        guard reaped == pid else { return reaped == 0 }
        record(raw)
        return false
    }

    /// Asks the child to stop (SIGTERM).
    public func terminate() {
        if isRunning { kill(pid, SIGTERM) }
    }

    @discardableResult
    private func record(_ raw: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let signal = raw & 0x7F
        let code = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        status.withLock { $0 = code }
        return code
    }
}

/// Why a program could not be started.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    public var program: String
    public var code: Int32

    public var description: String {
        "cannot start \(program): \(String(cString: strerror(code)))"
    }
}
