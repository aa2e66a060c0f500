import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import Beacon
import BikebeaconAPI
@testable import Server

/// The dashboard's cookie sessions: cookie attributes, the CSRF check, idle and absolute expiry,
/// listing and revoking sessions, log-out; bearer tokens keep working for the command line.
enum SessionScenarios {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        let milliseconds = Mutex<Int64>(1_800_000_000_000)
        func advance(minutes: Int64) { milliseconds.withLock { $0 += minutes * 60_000 } }
        var now: @Sendable () -> Int64 { { self.milliseconds.withLock { $0 } } }
    }

    struct Browser {
        var session: String
        var csrf: String
        var headers: HTTPFields {
            var headers: HTTPFields = [.cookie: "bb_session=\(session); bb_csrf=\(csrf)"]
            headers[SessionCookie.csrfHeader] = csrf
            return headers
        }
        var withoutCSRF: HTTPFields { [.cookie: "bb_session=\(session); bb_csrf=\(csrf)"] }
    }

    static let password = "correct horse battery"

    static func logIn(_ client: Client, _ email: String, headers: HTTPFields = [:]) async throws -> (Browser, [String], Session) {
        let response = try await client.send(.post, "/v1/sessions", json: LogIn(email: email, password: password, cookie: true),
                                             headers: headers)
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        let setCookies = response.headers[values: .setCookie]
        func value(_ name: String) -> String {
            setCookies.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1).prefix { $0 != ";" }) } ?? ""
        }
        return (Browser(session: value("bb_session"), csrf: value("bb_csrf")), setCookies, try client.decode(Session.self, response))
    }

    static func cookieSessions(_ backend: Backend) async throws {
        let clock = Clock()
        let options = Harness.testOptions {
            $0.now = clock.now
            $0.sessions = SessionPolicy(idleMilliseconds: 60 * 60_000, lifetimeMilliseconds: 3 * 60 * 60_000, touchMilliseconds: 60_000)
        }
        try await Harness.make(backend, options: options).run { client in
            let token = try await client.owner("ann@example.org")
            let (browser, setCookies, session) = try await logIn(client, "ann@example.org", headers: [.userAgent: "Mozilla/5.0 (X11; Linux) Chrome/120.0"])
            let sessionCookie = try #require(setCookies.first { $0.hasPrefix("bb_session=") })
            let csrfCookie = try #require(setCookies.first { $0.hasPrefix("bb_csrf=") })
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=10800"] {
                #expect(sessionCookie.contains(attribute), "\(sessionCookie) lacks \(attribute)")
            }
            #expect(!sessionCookie.contains("Secure"), "plain http must not get a Secure cookie the browser would drop")
            #expect(!csrfCookie.contains("HttpOnly") && csrfCookie.contains("SameSite=Strict"), "the page must read \(csrfCookie)")
            #expect(browser.session.hasPrefix(Tokens.ownerPrefix) && browser.csrf == SessionCookie.csrfToken(for: browser.session))
            #expect(session.kind == "cookie" && session.current && session.expiresAt == "2027-01-15T09:00:00.000Z")

            // The cookie reads; changes need the CSRF token, and never from another site.
            #expect(try await client.send(.get, "/v1/account", headers: browser.withoutCSRF).status == .ok)
            let fields = BikeFields(name: "Commuter", make: "Brompton", model: "C Line", colour: "red", frameNumber: nil, engineNumber: nil,
                                    notes: nil, beacon: BeaconID(uuid: try #require(UUID(uuidString: Fixture.beaconA)), major: 1, minor: 25626))
            expectError(try await client.send(.post, "/v1/bikes", json: fields, headers: browser.withoutCSRF), .forbidden, "csrf")
            var forged = browser.headers
            forged[SessionCookie.csrfHeader] = SessionCookie.csrfToken(for: "bbo_someone-elses-session")
            expectError(try await client.send(.post, "/v1/bikes", json: fields, headers: forged), .forbidden, "csrf")
            var crossSite = browser.headers
            crossSite[.origin] = "https://evil.example"
            expectError(try await client.send(.post, "/v1/bikes", json: fields, headers: crossSite), .forbidden, "csrf")
            #expect(try await client.send(.post, "/v1/bikes", json: fields, headers: browser.headers).status == .created)
            // Our own origin, as a TLS proxy passes it on, is fine.
            var proxied = browser.headers
            proxied[.origin] = "https://bikes.example"
            proxied[HTTPField.Name("X-Forwarded-Host")!] = "bikes.example"
            var second = fields
            second.beacon = BeaconID(uuid: try #require(UUID(uuidString: Fixture.beaconB)), major: 3838, minor: 4949)
            let sameSite = try await client.send(.post, "/v1/bikes", json: second, headers: proxied)
            #expect(sameSite.status == .created, "\(String(buffer: sameSite.body))")
            // The cookie's token is no bearer token (it would dodge expiry and the CSRF check), and bearers need no CSRF token.
            expectError(try await client.send(.get, "/v1/account", token: browser.session), .unauthorized, "unauthenticated")
            #expect(try await client.send(.get, "/v1/bikes", token: token).status == .ok)

            // Listing shows both sessions; revoking the command line's ends its token.
            let listed = try client.decode(SessionList.self, try await client.send(.get, "/v1/account/sessions", headers: browser.withoutCSRF))
            #expect(listed.sessions.map(\.kind).sorted() == ["cookie", "token"])
            let cli = try #require(listed.sessions.first { $0.kind == "token" })
            #expect(!cli.current && cli.expiresAt == nil)
            #expect(listed.sessions.first { $0.kind == "cookie" }?.userAgent == "Mozilla/5.0 (X11; Linux) Chrome/120.0")
            expectError(try await client.send(.delete, "/v1/account/sessions/\(cli.id)", headers: browser.withoutCSRF), .forbidden, "csrf")
            #expect(try await client.send(.delete, "/v1/account/sessions/\(cli.id)", headers: browser.headers).status == .noContent)
            expectError(try await client.send(.get, "/v1/account", token: token), .unauthorized)
            expectError(try await client.send(.delete, "/v1/account/sessions/\(cli.id)", headers: browser.headers), .notFound, "not_found")
            // Nobody revokes another account's session.
            let bob = try await client.owner("bob@example.org")
            let bobs = try client.decode(SessionList.self, try await client.send(.get, "/v1/account/sessions", token: bob))
            expectError(try await client.send(.delete, "/v1/account/sessions/\(try #require(bobs.sessions.first).id)", headers: browser.headers),
                        .notFound, "not_found")
            #expect(try await client.send(.get, "/v1/account", token: bob).status == .ok)

            // Idle expiry: used within the hour it lives on; an hour untouched ends it.
            clock.advance(minutes: 59)
            #expect(try await client.send(.get, "/v1/account", headers: browser.withoutCSRF).status == .ok)
            clock.advance(minutes: 59)
            #expect(try await client.send(.get, "/v1/account", headers: browser.withoutCSRF).status == .ok)
            clock.advance(minutes: 61)
            expectError(try await client.send(.get, "/v1/account", headers: browser.withoutCSRF), .unauthorized, "session_ended")

            // Absolute expiry: three hours after log-in, however busy.
            let (busy, _, _) = try await logIn(client, "ann@example.org")
            for _ in 0..<3 {
                clock.advance(minutes: 50)
                #expect(try await client.send(.get, "/v1/bikes", headers: busy.withoutCSRF).status == .ok)
            }
            clock.advance(minutes: 31)
            expectError(try await client.send(.get, "/v1/bikes", headers: busy.withoutCSRF), .unauthorized, "session_ended")

            // Log-out ends the session on the server and clears both cookies; https gets Secure cookies.
            let (leaving, secureCookies, _) = try await logIn(client, "ann@example.org", headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(secureCookies.count == 2 && secureCookies.allSatisfy { $0.contains("Secure") }, "\(secureCookies)")
            expectError(try await client.send(.delete, "/v1/sessions", headers: leaving.withoutCSRF), .forbidden, "csrf")
            let out = try await client.send(.delete, "/v1/sessions", headers: leaving.headers)
            #expect(out.status == .noContent)
            let cleared = out.headers[values: .setCookie]
            #expect(cleared.count == 2 && cleared.allSatisfy { $0.contains("Max-Age=0") }, "\(cleared)")
            expectError(try await client.send(.get, "/v1/account", headers: leaving.withoutCSRF), .unauthorized, "session_ended")
        }
    }
}
