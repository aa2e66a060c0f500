import Foundation
import Testing
@testable import Server

/// The coverage logic on its own: gaps from transitions, distances, the database's coarse box.
@Suite struct SentinelCoverageTests {
    typealias Gap = SentinelCoverage.Gap
    static let minute: Int64 = 60_000
    /// The bike went missing at 21:00 (minute 0 here).
    static let missing: Int64 = 1_795_467_600_000

    static func at(_ minutes: Int64) -> Int64 { missing + minutes * minute }

    static func to(_ state: SentinelState, _ minutes: Int64) -> SentinelTransition {
        SentinelTransition(from: nil, to: state, reason: "", atMilliseconds: at(minutes))
    }

    static func gaps(_ transitions: [SentinelTransition], from start: Int64 = missing, now: Int64 = at(600)) -> [Gap] {
        SentinelCoverage.gaps(transitions: transitions, from: start, now: now)
    }

    @Test func listeningThroughoutHasNoGap() {
        #expect(Self.gaps([Self.to(.listening, -600)]).isEmpty)
        // A transition to listening again changes nothing.
        #expect(Self.gaps([Self.to(.listening, -600), Self.to(.listening, 30)]).isEmpty)
    }

    @Test func aSilentStretchWhileMissingIsOneClosedGap() {
        // Cafe Rosa: not listening 21:05–23:40.
        let transitions = [Self.to(.listening, -600), Self.to(.silent, 5), Self.to(.listening, 160)]
        #expect(Self.gaps(transitions) == [Gap(from: Self.at(5), until: Self.at(160), state: .silent)])
        // The order they come in does not matter.
        #expect(Self.gaps(transitions.reversed()) == [Gap(from: Self.at(5), until: Self.at(160), state: .silent)])
    }

    @Test func notListeningWhenTheBikeWentMissingStartsTheGapThen() {
        let transitions = [Self.to(.listening, -600), Self.to(.degraded, -30), Self.to(.listening, 20)]
        #expect(Self.gaps(transitions) == [Gap(from: Self.missing, until: Self.at(20), state: .degraded)])
        // A gap that ended before the bike went missing is not this bike's business.
        #expect(Self.gaps([Self.to(.listening, -600), Self.to(.silent, -60), Self.to(.listening, -1)]).isEmpty)
    }

    @Test func stillNotListeningIsAnOpenGap() {
        #expect(Self.gaps([Self.to(.listening, -600), Self.to(.degraded, 100)])
            == [Gap(from: Self.at(100), until: nil, state: .degraded)])
    }

    @Test func degradedThenSilentIsOneGapCountedSilent() {
        let transitions = [Self.to(.listening, -600), Self.to(.degraded, 10), Self.to(.silent, 20), Self.to(.degraded, 30),
                           Self.to(.listening, 40), Self.to(.degraded, 50), Self.to(.listening, 55)]
        #expect(Self.gaps(transitions) == [Gap(from: Self.at(10), until: Self.at(40), state: .silent),
                                           Gap(from: Self.at(50), until: Self.at(55), state: .degraded)])
    }

    @Test func beforeItsFirstHeartbeatASentinelIsSilent() {
        #expect(Self.gaps([]) == [Gap(from: Self.missing, until: nil, state: .silent)])
        #expect(Self.gaps([Self.to(.listening, 15)]) == [Gap(from: Self.missing, until: Self.at(15), state: .silent)])
    }

    @Test func transitionsAfterNowAndEmptySpansAreLeftOut() {
        // Another replica's clock ahead of this one: its transition is not yet.
        #expect(Self.gaps([Self.to(.listening, -600), Self.to(.silent, 700)]).isEmpty)
        #expect(Self.gaps([Self.to(.silent, -600)], from: Self.at(10), now: Self.at(10)).isEmpty)
        #expect(Self.gaps([Self.to(.silent, -600)], from: Self.at(20), now: Self.at(10)).isEmpty)
    }

    @Test func twoTransitionsAtOneMillisecondKeepTheirOrder() {
        // Stored in this order (by id): the later one is the state that holds.
        #expect(Self.gaps([Self.to(.listening, -600), Self.to(.silent, 10), Self.to(.listening, 10)]).isEmpty)
        #expect(Self.gaps([Self.to(.listening, -600), Self.to(.listening, 10), Self.to(.silent, 10)])
            == [Gap(from: Self.at(10), until: nil, state: .silent)])
    }

    @Test func haversineDistances() {
        // One degree of latitude on the mean Earth radius is 111.195 km.
        #expect(abs(SentinelCoverage.metres(latitude: 52, longitude: 5, to: 53, 5) - 111_195) < 1)
        #expect(SentinelCoverage.metres(latitude: 52.09, longitude: 5.12, to: 52.09, 5.12) == 0)
        // Two points in Utrecht, 156 m north and 786 m east of each other (computed independently: 800.96 m).
        #expect(abs(SentinelCoverage.metres(latitude: 52.0894, longitude: 5.1100, to: 52.0908, 5.1215) - 800.96) < 0.1)
        // Across the antimeridian the short way.
        #expect(abs(SentinelCoverage.metres(latitude: 0, longitude: 179.995, to: 0, -179.995) - 1112) < 1)
    }

    @Test func theBoxHoldsEveryPointWithinTheRadius() {
        for latitude in [0.0, 52.09, -33.9, 70, 85] {
            let box = SentinelCoverage.box(latitude: latitude, longitude: 5.12, metres: 1000)
            for bearing in stride(from: 0.0, to: 360, by: 15) {
                // A point 999 m away in that direction (flat approximation, fine at this scale).
                let north = 999 * cos(bearing * .pi / 180) / 111_195
                let east = 999 * sin(bearing * .pi / 180) / (111_195 * cos(latitude * .pi / 180))
                #expect(box.latitude.contains(latitude + north))
                #expect(box.longitude.map { $0.contains(5.12 + east) } ?? true)
            }
        }
        #expect(SentinelCoverage.box(latitude: 10, longitude: 179.999, metres: 1000).longitude == nil)
        #expect(SentinelCoverage.box(latitude: 89.995, longitude: 0, metres: 1000).longitude == nil)
    }
}
