import Analysis
import Testing

/// The `time,rssi` reader behind `bikebeacon analyze`: good files parse, bad ones name the line.
struct RSSITraceTests {
    @Test func parsesRowsWithCRLFSpacesAndBlankLines() throws {
        let readings = try RSSITrace.parse("time,rssi\r\n0.5, -60\r\n\r\n1.0,-61.5\n1.0,-62\n")
        #expect(readings.map(\.time) == [0.5, 1.0, 1.0])
        #expect(readings.map(\.rssi) == [-60, -61.5, -62])
        #expect(readings.map(\.line) == [2, 4, 5])
        #expect(readings.map { String($0.rssiText) } == ["-60", "-61.5", "-62"])
    }

    @Test func headerOnlyIsAnEmptyTrace() throws {
        #expect(try RSSITrace.parse("time,rssi\n").isEmpty)
    }

    static let bad: [(text: String, error: TraceError)] = [
        ("", .empty),
        ("\n\n", .empty),
        ("0,-60\n1,-61\n", .header(line: 1, found: "0,-60")),
        ("rssi,time\n", .header(line: 1, found: "rssi,time")),
        ("time,rssi\n0,-60,7\n", .fieldCount(line: 2, count: 3)),
        ("time,rssi\n0\n", .fieldCount(line: 2, count: 1)),
        ("time,rssi\n0,-60\nnoon,-61\n", .notANumber(line: 3, column: "time", text: "noon")),
        ("time,rssi\n0,\n", .notANumber(line: 2, column: "rssi", text: "")),
        ("time,rssi\n0,nan\n", .notANumber(line: 2, column: "rssi", text: "nan")),
        ("time,rssi\n1e999,-60\n", .notANumber(line: 2, column: "time", text: "1e999")),
        ("time,rssi\n5,-60\n4.5,-60\n", .timeWentBack(line: 3, time: 4.5, previous: 5)),
    ]

    @Test(arguments: bad.indices)
    func refusesBadInputNamingTheLine(_ index: Int) {
        let (text, expected) = Self.bad[index]
        #expect(throws: expected) { try RSSITrace.parse(text) }
    }

    @Test func arbitraryBytesNeverTrap() {
        var state: UInt64 = 12345
        for _ in 0..<2_000 {
            var bytes: [UInt8] = Array("time,rssi\n".utf8)
            for _ in 0..<Int(state % 64) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            _ = try? RSSITrace.parse(String(decoding: bytes, as: UTF8.self))
        }
    }
}
