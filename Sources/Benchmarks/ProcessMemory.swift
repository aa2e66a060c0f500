#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resident memory of this process, read from /proc (Linux); nil elsewhere.
public enum ProcessMemory {
    /// Current resident set size in bytes.
    public static var residentBytes: Int? { statusField("VmRSS:") }
    /// Peak resident set size in bytes since the process started.
    public static var peakResidentBytes: Int? { statusField("VmHWM:") }

    private static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
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
