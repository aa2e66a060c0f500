import Durable
import Foundation
import Testing

/// A power cut during a write leaves the temporary file beside the state file (the field test's
/// power cut found `visits.json.tmp-416` on the card): the next start removes it, and nothing else.
@Suite struct AtomicLeftoverTests {
    @Test func leftoversOfAKilledWriterAreRemovedAndNothingElse() throws {
        let dir = try TestValues.temporaryDirectory().path
        try AtomicFile.write(Data("[]".utf8), to: dir + "/visits.json")
        for name in ["visits.json.tmp-416", "visits.json.tmp-77", "missing-list.json", "outbox.sqlite", "visits.json.bak"] {
            #expect(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data("x".utf8)))
        }
        let removed = AtomicFile.removeLeftovers(of: dir + "/visits.json")
        #expect(removed.sorted() == ["visits.json.tmp-416", "visits.json.tmp-77"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
            == ["missing-list.json", "outbox.sqlite", "visits.json", "visits.json.bak"])
        #expect(try String(contentsOfFile: dir + "/visits.json", encoding: .utf8) == "[]", "the state file itself is untouched")
        #expect(AtomicFile.removeLeftovers(of: dir + "/visits.json").isEmpty)
    }
}
