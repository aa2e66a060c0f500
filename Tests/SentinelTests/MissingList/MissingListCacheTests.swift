import Beacon
import Durable
import Foundation
import Registry
import Testing
@testable import Sentinel

@Suite struct MissingListCacheTests {
    let snapshot = MissingListSnapshot(version: 7, etag: "\"v7\"", confirmedAt: TestValues.t0,
                                       bikes: [TestValues.bike(TestValues.intel), TestValues.bike(TestValues.blueCharm, "Brompton")])

    @Test func savesAndLoadsTheList() throws {
        let dir = try TestValues.temporaryDirectory()
        let cache = MissingListCache(path: dir.appendingPathComponent("missing.json").path)
        #expect(cache.load(now: TestValues.t0) == .absent)
        try cache.save(snapshot)
        #expect(cache.load(now: TestValues.t0) == .loaded(snapshot))
        // Only the list is left behind: no temporary file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["missing.json"])
    }

    /// The file is written a bike at a time (a city's list in one `JSONEncoder` tree was the sentinel's peak memory); it
    /// must stay what the whole-value encoder wrote, so lists saved before still load and lists saved now load anywhere.
    @Test(arguments: [nil, "\"v7\"", "W/\"a \\\\ b\u{1}\""])
    func writesWhatTheWholeValueEncoderWrites(etag: String?) throws {
        var value = snapshot
        value.etag = etag
        value.confirmedAt = 1_764_000_000.125
        value.bikes.append(TestValues.bike(TestValues.intel, "Gazelle \"Ultimate\" C8, \u{e9}l\u{e9}gante \u{1F6B2}"))
        let many = MissingListSnapshot(version: 9, etag: etag, confirmedAt: 1, bikes: Array(repeating: value.bikes[0], count: 3_000))
        for shape in [value, MissingListSnapshot(version: 0, etag: etag, confirmedAt: 0, bikes: []), many] {
            var written = Data()
            var pieces = 0
            try MissingListCache.encode(shape) { piece in
                #expect(piece.count < 2 * MissingListCache.pieceBytes)
                written.append(piece)
                pieces += 1
            }
            #expect(shape.bikes.count < 3_000 || pieces > 1, "a city's list is written in pieces")
            #expect(try JSONDecoder().decode(MissingListSnapshot.self, from: written) == shape)
            let whole = try JSONSerialization.jsonObject(with: JSONEncoder().encode(shape)) as? NSDictionary
            #expect(try JSONSerialization.jsonObject(with: written) as? NSDictionary == whole)
        }
    }

    @Test func replacesTheWholeFile() throws {
        let dir = try TestValues.temporaryDirectory()
        let cache = MissingListCache(path: dir.appendingPathComponent("missing.json").path)
        try cache.save(snapshot)
        let smaller = MissingListSnapshot(version: 8, etag: nil, confirmedAt: TestValues.t0 + 60, bikes: [])
        try cache.save(smaller)
        #expect(cache.load(now: TestValues.t0) == .loaded(smaller))
    }

    @Test(arguments: [Data("{\"version\": 3, \"bik".utf8), Data([0xFF, 0x00, 0x13]), Data(), Data("[1,2,3]".utf8)])
    func setsADamagedFileAsideWithATimestamp(bytes: Data) throws {
        let dir = try TestValues.temporaryDirectory()
        let path = dir.appendingPathComponent("missing.json").path
        try bytes.write(to: URL(fileURLWithPath: path))
        let cache = MissingListCache(path: path)
        guard case let .setAside(movedTo, reason) = cache.load(now: TestValues.t0) else {
            Issue.record("a damaged file must be set aside")
            return
        }
        #expect(movedTo == path + ".corrupt-20251121T215320Z")
        #expect(!reason.isEmpty)
        #expect(FileManager.default.contents(atPath: movedTo) == bytes)
        #expect(!FileManager.default.fileExists(atPath: path))
        // The next load starts clean.
        #expect(cache.load(now: TestValues.t0) == .absent)
    }

    /// A city's saved list is read back a bike at a time, as the server's is (`JSONMemberArray`), to the list saved.
    @Test func aCitysSavedListIsReadBikeByBike() throws {
        let dir = try TestValues.temporaryDirectory()
        let path = dir.appendingPathComponent("missing.json").path
        let bikes = (0..<3_000).map { (n: Int) -> MissingBike in
            let beacon = BeaconID(uuid: TestValues.intel.uuid, major: UInt16(n / 100), minor: UInt16(n))
            return TestValues.bike(beacon, n.isMultiple(of: 2) ? "Gazelle" : "Brompton \"C\"")
        }
        let city = MissingListSnapshot(version: 70, etag: "\"v70-gzip\"", confirmedAt: TestValues.t0, bikes: bikes)
        try MissingListCache(path: path).save(city)
        let saved = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(saved.withUnsafeBytes {
            JSONMemberArray.decode(MissingListSnapshot.self, key: "bikes", entries: MissingBike.self, from: $0, decoder: JSONDecoder(), { $0 })
        } != nil, "not read bike by bike")
        #expect(MissingListCache(path: path).load(now: TestValues.t0) == .loaded(city))
    }

    /// A save that fails halfway (here: the encoding of a later piece) leaves the old list and no temporary file.
    @Test func aSaveThatFailsHalfwayLeavesTheOldList() throws {
        struct Refused: Error {}
        let dir = try TestValues.temporaryDirectory()
        let path = dir.appendingPathComponent("missing.json").path
        try MissingListCache(path: path).save(snapshot)
        #expect(throws: Refused.self) {
            try AtomicFile.write(to: path) { write in
                try write(Data("{\"version\":8,".utf8))
                throw Refused()
            }
        }
        #expect(MissingListCache(path: path).load(now: TestValues.t0) == .loaded(snapshot))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["missing.json"])
    }

    @Test func aFailedSaveIsATypedErrorAndLeavesTheOldList() throws {
        let dir = try TestValues.temporaryDirectory()
        let cache = MissingListCache(path: dir.appendingPathComponent("no-such-dir/missing.json").path)
        #expect(throws: AtomicFileError.self) { try cache.save(snapshot) }
    }
}
