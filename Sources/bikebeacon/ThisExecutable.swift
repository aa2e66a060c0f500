import Foundation

/// The running executable's path (through /proc on Linux), to start it or find its siblings.
enum ThisExecutable {
    static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
