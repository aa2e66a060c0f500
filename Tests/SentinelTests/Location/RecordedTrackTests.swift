import Foundation
import GPSD
import Testing
import TestSupport
@testable import Sentinel

/// The demo's recorded track: gpsd's recorded output for a walk, played on a replayed capture's clock.
@Suite struct RecordedTrackTests {
    static func walk() throws -> RecordedTrack {
        try RecordedTrack(gpsdJSON: try Data(contentsOf: Paths.fixture("gpsd/haicom-305N.json")))
    }

    @Test func theTrackStartsWithTheReplayAndItsFixTimesMoveWithIt() throws {
        let track = try Self.walk()
        // The walk's TPVs with a time: 09:53:0x to 09:54:15.787 on 2007-04-08.
        #expect(track.reports.first?.time == 0)
        #expect(track.duration > 65 && track.duration < 75)
        var playback = RecordedTrack.Playback(track)
        let start = 1_706_389_028.0
        let first = playback.due(by: start)
        #expect(!first.isEmpty && first.allSatisfy { $0.time == start })
        #expect(playback.due(by: start).isEmpty)
        let tenSeconds = playback.due(by: start + 10)
        #expect(!tenSeconds.isEmpty)
        #expect(tenSeconds.allSatisfy { ($0.time ?? 0) > start && ($0.time ?? .infinity) <= start + 10 })
        let rest = playback.due(by: start + 3600)
        #expect(first.count + tenSeconds.count + rest.count == track.reports.count)
        #expect(rest.last?.time == start + track.duration)
    }

    @Test func aFixFromTheTrackPlacesASightingAtTheReplaysTime() async throws {
        let location = RoamingLocation(maxFixAge: 10, clock: LiveClock(), track: try Self.walk())
        await location.advance(to: 1000)
        await location.advance(to: 1040)
        guard case let .fix(fix) = await location.place() else {
            Issue.record("no fix 40 s into the walk")
            return
        }
        #expect(fix.time > 1030 && fix.time <= 1040)
        #expect(abs(fix.latitude + 27.2107) < 0.001 && abs(fix.longitude - 153.052) < 0.001)
        // After the track ends, its last fix ages out like a live one.
        await location.advance(to: 1000 + 75 + 11)
        #expect(await location.place() == .noFix)
    }

    @Test func aFileWithoutTimedReportsIsRefusedWithTheReason() throws {
        #expect(throws: ConfigurationError.self) { try RecordedTrack(gpsdJSON: Array(#"{"class":"TPV","mode":1}"#.utf8) + [10]) }
        #expect(throws: ConfigurationError.self) { try RecordedTrack(gpsdJSON: Array("not gpsd at all\n".utf8)) }
    }
}
