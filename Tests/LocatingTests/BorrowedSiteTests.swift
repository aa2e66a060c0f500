import Benchmarks
import Locating
import Testing
import TestSupport

/// The shipped radius on a site none of its constants saw: rooms whose receivers line two walls, made
/// of herald's and pcng's phones (../shared/data/rssi), with no calibration. Their levels are flat or
/// climb again over stretches and their exponents learn steep, where a radius drawn from the fit's
/// information alone held 70 and 78 %.
@Suite struct BorrowedSiteTests {
    @Test(arguments: [("herald", 3.0), ("pcng", 5.0)])
    func aRoomsRadius90HoldsWithoutCalibration(set: String, reach: Double) throws {
        guard Paths.hasSharedData else {
            print("skipped: no shared data at \(Paths.sharedData.path)")
            return
        }
        let folder = Paths.sharedData.appendingPathComponent("rssi").path
        let dataset = set == "herald" ? try RSSIDatasets.herald(directory: folder) : try RSSIDatasets.pcng(directory: folder)
        let rows = try #require(BorrowedSite.run(dataset, reach: reach, kinds: ["room"], calibrations: ["none"]))
        let room = try #require(rows.first)
        let held = try #require(room.scores[0].inside90)
        #expect(held >= 0.80, "\(set)'s \(room.layout): radius90 held \(Int(held * 100)) %")
    }
}
