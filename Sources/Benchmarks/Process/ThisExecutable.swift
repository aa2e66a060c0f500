#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The running executable and its siblings (through /proc on Linux): a bench starts the
/// `bikebeacon` that `swift build` put beside it.
public enum ThisExecutable {
    public static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `name` in this executable's directory.
    public static func sibling(_ name: String) -> String {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (directory.isEmpty ? "." : directory) + "/" + name
    }
}
