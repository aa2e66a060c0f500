#if canImport(Glibc)
import Glibc
#endif
import Subprocesses
import Testing

/// What a child of ours starts with: the test helpers, the alarm command and pg_dump rely on it.
@Suite struct ChildProcessTests {
    /// Runs `script` with /bin/sh and returns its stdout.
    func shell(_ script: String, environment: [String: String] = [:]) throws -> String {
        let child = try ChildProcess.spawn("/bin/sh", ["-c", script], environment: environment, stdout: .pipe)
        let output = String(decoding: child.readOutputToEnd(), as: UTF8.self)
        #expect(child.wait() == 0)
        return output
    }

    @Test func environmentIsOursWithTheAdditionsOverIt() throws {
        let output = try shell(#"printf '%s|%s|%s' "$BIKEBEACON_CHILD_TEST" "$HOME" "${PATH:+set}""#,
                               environment: ["BIKEBEACON_CHILD_TEST": "added", "HOME": "/nowhere"])
        #expect(output == "added|/nowhere|set")
    }

    /// A descriptor we hold without close-on-exec (a listening socket, a pipe whose reader waits
    /// for end of file) must not live on in a child.
    @Test func aChildGetsOnlyStandardInputOutputAndError() throws {
        let ours = open("/dev/null", O_RDONLY)
        try #require(ours > 2)
        defer { close(ours) }
        let listed = try shell(#"for fd in /proc/$$/fd/*; do echo "${fd##*/}"; done"#).split(separator: "\n")
        #expect(!listed.contains(Substring(String(ours))), "inherited \(ours): \(listed)")
        #expect(Set(listed).isSuperset(of: ["0", "1", "2"]))
    }

    /// A test runner blocks SIGTERM and the sentinel ignores SIGPIPE; a child must start with
    /// neither, or `terminate()` would not end it and a shell pipeline in an alarm script would hang.
    @Test func signalsStartUnblockedAndAtTheirDefaults() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let oldPipe = signal(SIGPIPE, SIG_IGN)
        defer {
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            signal(SIGPIPE, oldPipe)
        }
        let status = try shell("exec grep -E '^(SigBlk|SigIgn):' /proc/self/status")
        func mask(_ name: String) -> UInt64? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        }
        // The standard signals (1-31); glibc keeps its own real-time ones apart.
        let standard: UInt64 = 0x7FFF_FFFF
        #expect(mask("SigBlk").map { $0 & standard } == 0, "\(status)")
        #expect(mask("SigIgn").map { $0 & standard } == 0, "\(status)")
    }

    @Test func terminateEndsAChildAndItsStatusSaysBySignal() throws {
        let child = try ChildProcess.spawn("/bin/sleep", ["30"])
        #expect(child.isRunning)
        child.terminate()
        #expect(child.wait() == 128 + SIGTERM)
        #expect(!child.isRunning)
    }
}
