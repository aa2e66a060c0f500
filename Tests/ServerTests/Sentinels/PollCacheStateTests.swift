import Testing
@testable import Server

/// When `SentinelPollCache` may answer from memory, and which sentinels it may keep.
@Suite struct PollCacheStateTests {
    let start = ContinuousClock.now
    let garage = Sentinel(id: "s1", name: "garage", latitude: 51.5, longitude: -0.12, createdMilliseconds: 0)

    @Test func freshForMaxAgeAfterTheRead() {
        var state = PollCacheState()
        #expect(state.fresh(now: start, commits: 0, maxAge: .seconds(1)) == nil, "nothing read yet")
        state.record(PollStamp(missingVersion: 7, sentinelsVersion: 3), readAt: start, commits: 5)
        #expect(state.fresh(now: start + .milliseconds(999), commits: 5, maxAge: .seconds(1))?.missingVersion == 7)
        #expect(state.fresh(now: start + .seconds(1), commits: 5, maxAge: .seconds(1)) == nil, "read a second ago: read again")
        #expect(state.fresh(now: start, commits: 6, maxAge: .seconds(1)) == nil, "this process changed something since the read")
        #expect(state.fresh(now: start - .milliseconds(1), commits: 4, maxAge: .seconds(1)) != nil, "a read begun after the request's time")
    }

    @Test func aChangeToTheSentinelsForgetsThem() {
        var state = PollCacheState()
        state.record(PollStamp(missingVersion: 1, sentinelsVersion: 1), readAt: start, commits: 0)
        state.remember(garage, tokenDigest: "d1", readIn: state.generation)
        // The list changed, the sentinels did not: the sentinel is still known.
        state.record(PollStamp(missingVersion: 2, sentinelsVersion: 1), readAt: start, commits: 0)
        #expect(state.sentinel(tokenDigest: "d1") == garage)
        state.record(PollStamp(missingVersion: 2, sentinelsVersion: 2), readAt: start, commits: 0)
        #expect(state.sentinel(tokenDigest: "d1") == nil)
    }

    @Test func aLookupReadBeforeAChangeIsNotKept() {
        var state = PollCacheState()
        state.record(PollStamp(missingVersion: 1, sentinelsVersion: 1), readAt: start, commits: 0)
        let before = state.generation
        // The sentinel was revoked while its row was being read: the stamp read meanwhile forgets everything.
        state.record(PollStamp(missingVersion: 1, sentinelsVersion: 2), readAt: start, commits: 0)
        state.remember(garage, tokenDigest: "d1", readIn: before)
        #expect(state.sentinel(tokenDigest: "d1") == nil)
    }
}
