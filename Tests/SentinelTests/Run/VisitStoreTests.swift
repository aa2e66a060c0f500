import Beacon
import Foundation
import Registry
import Testing
@testable import Sentinel

/// The visit store: a missing bike in range when the sentinel stops is still in range after the restart, without
/// a second arrival; a file it cannot read or write costs a log line, never the run.
@Suite struct VisitStoreTests {
    static let registry = MissingRegistry(version: 1, bikes: [TestValues.bike(SentinelCoreTests.missing)])

    static func heard(at time: Double) -> Advertisement {
        Advertisement(beacon: SentinelCoreTests.missing, rssi: -60, measuredPower: nil, address: nil, time: time)
    }

    /// A core that has heard the missing bike every second for the last 20: its visit is open.
    static func coreWithAVisit(_ clock: LiveClock) -> SentinelCore {
        var core = SentinelCore(registry: registry)
        for second in 0..<20 { _ = core.observe(heard(at: clock.now - 20 + Double(second)), makeID: { UUID() }) }
        _ = core.tick(at: clock.now, makeID: { UUID() })
        return core
    }

    @Test func savedVisitsComeBackAfterARestartWithoutASecondArrival() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("visits.json").path
        let clock = LiveClock()
        let core = Self.coreWithAVisit(clock)
        let open = core.openVisits(stamped: false)
        #expect(open.count == 1)

        var store = VisitStore(file: VisitsFile(path: path), clock: clock, logger: LogLines().logger())
        store.save(core)
        #expect(FileManager.default.fileExists(atPath: path))

        let log = LogLines()
        var restarted = SentinelCore(registry: Self.registry)
        var reopened = VisitStore(file: VisitsFile(path: path), clock: clock, logger: log.logger())
        reopened.restore(into: &restarted, now: clock.now)
        #expect(restarted.openVisits(stamped: false).map(\.beacon) == [SentinelCoreTests.missing])
        #expect(log.count("notice open visits from before the restart") == 1, "\(log.all)")
        let heard = restarted.observe(Self.heard(at: clock.now + 1), makeID: { UUID() })
        #expect(!heard.sightings.contains { $0.event == .arrived }, "no second arrival")
    }

    @Test func anUnreadableFileIsIgnoredAndAnUnwritableOneOnlyWarns() async throws {
        let directory = try TestValues.temporaryDirectory()
        let path = directory.appendingPathComponent("visits.json").path
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        let log = LogLines()
        var core = SentinelCore(registry: Self.registry)
        var store = VisitStore(file: VisitsFile(path: path), clock: LiveClock(), logger: log.logger())
        store.restore(into: &core, now: LiveClock().now)
        #expect(core.openVisits().isEmpty)
        #expect(log.count("warning ignoring the saved open visits") == 1, "\(log.all)")

        // A directory where the file should be: the save fails, the scan goes on.
        let blocked = directory.appendingPathComponent("blocked").path
        try FileManager.default.createDirectory(atPath: blocked + "/visits.json", withIntermediateDirectories: true)
        let clock = LiveClock()
        var unwritable = VisitStore(file: VisitsFile(path: blocked + "/visits.json"), clock: clock, logger: log.logger())
        unwritable.save(Self.coreWithAVisit(clock))
        #expect(log.count("warning cannot save the open visits") == 1, "\(log.all)")
    }
}
