import Benchmarks
import TestSupport

/// The herald or pcng set: the excerpt in Tests/Fixtures/rssi, or the whole set in
/// ../shared/data/rssi; nil (with a line saying so) when the shared data is absent.
func rssiDataset(_ name: String, whole: Bool) throws -> RSSIDataset? {
    let folder: String
    if whole {
        guard Paths.hasSharedData else {
            print("skipped: no shared data at \(Paths.sharedData.path)")
            return nil
        }
        folder = Paths.sharedData.appendingPathComponent("rssi").path
    } else {
        folder = Paths.fixture("rssi").path
    }
    return name == "herald" ? try RSSIDatasets.herald(directory: folder) : try RSSIDatasets.pcng(directory: folder)
}
