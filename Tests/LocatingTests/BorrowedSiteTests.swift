import Benchmarks
import Locating
import Testing
import TestSupport

/// The shipped radius on a site none of its constants saw: rooms whose receivers line two walls, made
/// of herald's and pcng's phones (../shared/data/rssi), with no calibration. Their levels are flat or
/// climb again over stretches and their exponents learn steep, where a radius drawn from the fit's
/// information alone held 70 and 77 %.
@Suite struct BorrowedSiteTests {
    @Test(.cpuBound, arguments: ["herald", "pcng"])
    func aRoomsRadius90HoldsWithoutCalibration(set: String) throws {
        guard Paths.hasSharedData else {
            print("skipped: no shared data at \(Paths.sharedData.path)")
            return
        }
        let (source, reach) = try #require(BorrowedSite.sets.first { $0.source.name == set })
        let dataset = try source.load(Paths.sharedData.appendingPathComponent("rssi").path)
        let rows = try #require(BorrowedSite.run(dataset, reach: reach, kinds: ["room"], calibrations: ["none"]))
        let room = try #require(rows.first)
        let held = try #require(room.scores[0].inside90)
        #expect(held >= 0.80, "\(set)'s \(room.layout): radius90 held \(Int(held * 100)) %")
    }
}
