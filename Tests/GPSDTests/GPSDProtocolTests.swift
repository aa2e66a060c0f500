import Foundation
import Testing
import TestSupport
@testable import GPSD

/// The codec on gpsd's own output, from its regression tests (Tests/Fixtures/gpsd/SOURCE.txt).
struct GPSDProtocolTests {
    static func lines(_ name: String) throws -> [[UInt8]] {
        var framer = GPSDLineFramer()
        return framer.lines(try Data(contentsOf: Paths.fixture("gpsd/\(name)")))
    }

    static func positions(_ name: String) throws -> [GPSDPosition] {
        try lines(name).compactMap { line in
            if case let .position(position) = try GPSDProtocol.decode(line).get() { return position }
            return nil
        }
    }

    @Test func aWalkIsReadFixByFix() throws {
        let positions = try Self.positions("haicom-305N.json")
        #expect(positions.count == 268)
        // The receiver starts without a fix; every later fix is in Queensland, where it was recorded.
        #expect(positions.first?.mode == .noFix)
        #expect(positions.first?.hasPosition == false)
        let fixes = positions.filter(\.hasPosition)
        #expect(fixes.count > 200)
        for fix in fixes {
            #expect(abs((fix.latitude ?? 0) - -27.2107) < 0.01)
            #expect(abs((fix.longitude ?? 0) - 153.052) < 0.01)
        }
        // It walked: some fixes faster than 1 m/s, and its times run forward.
        #expect(fixes.contains { ($0.speed ?? 0) > 1 })
        let times = fixes.compactMap(\.time)
        #expect(times == times.sorted())
    }

    @Test func errorAndTimeComeFromTheFix() throws {
        let positions = try Self.positions("bu303-moving.json")
        #expect(positions.count == 4)
        // gpsd's first TPV has no error estimate yet: unknown, not zero.
        #expect(positions[0].horizontalError == nil)
        #expect(positions[0].mode == .threeD)
        #expect(positions[0].latitude == 46.498287177)
        #expect(positions[0].longitude == 7.567411672)
        #expect(positions[0].speed == 0.091)
        #expect(positions[1].horizontalError == 45.571)
        // 2005-06-09T14:34:45.280Z
        #expect(positions[1].time == 1_118_327_685.28)
    }

    @Test func withoutAFixThereIsNoPosition() throws {
        let positions = try Self.positions("bu303-nofix.json")
        #expect(positions.count == 7)
        #expect(positions.allSatisfy { $0.mode == .noFix && !$0.hasPosition })
    }

    @Test func otherClassesAreNotPositions() throws {
        let classes = try Self.lines("session-start.json").map { try GPSDProtocol.decode($0).get() }
        #expect(classes == [.other(class: "VERSION"), .other(class: "DEVICES"), .other(class: "WATCH")])
        #expect(try GPSDProtocol.decode(Array(#"{"class":"SKY","nSat":0,"uSat":0}"#.utf8)).get() == .other(class: "SKY"))
    }

    @Test func epxAndEpyStandInForEph() throws {
        let line = Array(#"{"class":"TPV","mode":2,"lat":52.09,"lon":5.12,"epx":3.0,"epy":4.0}"#.utf8)
        guard case let .position(position) = try GPSDProtocol.decode(line).get() else { Issue.record("not a position"); return }
        #expect(position.horizontalError == 5)
        #expect(position.hasPosition)
    }

    @Test(arguments: [
        ("not json at all", "not a JSON object"),
        (#"[1,2,3]"#, "not a JSON object"),
        (#"{"mode":3}"#, "not a JSON object"),
        (#"{"class":"TPV","mode":"3"}"#, "'mode' has the wrong type"),
        (#"{"class":"TPV","mode":7}"#, "mode must be 0…3"),
        (#"{"class":"TPV","mode":3,"lat":91.0,"lon":5.0}"#, "lat must be -90…90"),
        (#"{"class":"TPV","mode":3,"lat":52.0,"lon":-180.5}"#, "lon must be -180…180"),
        (#"{"class":"TPV","mode":3,"lat":52.0,"lon":5.0,"eph":-1}"#, "eph must be a number ≥ 0"),
        (#"{"class":"TPV","mode":3,"time":"yesterday"}"#, "time is not an ISO 8601 time"),
        (#"{"class":"TPV","mode":3,"lat":52.0,"#, "not a JSON object"),
    ])
    func malformedLinesAreRefusedWithAReason(line: String, reason: String) {
        switch GPSDProtocol.decode(Array(line.utf8)) {
        case .success: Issue.record("accepted \(line)")
        case let .failure(error): #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test func linesAreFramedAcrossReadsAndOverlongOnesDropped() {
        var framer = GPSDLineFramer(maximumLength: 8)
        #expect(framer.lines(Array("abc".utf8)) == [])
        #expect(framer.lines(Array("de\r\n\nfg\n".utf8)) == [Array("abcde".utf8), Array("fg".utf8)])
        // Too long: dropped up to its newline, counted, and the next line is whole again.
        #expect(framer.lines(Array("0123456789abcdef".utf8)) == [])
        #expect(framer.lines(Array("xyz\nok\n".utf8)) == [Array("ok".utf8)])
        #expect(framer.overlong == 1)
    }
}
