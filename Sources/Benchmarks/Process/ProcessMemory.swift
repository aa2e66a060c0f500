#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resident memory of this process, or of a child by its pid, read from /proc (Linux); nil
/// elsewhere or once the process is gone.
public enum ProcessMemory {
    /// Current resident set size in bytes.
    public static var residentBytes: Int? { statusField("VmRSS:") }
    /// Peak resident set size in bytes since the process started.
    public static var peakResidentBytes: Int? { statusField("VmHWM:") }

    /// Resident memory of another process, in bytes.
    public struct Resident: Sendable {
        public var current: Int
        /// The most resident at once since the process started.
        public var peak: Int
        /// The process's own memory (heap, stacks): what its data structures cost.
        public var anonymous: Int
        /// Pages of its executable and libraries (and other files) mapped in: code and constant data.
        public var file: Int
    }

    /// The resident memory of process `pid` now.
    public static func resident(of pid: Int32) -> Resident? {
        let process = "\(pid)"
        guard let current = statusField("VmRSS:", process: process), let peak = statusField("VmHWM:", process: process),
              let anonymous = statusField("RssAnon:", process: process), let file = statusField("RssFile:", process: process) else { return nil }
        return Resident(current: current, peak: peak, anonymous: anonymous, file: file)
    }

    private static func statusField(_ name: String, process: String = "self") -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kib = Int(fields[1]) else { return nil }
            return kib * 1024
        }
        return nil
    }
}

/// A monotonic stopwatch for benchmarks.
public struct Stopwatch {
    private let start = ContinuousClock.now
    public init() {}
    public var seconds: Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

nonisolated(unsafe) private var sink = 0

/// Consumes a benchmark's result so the optimiser cannot prove the work unused.
@inline(never)
public func blackHole(_ value: Int) {
    sink &+= value
}

/// A child process run to its end, for the peak resident memory a command costs on its own.
public enum ChildMemory {
    /// GNU time, which forks the command from a process of about a megabyte.
    public static let time = "/usr/bin/time"

    /// Runs `executable` with `arguments` (output discarded) under GNU time and returns its peak
    /// resident set size in bytes, or nil if either could not be run.
    ///
    /// Not wait4's `ru_maxrss` of a child spawned from here: the kernel folds into it the
    /// high-water mark of the memory the child ran in before its exec, and posix_spawn's child
    /// runs in this process's memory until then, so a 9 MB `decode` read as this bench's 30 MB.
    public static func peakResidentBytes(executable: String, arguments: [String]) -> Int? {
        guard FileManager.default.isExecutableFile(atPath: time) else { return nil }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-bench-time-\(getpid())").path
        defer { unlink(report) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([time, "-f", "%M", "-o", report, executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, time, &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        guard let text = try? String(contentsOfFile: report, encoding: .utf8),
              let kilobytes = text.split(whereSeparator: \.isNewline).last.flatMap({ Int($0) }) else { return nil }
        return kilobytes * 1024
    }
}
