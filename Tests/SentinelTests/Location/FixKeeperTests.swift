import Foundation
import GPSD
import Testing
import TestSupport
@testable import Sentinel

/// The roaming sentinel's fix: how old it may be, what a sighting carries, when it is parked;
/// on gpsd's own reports of a walk (Tests/Fixtures/gpsd).
@Suite struct FixKeeperTests {
    static let walk = GPSDPosition(mode: .threeD, time: 1_175_925_187.801, latitude: -27.21081, longitude: 153.052155,
                                   horizontalError: 12.5, speed: 3.788)

    /// A receiver whose date is years off (a GPS week rollover; gpsd's 1024-week correction made a
    /// 2014 recording read 2034) keeps its position but not its time: the fix is stamped with the
    /// sentinel's clock, which the server checks sightings against. Within the tolerance the
    /// receiver's own time stays (it says when the position was measured).
    @Test func aReceiverClockFarOffIsReplacedByTheSentinelsOwn() {
        let now = 1_795_000_000.0
        for (offset, expected) in [(20 * 365 * 86_400.0, now), (-20 * 365 * 86_400.0, now), (61, now), (-61, now), (0.8, now + 0.8), (-45, now - 45)] {
            var keeper = FixKeeper(maxFixAge: 10)
            var position = Self.walk
            position.time = now + offset
            keeper.take(position, at: now)
            #expect(keeper.fix(at: now) == SightingFix(latitude: -27.21081, longitude: 153.052155, accuracy: 12.5, time: expected), "receiver \(offset) s off")
        }
    }

    @Test func aSightingCarriesTheLastFixWhileItIsFresh() {
        var keeper = FixKeeper(maxFixAge: 10)
        #expect(keeper.place(at: 100) == .noFix)
        keeper.take(Self.walk, at: 100)
        // The receiver's 2007 date is years from the sentinel's clock (100 s here): the fix carries the sentinel's.
        let fix = SightingFix(latitude: -27.21081, longitude: 153.052155, accuracy: 12.5, time: 100)
        #expect(keeper.place(at: 100) == .fix(fix))
        #expect(keeper.place(at: 110) == .fix(fix))
        // Older than maxFixAge by when it arrived (the receiver's own clock may be years off): none.
        #expect(keeper.place(at: 110.5) == .noFix)
    }

    @Test func losingTheFixKeepsTheLastOneOnlyUntilItIsOld() {
        var keeper = FixKeeper(maxFixAge: 10)
        keeper.take(Self.walk, at: 100)
        keeper.take(GPSDPosition(mode: .noFix, time: 1_175_925_190), at: 101)
        #expect(keeper.fix(at: 105)?.latitude == -27.21081)
        #expect(keeper.fix(at: 111) == nil)
    }

    /// A minute in a tunnel: gpsd reports mode 1 every second. Sightings keep going, with the last
    /// fix until it is maxFixAge old, then with `fix: none`; the next fix places them again at once.
    @Test func aMinuteWithoutAFixSendsSightingsWithoutAPosition() throws {
        var keeper = FixKeeper(maxFixAge: 10)
        keeper.take(Self.walk, at: 0)
        let first = try #require(keeper.fix(at: 0))
        for second in 1...60 {
            keeper.take(GPSDPosition(mode: .noFix), at: Double(second))
            #expect(keeper.place(at: Double(second)) == (second <= 10 ? .fix(first) : .noFix))
            #expect(!keeper.isParked(at: Double(second)))
        }
        var back = Self.walk
        back.latitude = -27.2150
        keeper.take(back, at: 61)
        #expect(keeper.fix(at: 61)?.latitude == -27.2150)
    }

    /// A receiver that re-acquires after multipath may jump hundreds of metres: the next sighting
    /// carries the new fix, not a blend with the old one (the server shows what gpsd said).
    @Test func aJumpInTheFixMovesTheNextSightingAtOnce() {
        var keeper = FixKeeper(maxFixAge: 10)
        keeper.take(Self.walk, at: 0)
        var jumped = Self.walk
        jumped.latitude = -27.2060
        jumped.longitude = 153.0580
        jumped.horizontalError = 48
        keeper.take(jumped, at: 1)
        #expect(keeper.place(at: 1) == .fix(SightingFix(latitude: -27.2060, longitude: 153.0580, accuracy: 48, time: 1)))
    }

    @Test func aFixWithoutItsOwnTimeIsStampedWhenItArrived() {
        var keeper = FixKeeper(maxFixAge: 10)
        keeper.take(GPSDPosition(mode: .twoD, latitude: 52.09, longitude: 5.12), at: 200)
        #expect(keeper.fix(at: 201) == SightingFix(latitude: 52.09, longitude: 5.12, accuracy: nil, time: 200))
    }

    @Test func parkedAfterAMinuteBelowOneMetrePerSecond() {
        var keeper = FixKeeper(maxFixAge: 10)
        var slow = Self.walk
        slow.speed = 0.4
        for second in 0...59 { keeper.take(slow, at: Double(second)) }
        #expect(!keeper.isParked(at: 59))
        keeper.take(slow, at: 60)
        #expect(keeper.isParked(at: 60))
        // Moving again ends it at once; so does losing the fix.
        keeper.take(Self.walk, at: 61)
        #expect(!keeper.isParked(at: 61))
        for second in 62...130 { keeper.take(slow, at: Double(second)) }
        #expect(keeper.isParked(at: 130))
        keeper.take(GPSDPosition(mode: .noFix), at: 131)
        #expect(!keeper.isParked(at: 131))
    }

    /// gpsd's reports of a recorded walk at about 1.2 m/s, with a few seconds' noisy 0 m/s readings
    /// and a slower stretch: never a minute below 1 m/s, so never parked.
    @Test func aRecordedWalkIsNeverParked() throws {
        var framer = GPSDLineFramer()
        let lines = framer.lines(try Data(contentsOf: Paths.fixture("gpsd/haicom-305N.json")))
        var keeper = FixKeeper(maxFixAge: 10)
        var parked = 0, moving = 0
        for (second, line) in lines.enumerated() {
            guard case let .success(.position(position)) = GPSDProtocol.decode(line) else { continue }
            keeper.take(position, at: Double(second))
            if keeper.fix(at: Double(second)) != nil { if keeper.isParked(at: Double(second)) { parked += 1 } else { moving += 1 } }
        }
        #expect(parked == 0)
        #expect(moving == 248)
    }

    @Test func aRoamingSightingTravelsWithItsPositionOrItsLackOfOne() throws {
        var sighting = TestValues.sighting(.present)
        sighting.event = .passing
        sighting.place = .fix(SightingFix(latitude: 52.0912, longitude: 5.1231, accuracy: 8, time: 1_763_762_000.25))
        let object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(sighting)) as? [String: Any])
        #expect(object["fix"] as? String == "gps" && object["latitude"] as? Double == 52.0912 && object["longitude"] as? Double == 5.1231)
        #expect(object["accuracy"] as? Double == 8 && object["fixTime"] as? String == "2025-11-21T21:53:20.250Z")
        #expect(try JSONDecoder().decode(Sighting.self, from: JSONEncoder().encode(sighting)) == sighting)

        sighting.place = .noFix
        let none = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(sighting)) as? [String: Any])
        #expect(none["fix"] as? String == "none" && none["latitude"] == nil)
        #expect(try JSONDecoder().decode(Sighting.self, from: JSONEncoder().encode(sighting)) == sighting)

        // A sentinel at a fixed place sends exactly the fields it always did.
        sighting.place = .enrolled
        let fixed = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(sighting)) as? [String: Any])
        #expect(fixed["fix"] == nil && fixed["latitude"] == nil && fixed["fixTime"] == nil)
    }
}
