import Beacon
import BikebeaconAPI
import Foundation
import Registry
import Testing
@testable import Sentinel

/// A whole list is decoded an entry at a time (`JSONMemberArray`), to spare a Pi Zero the decoder's map of the whole
/// document; it must read every document exactly as the whole document's decoder does, and refuse what it refuses.
@Suite struct MissingListWireTests {
    /// The server's own encoding of a list (`JSONResponse.encoder` is a plain `JSONEncoder`), with descriptions that
    /// need escapes and more than ASCII.
    static func list(_ count: Int, version: Int64 = 42, pretty: Bool = false) throws -> Data {
        let descriptions = [BikeDescription(make: "Gazelle", model: "Ultimate C8", colour: "racing green"),
                            BikeDescription(make: "Brompton \"C\" Line", model: "M6L [2023]", colour: "grey, {matt}"),
                            BikeDescription(make: "Vélo\\Ville", model: "Électra ☂", colour: "")]
        let bikes = try (0..<count).map { (n: Int) throws -> MissingBike in
            let uuid = try #require(UUID(uuidString: String(format: "E2C56DB5-DFFB-48D2-B060-D0F5A7%06X", n)))
            let beacon = BeaconID(uuid: uuid, major: UInt16(n / 7), minor: UInt16(n % 65536))
            return MissingBike(beacon: beacon, description: descriptions[n % descriptions.count])
        }
        let encoder = JSONEncoder()
        if pretty { encoder.outputFormatting = [.prettyPrinted, .sortedKeys] }
        return try encoder.encode(MissingList(version: version, beacons: bikes.map(MissingBeacon.init)))
    }

    /// What the sentinel read before: the whole document decoded as a list, else as a delta; nil if neither.
    static func wholeDocument(_ data: Data) -> MissingListAnswer? {
        if let full = try? JSONDecoder().decode(MissingList.self, from: data) {
            return .full(version: full.version, bikes: full.beacons.map(\.bike), etag: nil)
        }
        return (try? JSONDecoder().decode(MissingDelta.self, from: data)).map { .delta($0.delta, etag: nil) }
    }

    @Test(arguments: [false, true])
    func aListIsReadEntryByEntryAsAWhole(pretty: Bool) throws {
        let data = try Self.list(3_000, pretty: pretty)
        let split = try #require(data.withUnsafeBytes { MissingListWire.decodeEntryByEntry($0, decoder: JSONDecoder()) }, "the list was not split")
        #expect(split.bikes.count == 3_000)
        #expect(try MissingListWire.decode(data, etag: nil) == Self.wholeDocument(data))
        #expect(Self.wholeDocument(data) == .full(version: split.version, bikes: split.bikes, etag: nil))
    }

    /// Spellings the scanner leaves to the whole document's decoder: read all the same.
    @Test(arguments: [
        #"{"version":3,"bea\u0063ons":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"description":{"make":"a","model":"b","colour":"c"}}]}"#,
        "\u{FEFF}{\"version\":3,\"beacons\":[]}",
        #"{"version":3,"beacons":[],"beacons":[]}"#,
    ])
    func unusualSpellingsAreReadByTheWholeDocument(text: String) throws {
        let data = Data(text.utf8)
        #expect(data.withUnsafeBytes { MissingListWire.decodeEntryByEntry($0, decoder: JSONDecoder()) } == nil)
        #expect((try? MissingListWire.decode(data, etag: nil)) == Self.wholeDocument(data))
    }

    @Test func anEmptyListAndADeltaAreReadAsBefore() throws {
        let empty = Data(#"{ "beacons" : [ ] , "version" : 9 }"#.utf8)
        #expect(try MissingListWire.decode(empty, etag: "\"v9\"") == .full(version: 9, bikes: [], etag: "\"v9\""))
        let delta = Data(#"{"since":1,"version":2,"added":[],"removed":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2}]}"#.utf8)
        #expect(delta.withUnsafeBytes { MissingListWire.decodeEntryByEntry($0, decoder: JSONDecoder()) } == nil)
        #expect(try MissingListWire.decode(delta, etag: nil) == Self.wholeDocument(delta))
    }

    /// Damage anywhere (every prefix, and each byte replaced by each character that means something to the scanner)
    /// is read or refused exactly as the whole document's decoder reads or refuses it.
    @Test func damageIsTreatedAsTheWholeDocumentTreatsIt() throws {
        let data = try Self.list(3)
        var cases: [Data] = (0..<data.count).map { data.prefix($0) }
        for index in data.indices {
            for byte in Array(#"{}[]",:\ 0"#.utf8) where data[index] != byte {
                var damaged = data
                damaged[index] = byte
                cases.append(damaged)
            }
        }
        var split = 0
        for damaged in cases {
            if damaged.withUnsafeBytes({ MissingListWire.decodeEntryByEntry($0, decoder: JSONDecoder()) }) != nil { split += 1 }
            let answer = try? MissingListWire.decode(damaged, etag: nil)
            #expect(answer == Self.wholeDocument(damaged), "\(String(decoding: damaged, as: UTF8.self))")
        }
        #expect(split > 100, "the damaged lists still read were read entry by entry")
    }

    @Test func theScannerFindsEachEntry() throws {
        let text = #" { "version" : 1 , "beacons" : [ {"a":"]\"}"} , [1,{}] , "x" , 12 ] } "#
        let found = try #require(Data(text.utf8).withUnsafeBytes { JSONMemberArray.find("beacons", in: $0) })
        let entries = found.entries.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) }
        #expect(entries == [#"{"a":"]\"}"}"#, "[1,{}]", #""x""#, "12"])
        #expect(String(decoding: Array(text.utf8)[found.array], as: UTF8.self).hasPrefix("[ {"))
        #expect(String(decoding: Array(text.utf8)[found.array], as: UTF8.self).hasSuffix("12 ]"))
    }
}
