import Testing
@testable import Server

/// The pure rules behind dashboard sessions: when one ends, when its last use is written, and its CSRF token.
@Suite struct SessionPolicyTests {
    let policy = SessionPolicy(idleMilliseconds: 1_000, lifetimeMilliseconds: 5_000, touchMilliseconds: 100)

    @Test func idleOrAbsoluteWhicheverComesFirst() {
        // created, last used → expiry: idle early on, the absolute limit late in life.
        #expect(policy.expiry(created: 0, lastUsed: 0) == 1_000)
        #expect(policy.expiry(created: 0, lastUsed: 3_500) == 4_500)
        #expect(policy.expiry(created: 0, lastUsed: 4_800) == 5_000)
        #expect(policy.isLive(created: 0, lastUsed: 0, now: 999))
        #expect(!policy.isLive(created: 0, lastUsed: 0, now: 1_000))
        #expect(!policy.isLive(created: 0, lastUsed: 4_999, now: 5_000))
    }

    @Test func lastUseIsWrittenAtMostOncePerInterval() {
        #expect(!policy.needsTouch(lastUsed: 1_000, now: 1_099))
        #expect(policy.needsTouch(lastUsed: 1_000, now: 1_100))
    }

    @Test func csrfTokenBelongsToItsSession() {
        let token = SessionCookie.csrfToken(for: "bbo_one")
        #expect(token == SessionCookie.csrfToken(for: "bbo_one"))
        #expect(token != SessionCookie.csrfToken(for: "bbo_two"))
        #expect(token.count == 43 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, "\(token)")
        #expect(SessionCookie.equalInConstantTime(token, token))
        #expect(!SessionCookie.equalInConstantTime(token, String(token.dropLast())))
        let lastChanged = String(token.dropLast()) + (token.last == "A" ? "B" : "A")
        #expect(!SessionCookie.equalInConstantTime(token, lastChanged))
    }
}
