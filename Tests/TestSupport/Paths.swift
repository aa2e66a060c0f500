import Foundation

/// Where tests find the repository, its fixtures, the shared data and the built executables.
public enum Paths {
    /// The repository root, derived from this source file's location.
    public static let repository: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let fixtures = repository.appendingPathComponent("Tests/Fixtures")

    public static func fixture(_ name: String) -> URL { fixtures.appendingPathComponent(name) }

    /// `../shared/data` beside the repository (CI puts it there), or `$BIKEBEACON_SHARED_DATA`.
    public static let sharedData: URL = {
        if let override = ProcessInfo.processInfo.environment["BIKEBEACON_SHARED_DATA"] {
            return URL(fileURLWithPath: override)
        }
        return repository.deletingLastPathComponent().appendingPathComponent("shared/data")
    }()

    public static var hasSharedData: Bool {
        FileManager.default.fileExists(atPath: sharedData.path)
    }

    /// The folder holding the built products (the test bundle lives beside them).
    public static let products: URL = {
        let bundle = Bundle.main.bundleURL
        return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
    }()

    public static func executable(_ name: String) -> URL { products.appendingPathComponent(name) }
}
