import Foundation

/// Fresh directories for tests whose files outlive them (an outbox, a bikes file), all inside one folder per test
/// process that is removed when the process exits: before, each run of the suite left 81 outbox folders, about
/// 35 MB, in /tmp. A crashed run keeps its files, which may say why.
public enum TestDirectory {
    private static let root: URL = {
        atexit { try? FileManager.default.removeItem(at: TestDirectory.root) }
        return FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
    }()

    /// A new empty directory named `prefix` and a UUID.
    public static func fresh(_ prefix: String) throws -> URL {
        let url = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
