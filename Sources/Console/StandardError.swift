#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Operator-facing output that must not mix with report lines on stdout.
public enum StandardError {
    public static func line(_ text: String) {
        Terminal.write(text + "\n", to: STDERR_FILENO)
    }

    /// A logger writing to stderr without bootstrapping the global logging system.
    public static func logger(_ label: String) -> Logger {
        Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
    }
}
