import Beacon
import Foundation
import Registry
import Testing
import TestSupport
@testable import Sentinel

/// A sentinel restarted (crash, power cut, upgrade) while a missing bike stands in range: the
/// owner must not get a second `arrived` for a bike that never left. On the real capture
/// (Tests/Fixtures/captures/govee-h5100.btsnoop): the missing tag is heard every ~10 s for 6 minutes.
@Suite struct RestartTests {
    static func core() -> SentinelCore {
        SentinelCore(registry: MissingRegistry(version: 1, bikes: [TestValues.bike(SentinelCoreTests.missing)]), sighting: .init(presentInterval: 120))
    }

    static func events(_ sightings: [Sighting]) -> [String] { sightings.map(\.event.rawValue) }

    /// The capture cut at `restartAt` seconds after its start: the first process up to there, then
    /// a new core restored from the first's open visits `downFor` seconds later, on to the end.
    static func restarted(at restartAt: Double, downFor: Double, save: Bool = true)
        async throws -> (before: [Sighting], after: [Sighting], restored: Int) {
        let ads = try await SentinelCoreTests.advertisements()
        let cut = try #require(ads.first).time + restartAt
        var first = core()
        var before: [Sighting] = []
        for ad in ads where ad.time < cut { before += first.replay(ad, makeID: { UUID() }).sightings }
        let saved = save ? first.openVisits() : []
        var second = core()
        let (restored, _) = second.restore(saved, now: cut + downFor)
        var after: [Sighting] = []
        for ad in ads where ad.time >= cut + downFor { after += second.replay(ad, makeID: { UUID() }).sightings }
        after += second.finishReplay(makeID: { UUID() }).sightings
        return (before, after, restored)
    }

    @Test func aBikeThatNeverLeftIsNotReportedArrivedAgain() async throws {
        // Without the saved visits, the restarted sentinel reports the bike as arrived again: the bug.
        let forgotten = try await Self.restarted(at: 200, downFor: 20, save: false)
        #expect(Self.events(forgotten.after).first == "arrived")

        let run = try await Self.restarted(at: 200, downFor: 20)
        #expect(Self.events(run.before).first == "arrived")
        #expect(run.restored == 1)
        #expect(!Self.events(run.after).contains("arrived"))
        // The visit goes on: reported present, then departed once, as the one that began before the restart.
        #expect(Self.events(run.after).last == "departed")
        #expect(Self.events(run.after).filter { $0 == "departed" }.count == 1)
        let arrived = try #require(run.before.first)
        #expect(run.after.allSatisfy { $0.firstSeen == arrived.firstSeen })
    }

    /// A bike heard every second from `from` to `to` (core time).
    static func hear(_ core: inout SentinelCore, from: Double, to: Double) -> [Sighting] {
        stride(from: from, through: to, by: 1).flatMap { time in
            core.replay(Advertisement(beacon: SentinelCoreTests.missing, rssi: -60, measuredPower: -59, address: nil, time: time),
                        makeID: { UUID() }).sightings
        }
    }

    @Test func aVisitOlderThanTheAbsenceTimeoutIsDroppedAndTheBikeArrivesAfresh() {
        var first = Self.core()
        #expect(Self.events(Self.hear(&first, from: 1000, to: 1060)) == ["arrived"])
        // Down for longer than the longest absence timeout (120 s): the bike may have left and come back.
        var restarted = Self.core()
        #expect(restarted.restore(first.openVisits(), now: 1185) == (restored: 0, dropped: 1))
        #expect(Self.events(Self.hear(&restarted, from: 1185, to: 1245)) == ["arrived"])
    }

    /// Found by the field test: visits saved on the server's clock (the Pi's own 5 h behind) and restored at start,
    /// before the server's clock is known again, lay 5 h ahead, and no "present" came until the bike left.
    @Test func visitsSavedOnTheServersClockGoOnWhenRestoredBehindIt() {
        var first = Self.core()
        first.stampShift = 5 * 3600
        #expect(Self.events(Self.hear(&first, from: 1000, to: 1060)) == ["arrived"])
        var restarted = Self.core()
        #expect(restarted.restore(first.openVisits(), now: 1070).restored == 1)
        let after = Self.hear(&restarted, from: 1070, to: 1200)
        #expect(Self.events(after) == ["present"], "\(Self.events(after))")
    }

    @Test func aBikeGoneDuringTheRestartIsReportedDepartedOnce() throws {
        var first = Self.core()
        let out = Self.hear(&first, from: 1000, to: 1060)
        #expect(Self.events(out) == ["arrived"])
        var restarted = Self.core()
        #expect(restarted.restore(first.openVisits(), now: 1070).restored == 1)
        // Not heard again: departed when 120 s have passed without it, with the visit's own times.
        #expect(restarted.tick(at: 1150, makeID: { UUID() }).sightings.isEmpty)
        let departed = restarted.tick(at: 1190, makeID: { UUID() }).sightings
        #expect(Self.events(departed) == ["departed"])
        #expect(departed.first?.firstSeen == out.first?.firstSeen && departed.first?.lastSeen == 1060)
        #expect(restarted.tick(at: 1300, makeID: { UUID() }).sightings.isEmpty)
    }

    @Test func theVisitsFileRoundTripsAndADamagedOneIsIgnored() throws {
        let dir = try TestValues.temporaryDirectory()
        let file = VisitsFile(path: dir.appendingPathComponent("visits.json").path)
        #expect(file.load() == .absent)
        var core = Self.core()
        _ = Self.hear(&core, from: 1000, to: 1060)
        let visits = core.openVisits()
        try #require(visits.count == 1)
        try file.save(visits)
        #expect(file.load() == .loaded(visits))
        // Small: an SD card gets a few hundred bytes per save.
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)).count < 512)
        try Data("{\"visits\": [{\"beacon\": 12".utf8).write(to: URL(fileURLWithPath: file.path))
        guard case .ignored = file.load() else {
            Issue.record("a torn file must be ignored")
            return
        }
    }

    @Test func theFileIsWrittenWhenAVisitChangesAndOtherwiseAtMostEveryRefresh() throws {
        let file = VisitsFile(path: "/nonexistent/visits.json", refresh: 30)
        var core = Self.core()
        _ = Self.hear(&core, from: 1000, to: 1060)
        let open = core.openVisits()
        #expect(file.isDue(open, saved: [], savedAt: 1059, now: 1060))
        #expect(!file.isDue([], saved: [], savedAt: 0, now: 1060))
        var heardLater = open
        heardLater[0].lastSeen += 5
        #expect(!file.isDue(heardLater, saved: open, savedAt: 1060, now: 1065))
        #expect(file.isDue(heardLater, saved: open, savedAt: 1060, now: 1090))
        var reported = open
        reported[0].lastReport += 120
        #expect(file.isDue(reported, saved: open, savedAt: 1060, now: 1061))
        #expect(file.isDue([], saved: open, savedAt: 1060, now: 1061))
    }
}

