import CSpawn
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A program started with posix_spawn: the alarm command, the demo's local server, the tests'
/// peers. (Foundation's `Process` would pull all of Foundation and ICU into the sentinel, and its
/// `run()` lists /proc/self/fd with a buffer over-read that crashes a process holding many
/// descriptors now and then: swift-corelibs-foundation#5472.)
public final class ChildProcess: Sendable {
    /// Where the child's stdout or stderr goes.
    public enum Output: Sendable {
        case inherit
        case discard
        /// Appended to this file (created if missing).
        case file(String)
        /// A pipe the parent reads with `readOutputToEnd()` (stdout or stderr, one of them).
        case pipe
    }

    public let pid: pid_t
    /// The write end of the child's stdin until it is closed (once: a second close could hit a
    /// descriptor reused since).
    private let input: Mutex<Int32?>
    private let output: Int32?
    /// The exit status once reaped (128 + signal number when killed by a signal).
    private let status = Mutex<Int32?>(nil)

    private init(pid: pid_t, input: Int32?, output: Int32?) {
        self.pid = pid
        self.input = Mutex(input)
        self.output = output
    }

    deinit {
        closeInput()
        if let output { close(output) }
    }

    /// Starts `program` (a path) with `arguments` and this process's environment, `environment`
    /// added over it. `input`: give the child a pipe on stdin for `writeInput`; otherwise it reads
    /// /dev/null. `.pipe` is for one of stdout and stderr (`readOutputToEnd` reads it).
    /// `newProcessGroup`: the child leads a group of its own, so a caller can signal it and its
    /// children together. The child gets only descriptors 0, 1 and 2: nothing else it could hold
    /// open (a listening socket, a pipe another reader waits to see closed).
    public static func spawn(_ program: String, _ arguments: [String], environment: [String: String] = [:],
                             input: Bool = false, stdout: Output = .inherit, stderr: Output = .inherit,
                             newProcessGroup: Bool = false) throws(SpawnError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        func pipeEnds() throws(SpawnError) -> (read: Int32, write: Int32) {
            // Close-on-exec from the start: only the dup2'd copies reach the child.
            var fds: [Int32] = [-1, -1]
            guard bikebeacon_pipe_cloexec(&fds) == 0 else { throw SpawnError(program: program, code: errno) }
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
                guard outputEnd == nil else { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0); continue }
                let ends = try pipeEnds()
                outputEnd = ends.read
                parentEnds.append(ends.read)
                childEnds.append(ends.write)
                posix_spawn_file_actions_adddup2(&actions, ends.write, fd)
            }
        }
        bikebeacon_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked and every signal at its default: a parent that
        // ignores SIGPIPE or blocks SIGTERM (a test runner does) must not pass that on.
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environmentEntries(adding: environment).map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            for fd in parentEnds { close(fd) }
            throw SpawnError(program: program, code: result)
        }
        return ChildProcess(pid: pid, input: inputEnd, output: outputEnd)
    }

    /// This process's `NAME=value` entries with `additions` over them.
    private static func environmentEntries(adding additions: [String: String]) -> [String] {
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if additions[name] == nil { entries.append(text) }
            index += 1
        }
        return entries + additions.map { "\($0.key)=\($0.value)" }
    }

    /// Writes `bytes` to the child's stdin and closes it. A child that exits without reading is
    /// not an error (the caller ignores SIGPIPE; EPIPE ends the write).
    public func writeInput(_ bytes: [UInt8]) {
        guard let input = input.withLock({ $0.take() }) else { return }
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

    /// Closes the child's stdin (end of file for it), if still open.
    public func closeInput() {
        if let input = input.withLock({ $0.take() }) { close(input) }
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
        send(SIGTERM)
    }

    /// Sends `signal` to the child while it runs (never to a reaped pid, which may be another's now).
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
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
