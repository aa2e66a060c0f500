import AsyncHTTPClient
import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import Server

/// Log-in limits under load, over real sockets: attempts are counted before bcrypt, so parallel guesses
/// cannot outrun the limit, and a lock-out binds the guessing client, not the owner.
enum LoginLimitScenarios {
    static let password = "correct horse battery"

    /// `POST /v1/sessions` over its own connection, as a client at `address` behind the local proxy.
    static func logIn(port: Int, email: String, password: String, from address: String) async throws -> Int {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/sessions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-Forwarded-For", value: address)
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(["email": email, "password": password])))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 64 * 1024)
        return Int(response.status.code)
    }

    /// Statuses of `passwords` sent at once for one email from one address.
    static func inParallel(port: Int, email: String, passwords: [String], from address: String) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for guess in passwords {
                group.addTask { try await logIn(port: port, email: email, password: guess, from: address) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// bcrypt at cost 8 (tens of milliseconds): a check made before it and a failure recorded after it would race.
    static func harness(_ backend: Backend, clock: PushScenarios.Clock? = nil) async throws -> Harness {
        try await Harness.make(backend, options: Harness.testOptions {
            $0.bcryptCost = 8
            if let clock { $0.now = clock.read }
        })
    }

    static func parallelWrongPasswords(_ backend: Backend) async throws {
        try await harness(backend).run(.live) { client in
            let port = try #require(client.port)
            _ = try await client.owner("ann@example.org", password: password)
            let statuses = try await inParallel(port: port, email: "ann@example.org",
                                                passwords: (0..<20).map { "wrong guess \($0)" }, from: "198.51.100.7")
            #expect(statuses.count == 20)
            #expect(statuses.filter { $0 == 401 }.count <= 5, "\(statuses.sorted())")
            #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses.sorted())")
        }
    }

    /// Guesses split over two replicas (on PostgreSQL each with its own connections, as two processes) share one count.
    static func parallelWrongPasswordsOnTwoReplicas(_ backend: Backend) async throws {
        let harness = try await harness(backend)
        try await harness.withReplica(.live) { a, b, _ in
            let ports = [try #require(a.port), try #require(b.port)]
            _ = try await a.owner("ann@example.org", password: password)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for guess in 0..<20 {
                    group.addTask { try await logIn(port: ports[guess % 2], email: "ann@example.org", password: "wrong guess \(guess)",
                                                    from: "198.51.100.7") }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 401 }.count <= 5, "\(statuses.sorted())")
            #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses.sorted())")
        }
    }

    static func parallelGuessesWithTheRightOne(_ backend: Backend) async throws {
        try await harness(backend).run(.live) { client in
            let port = try #require(client.port)
            _ = try await client.owner("ann@example.org", password: password)
            var passwords = (0..<29).map { "wrong guess \($0)" }
            passwords.insert(password, at: 17)
            let statuses = try await inParallel(port: port, email: "ann@example.org", passwords: passwords, from: "198.51.100.7")
            // Only the attempts within the limit reach bcrypt, the right one included: it gets in only if it was among them.
            #expect(statuses.filter { $0 == 401 || $0 == 200 }.count <= 5, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 429 }.count >= 25, "\(statuses.sorted())")
        }
    }

    /// A guesser locks only itself out: the owner from another address still gets in, even while guesses come from
    /// many addresses; a client address cannot spray log-ins over many emails; rows of unknown emails are pruned.
    static func lockOutSparesTheOwner(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await harness(backend, clock: clock)
        try await harness.run(.live) { client in
            let port = try #require(client.port)
            _ = try await client.owner("ann@example.org", password: password)
            for _ in 0..<5 {
                #expect(try await logIn(port: port, email: "ann@example.org", password: "wrong guess", from: "203.0.113.66") == 401)
            }
            // The guessing address is held, the right password included …
            #expect(try await logIn(port: port, email: "ann@example.org", password: password, from: "203.0.113.66") == 429)
            // … the owner at home is not.
            #expect(try await logIn(port: port, email: "ann@example.org", password: password, from: "198.51.100.7") == 200)
            // Guesses from twenty more addresses (a botnet) do not lock the owner out either.
            for bot in 1...20 {
                let status = try await logIn(port: port, email: "ann@example.org", password: "wrong guess", from: "192.0.2.\(bot)")
                #expect(status == 401 || status == 429)
            }
            #expect(try await logIn(port: port, email: "ann@example.org", password: password, from: "198.51.100.8") == 200)

            // One address trying many emails (unknown ones too) is held after the per-client limit.
            var sprayed: [Int] = []
            for n in 0..<25 {
                sprayed.append(try await logIn(port: port, email: "nobody\(n)@example.org", password: "wrong guess", from: "203.0.113.99"))
            }
            #expect(sprayed.prefix(20).allSatisfy { $0 == 401 } && sprayed.suffix(5).allSatisfy { $0 == 429 }, "\(sprayed)")
            // Once the window has passed, every failed attempt's row is gone, unknown emails' included.
            clock.advance(5 * 60_000 + 1)
            #expect(try await logIn(port: port, email: "ann@example.org", password: password, from: "203.0.113.66") == 200)
            let rows = try await harness.database.withSession { db in
                try await db.raw("SELECT COUNT(*) AS n FROM login_attempts").first()?.decode(column: "n", as: Int.self)
            }
            #expect(rows == 0)
        }
    }
}
