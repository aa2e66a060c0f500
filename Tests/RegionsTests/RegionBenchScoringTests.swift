import Benchmarks
import Testing

/// How `bench regions` matches predicted transitions to the truth.
struct RegionBenchScoringTests {
    typealias T = RegionBench.Transition

    @Test func matchesWithinTheToleranceAndCountsTheRestAsSpurious() {
        let truth = [T(time: 10, entered: true), T(time: 50, entered: false)]
        let predicted = [T(time: 12, entered: true), T(time: 61, entered: false), T(time: 70, entered: true)]
        let score = RegionBench.score(truth: truth, predicted: predicted, end: 100)
        #expect(score.enterLatencies == [2])
        #expect(score.exitLatencies == [11])
        #expect(score.missedEnters == 0 && score.missedExits == 0)
        #expect(score.spuriousEnters == 1 && score.spuriousExits == 0)
    }

    @Test func tooEarlyOrTooLateIsBothMissedAndSpurious() {
        let truth = [T(time: 20, entered: true), T(time: 60, entered: false)]
        let predicted = [T(time: 14, entered: true), T(time: 91, entered: false)]
        let score = RegionBench.score(truth: truth, predicted: predicted, end: 200)
        #expect(score.missedEnters == 1 && score.missedExits == 1)
        #expect(score.spuriousEnters == 1 && score.spuriousExits == 1)
    }

    @Test func transitionsInTheLastSecondsAreNotScored() {
        let truth = [T(time: 10, entered: true), T(time: 90, entered: false)]
        let predicted = [T(time: 11, entered: true), T(time: 95, entered: true)]
        let score = RegionBench.score(truth: truth, predicted: predicted, end: 100)
        #expect(score.truthEnters == 1 && score.truthExits == 0)
        #expect(score.spuriousEnters == 0)
    }

    @Test func groundTruthStartsOutsideSoAStreamStartingInsideEnters() {
        let samples = [(0.0, 1.0), (1, 2.5), (2, 3.5), (3, 2.9)].map { PhilotuxoTracks.Sample(time: $0.0, rssi: -60, distance: $0.1) }
        #expect(RegionBench.groundTruth(samples, radius: 3) == [T(time: 0, entered: true), T(time: 2, entered: false), T(time: 3, entered: true)])
    }
}
