import Foundation
import TestSupport

extension ServerHarness {
    /// What `sentinels add --public-url` (or `sentinels rotate`) printed: the enrolment URL and the token.
    struct Enrolment {
        var url: String
        var token: String
        /// The code: the URL's fragment (`/enrol#CODE`).
        var code: String { String(url.split(whereSeparator: { $0 == "/" || $0 == "#" }).last ?? "") }
    }

    /// Enrols a sentinel at a place with a public URL, as the operator would, and reads what it printed.
    func enrolWithCode(name: String) async throws -> Enrolment {
        try await enrolment(["sentinels", "add", "--name", name, "--latitude", "52.3676", "--longitude", "4.9041"])
    }

    /// A new token and code for the sentinel.
    func rotateWithCode(name: String) async throws -> Enrolment {
        try await enrolment(["sentinels", "rotate", name])
    }

    private func enrolment(_ arguments: [String]) async throws -> Enrolment {
        guard let binary = Self.binary else { throw HarnessError("no bikebeacon-server binary") }
        guard port != 0 else { throw HarnessError("start the server first: the enrolment URL carries the port it listens on") }
        let result = try await run(path: binary.path, arguments + ["--public-url", url, "--database", database])
        let prefix = "on the sentinel run: sudo bikebeacon enroll "
        guard result.status == 0, let line = result.lines.first(where: { $0.hasPrefix(prefix) }), let token = result.lines.last else {
            throw HarnessError("\(arguments.prefix(2).joined(separator: " ")) printed no enrolment URL: \(result.stdout) \(result.stderr)")
        }
        return Enrolment(url: String(line.dropFirst(prefix.count)), token: token)
    }
}
