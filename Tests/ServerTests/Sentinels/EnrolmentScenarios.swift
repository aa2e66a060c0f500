import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
@testable import Server

/// One-time enrolment codes, on SQLite and PostgreSQL: exchanged once for the token `sentinels add`
/// printed, refused clearly when used, expired, unknown, revoked or superseded, limited per client.
@Suite("Sentinel enrolment codes")
struct EnrolmentTests {
    @Test func exchangeOnSQLite() async throws { try await EnrolmentScenarios.exchange(.sqlite) }
    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func exchangeOnPostgres() async throws { try await EnrolmentScenarios.exchange(.postgres) }
    @Test func oneOfConcurrentClaimsWinsOnSQLite() async throws { try await EnrolmentScenarios.concurrentClaims(.sqlite) }
    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func oneOfConcurrentClaimsWinsOnPostgres() async throws { try await EnrolmentScenarios.concurrentClaims(.postgres) }
    @Test func rateLimitedOnSQLite() async throws { try await EnrolmentScenarios.rateLimited(.sqlite) }
    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func rateLimitedOnPostgres() async throws { try await EnrolmentScenarios.rateLimited(.postgres) }

    @Test func codesAreTypableAndForgiving() throws {
        let code = EnrolmentCode.make()
        #expect(code.count == 24 && code.split(separator: "-").map(\.count) == [4, 4, 4, 4, 4])
        let plain = try #require(EnrolmentCode.normalised(code))
        #expect(EnrolmentCode.normalised(code.lowercased().replacingOccurrences(of: "-", with: " ")) == plain)
        // Crockford: O reads as 0, I and L as 1.
        #expect(EnrolmentCode.normalised("O1IL-0000-0000-0000-0000") == "01110000000000000000")
        #expect(EnrolmentCode.normalised("K7QP-3MXD-9RTA-WZ4E-HN2") == nil)
        #expect(EnrolmentCode.normalised("K7QP-3MXD-9RTA-WZ4E-HN2U") == nil)
        #expect(EnrolmentCode.make() != code)
    }

    @Test func sealedTokenOpensOnlyWithItsCode() throws {
        let code = try #require(EnrolmentCode.normalised(EnrolmentCode.make()))
        let other = try #require(EnrolmentCode.normalised(EnrolmentCode.make()))
        let sealed = try EnrolmentCode.seal(token: "bbs_secret", code: code)
        #expect(!sealed.contains("bbs_secret"))
        #expect(EnrolmentCode.open(sealed, code: code) == "bbs_secret")
        #expect(EnrolmentCode.open(sealed, code: other) == nil)
    }

    /// The half-block drawing of a known matrix: two module rows a line, light modules drawn, a quiet zone.
    @Test func qrCodeInHalfBlocks() {
        let matrix = QRMatrix(size: 2, modules: [true, false, false, true])
        #expect(matrix.halfBlocks(quiet: 1) == "█▀██\n██▄█")
    }

    @Test func noticeWithAndWithoutPublicURL() throws {
        let expires: Int64 = 1_795_086_400_000
        let withURL = EnrolmentNotice.text(code: "K7QP-3MXD-9RTA-WZ4E-HN2B", expiresMilliseconds: expires, publicURL: "https://bikes.example.org/") {
            #expect($0 == "https://bikes.example.org/enrol#K7QP-3MXD-9RTA-WZ4E-HN2B")
            return .success(QRMatrix(size: 1, modules: [true]))
        }
        #expect(withURL.contains("sudo bikebeacon enroll https://bikes.example.org/enrol#K7QP-3MXD-9RTA-WZ4E-HN2B"))
        #expect(withURL.contains("until 2026-11-19T11:06:40.000Z"))
        #expect(withURL.hasSuffix("█████\n██▄██\n▀▀▀▀▀"))
        let missing = EnrolmentNotice.text(code: "K7QP", expiresMilliseconds: expires, publicURL: "https://b.example") { _ in .failure(.unavailable("libqrencode.so.4: cannot open shared object file")) }
        #expect(missing.contains("(no QR code: the QR code library is missing (libqrencode.so.4: cannot open shared object file): install Debian's libqrencode4; the URL above carries the same)"))
        #expect(missing.contains("sudo bikebeacon enroll https://b.example/enrol#K7QP"))
        let noURL = EnrolmentNotice.text(code: "K7QP", expiresMilliseconds: expires, publicURL: nil) { _ in Issue.record("no URL, no QR"); return .failure(.encoding("")) }
        #expect(noURL.contains("sudo bikebeacon enroll SERVER_URL K7QP") && noURL.contains("--public-url"))
    }

    /// The real libqrencode (Debian's libqrencode4, which the server already loads for the theft report).
    @Test func realQRCodeForAnEnrolmentURL() throws {
        let matrix = try QREncoder.encode("https://bikes.example.org/enrol#K7QP-3MXD-9RTA-WZ4E-HN2B")
        let lines = matrix.halfBlocks().split(separator: "\n")
        #expect(lines.count == (matrix.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == matrix.size + 4 })
    }
}

enum EnrolmentScenarios {
    static func exchange(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let enrolments = EnrolmentStore(database: harness.database)
        let sentinels = SentinelStore(database: harness.database)
        let (cafe, cafeToken) = try await harness.sentinel("Cafe Rosa", latitude: 52.37, longitude: 4.89)
        let (_, busToken) = try await sentinels.add(name: "Bus 12", latitude: nil, longitude: nil, now: clock.read())
        let first = try await enrolments.issue(sentinel: "Cafe Rosa", token: cafeToken, now: clock.read())
        #expect(first.expiresMilliseconds == clock.read() + 86_400_000)
        try await harness.run(keepDatabase: true) { client in
            // Typed carelessly: lower case, spaces for dashes.
            let typed = first.code.lowercased().replacingOccurrences(of: "-", with: " ")
            let answer = try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: typed))
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(answer.headers[.cacheControl] == "no-store")
            let enrolment = try client.decode(SentinelEnrolment.self, answer)
            #expect(enrolment.token == cafeToken && enrolment.name == "Cafe Rosa" && !enrolment.roaming)
            #expect(enrolment.place == SentinelPlace(latitude: 52.37, longitude: 4.89))
            #expect(enrolment.serverURL.hasPrefix("http"))
            // The token works, and nothing was rotated: it is the one `sentinels add` printed.
            #expect(try await client.send(.get, "/v1/missing", token: enrolment.token).status == .ok)

            // Used: 410, and again 410 (the claim is final).
            for _ in 0..<2 {
                expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: first.code)), .gone, "code_used")
            }
            // Unknown, malformed, missing.
            expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: "0000-0000-0000-0000-0000")), .notFound, "unknown_code")
            expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: "let me in")), .badRequest, "invalid_request")
            expectError(try await client.send(.post, "/v1/sentinel/enrol", raw: "{}"), .badRequest)
            expectError(try await client.send(.post, "/v1/sentinel/enrol", raw: "{\"code\": 7}"), .badRequest)

            // Valid for 24 h: a millisecond before it works, at the end it is expired.
            let early = try await enrolments.issue(sentinel: "Cafe Rosa", token: cafeToken, now: clock.read())
            let late = try await enrolments.issue(sentinel: "Cafe Rosa", token: cafeToken, now: clock.read())
            clock.advance(86_400_000 - 1)
            #expect(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: early.code)).status == .ok)
            clock.advance(1)
            expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: late.code)), .gone, "code_expired")

            // A roaming sentinel: no place.
            let bus = try await enrolments.issue(sentinel: "Bus 12", token: busToken, now: clock.read())
            let roaming = try client.decode(SentinelEnrolment.self, try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: bus.code)))
            #expect(roaming.roaming && roaming.place == nil && roaming.token == busToken)

            // Rotated after the code was issued: the code carries a dead token, so it is refused and stays unused;
            // the code issued with the new token works.
            let stale = try await enrolments.issue(sentinel: "Cafe Rosa", token: cafeToken, now: clock.read())
            let rotated = try await sentinels.rotate(name: "Cafe Rosa")
            let fresh = try await enrolments.issue(sentinel: "Cafe Rosa", token: rotated, now: clock.read())
            for _ in 0..<2 {
                expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: stale.code)), .gone, "code_superseded")
            }
            #expect(try client.decode(SentinelEnrolment.self, try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: fresh.code))).token == rotated)

            // Revoked: refused, and said so again next time.
            let last = try await enrolments.issue(sentinel: "Cafe Rosa", token: rotated, now: clock.read())
            try await sentinels.revoke(name: cafe.name, now: clock.read())
            for _ in 0..<2 {
                expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: last.code)), .gone, "sentinel_revoked")
            }
            await #expect(throws: SentinelError.notFound("Nobody")) { try await enrolments.issue(sentinel: "Nobody", token: "bbs_x", now: clock.read()) }
        }
        // Stored as a digest and a sealed token, never in the clear.
        let stored = try await harness.storedEnrolments()
        #expect(!stored.isEmpty && !stored.contains { $0.contains(first.code) || $0.contains(EnrolmentCode.normalised(first.code) ?? "-") || $0.contains(cafeToken) })
        await harness.cleanup()
    }

    /// A compare-and-swap claim: of many claims of one code at once, through two replicas' own
    /// connections to the database, exactly one gets the token.
    static func concurrentClaims(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let replica = try await BikebeaconServer.openDatabase(harness.database.url, logger: Harness.logger, now: harness.options.now())
        let now = harness.options.now()
        let (_, token) = try await harness.sentinel("Cafe Rosa")
        let code = try await EnrolmentStore(database: harness.database).issue(sentinel: "Cafe Rosa", token: token, now: now).code
        let outcomes = try await withThrowingTaskGroup(of: EnrolmentOutcome.self) { group in
            for index in 0..<8 {
                let database = index.isMultiple(of: 2) ? harness.database : replica
                group.addTask { try await EnrolmentStore(database: database).claim(code: code, now: now) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await replica.shutdown()
        let winners = outcomes.filter { if case .enrolled(_, token) = $0 { true } else { false } }
        #expect(winners.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .used(atMilliseconds: now) }.count == 7, "\(outcomes)")
        await harness.cleanup()
    }

    /// Attempts count against the client's address before the code is looked at, right or wrong.
    static func rateLimited(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.enrolLimit = RateLimit(perSecond: 0.001, burst: 3)
            $0.now = clock.read
        })
        let (_, token) = try await harness.sentinel("Cafe Rosa")
        let code = try await EnrolmentStore(database: harness.database).issue(sentinel: "Cafe Rosa", token: token, now: harness.options.now()).code
        try await harness.run(keepDatabase: true) { client in
            for _ in 0..<3 {
                expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: "0000-0000-0000-0000-0000")), .notFound)
            }
            let refused = try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: code))
            expectError(refused, .tooManyRequests, "rate_limited")
            #expect(refused.headers[.retryAfter] == "1000")
        }
        // The refused attempt did not spend the code.
        #expect(try await EnrolmentStore(database: harness.database).claim(code: code, now: harness.options.now()) == .enrolled(
            try #require(try await SentinelStore(database: harness.database).list().first), token: token))
        await harness.cleanup()
    }
}

extension Harness {
    /// Every stored enrolment row's columns as text, to show what the database holds.
    func storedEnrolments() async throws -> [String] {
        try await database.withSession { db in
            try await db.raw("SELECT code_hash, sealed_token FROM sentinel_enrolments").all().map {
                try $0.decode(column: "code_hash", as: String.self) + " " + $0.decode(column: "sealed_token", as: String.self)
            }
        }
    }
}
