import Testing
@testable import Server

/// An open event stream reads its session when woken (a session ended wakes it), when the expiry it last read
/// comes, and every five minutes besides; a keep-alive alone reads nothing.
@Suite struct SessionCheckTests {
    @Test func readsOnlyWhenWokenAtExpiryOrAfterTheRecheck() {
        var check = SessionCheck()
        #expect(check.isDue(woken: false, now: 1_000), "the first wake-up reads the session")
        check.checked(liveUntil: 100_000, now: 1_000)
        #expect(!check.isDue(woken: false, now: 16_000), "a keep-alive 15 s later reads nothing")
        #expect(check.isDue(woken: true, now: 16_000), "a signal (a session ended, or an event) reads it")
        #expect(check.isDue(woken: false, now: 100_000), "the cookie's expiry has come")
        check.checked(liveUntil: .max, now: 1_000)
        #expect(!check.isDue(woken: false, now: 1_000 + SessionCheck.recheck - 1))
        #expect(check.isDue(woken: false, now: 1_000 + SessionCheck.recheck), "a bearer session is read every five minutes")
        #expect(!check.isDue(woken: false, now: 0), "a clock stepped back does not read on every keep-alive")
    }
}
