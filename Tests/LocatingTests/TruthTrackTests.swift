import Locating
import Testing

/// Scoring fixes against a surveyed track, as `bikebeacon locate --truth` does, on straight_04's own truth.
struct TruthTrackTests {
    static let track = TruthTrack(Straight04.rows.map { TruthTrack.Sample(time: $0.reading.time, point: $0.truth) })

    @Test func givesEachSurveyedMomentItsPlaceAndALineBetween() throws {
        let samples = Self.track.samples
        try #require(samples.count > 100)
        // A moment surveyed once has its own place, as the bench scores a fix at the reading that made it.
        let once = samples.indices.filter { i in (i == 0 || samples[i - 1].time != samples[i].time) && (i + 1 == samples.count || samples[i + 1].time != samples[i].time) }
        try #require(once.count > 50)
        #expect(once.allSatisfy { Self.track.point(at: samples[$0].time) == samples[$0].point })
        // Between two moments, the straight line: a quarter of the way in time, a quarter of the way there.
        let pair = try #require(zip(samples, samples.dropFirst()).first { $1.time > $0.time && $1.point != $0.point })
        let quarter = try #require(Self.track.point(at: pair.0.time + (pair.1.time - pair.0.time) / 4))
        #expect(abs(quarter.x - (pair.0.point.x + (pair.1.point.x - pair.0.point.x) / 4)) < 1e-9)
        #expect(abs(quarter.y - (pair.0.point.y + (pair.1.point.y - pair.0.point.y) / 4)) < 1e-9)
        // Outside the survey, no guess.
        #expect(Self.track.point(at: samples[0].time - 0.001) == nil)
        #expect(Self.track.point(at: (samples.last?.time ?? 0) + 0.001) == nil)
    }

    /// The score `--truth` prints is the bench's: the same errors as each fix against the truth at its reading.
    @Test func scoresTheLocatorsFixesAsTheBenchDoes() throws {
        let located = try Straight04.fixes(Straight04.receivers())
        try #require(located.count >= 15)
        let (score, unscored) = Self.track.score(located.map(\.fix))
        #expect(unscored == 0)
        let expected = FixScore(located)
        #expect(score.fixes == located.count)
        #expect(abs(score.median - expected.median) < 1e-9 && abs(score.p90 - expected.p90) < 1e-9)
        #expect(score.inside50 == expected.inside50 && score.inside90 == expected.inside90)
        #expect(score.median < 3, "median error \(score.median) m")
    }

    @Test func leavesFixesOutsideTheSurveyUnscored() throws {
        let located = try Straight04.fixes(Straight04.receivers()).map(\.fix)
        let half = TruthTrack(Array(Self.track.samples.prefix(Self.track.samples.count / 2)))
        let (score, unscored) = half.score(located)
        #expect(score.fixes > 0 && unscored > 0 && score.fixes + unscored == located.count)
        let none = TruthTrack([TruthTrack.Sample(time: 0, point: PlanePoint(x: 0, y: 0))]).score(located)
        #expect(none.score.fixes == 0 && none.unscored == located.count && none.score.inside90 == nil)
    }
}
