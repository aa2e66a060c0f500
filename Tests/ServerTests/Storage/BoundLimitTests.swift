import Foundation
import TestSupport
import Testing

/// SQLite (3.54) marks a statement whose LIMIT or OFFSET is bound to be prepared again when it is bound, and SQLiteNIO
/// always prepares and then binds: such a query is prepared twice every time (e751fa7 found five, 5 % of the city's
/// server CPU). So a LIMIT or OFFSET in the server's SQL is a literal (`\(literal:)`, or SQLKit's `.limit`).
@Suite("Bound LIMITs")
struct BoundLimitTests {
    static func bindsLimit(_ line: some StringProtocol) -> Bool {
        String(line).contains(#/(?i)\b(LIMIT|OFFSET)\s+\\\(bind/#)
    }

    @Test func noQueryBindsItsLimitOrOffset() throws {
        #expect(Self.bindsLimit(#"ORDER BY time_ms LIMIT \(bind: limit)"#) && Self.bindsLimit(#"limit 5 offset \(bind: skip)"#))
        #expect(!Self.bindsLimit(#"ORDER BY time_ms LIMIT \(literal: limit)"#))
        let sources = Paths.repository.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 100, "the sources were not found under \(sources.path)")
        let offenders = try files.flatMap { file in
            try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                .filter { $0.element.contains("bind") && Self.bindsLimit($0.element) }
                .map { "\(file.lastPathComponent):\($0.offset + 1)" }
        }
        #expect(offenders.isEmpty, "a bound LIMIT or OFFSET makes SQLite prepare the query twice; make it a literal: \(offenders)")
    }
}
