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

    @Test func aFailedSaveIsATypedErrorAndLeavesTheOldList() throws {
        let dir = try TestValues.temporaryDirectory()
        let cache = MissingListCache(path: dir.appendingPathComponent("no-such-dir/missing.json").path)
        #expect(throws: AtomicFileError.self) { try cache.save(snapshot) }
    }
}
