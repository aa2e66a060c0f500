@testable import Benchmarks
import Proximity
import Testing
import TestSupport

/// Leave-one-dataset-out must choose each fold's configuration without the data it scores it on,
/// or its figures say nothing about a receiver it has never seen.
struct LeaveOneOutTests {
    static let fixtures = Paths.fixture("rssi").path
    static let candidates = [1.5, 2.0, 2.5].map { ProximityConfiguration(pathLossExponent: $0) }

    /// Herald's excerpt with every reading's distance from the 1 m level halved: a receiver with
    /// half the path loss, which favours the smallest exponent.
    static func flattened(_ dataset: RSSIDataset) -> RSSIDataset {
        var flat = dataset
        for r in flat.receivers.indices {
            let power = flat.receivers[r].measuredPower
            for s in flat.receivers[r].streams.indices {
                flat.receivers[r].streams[s].rssi = flat.receivers[r].streams[s].rssi.map { power + ($0 - power) / 2 }
            }
        }
        return flat
    }

    @Test func aFoldsChoiceIgnoresTheDatasetItIsScoredOn() throws {
        let herald = try RSSIDatasets.herald(directory: Self.fixtures), pcng = try RSSIDatasets.pcng(directory: Self.fixtures)
        let flat = Self.flattened(herald)
        // The flattened set alone would choose otherwise than pcng does, so a leak would show.
        let alone = LeaveOneOut.run([flat], candidates: Self.candidates).chosenOnAll
        let onPCNG = LeaveOneOut.run([pcng], candidates: Self.candidates).chosenOnAll
        try #require(alone != onPCNG, "both choose n = \(alone.pathLossExponent)")

        let plain = LeaveOneOut.run([herald, pcng], candidates: Self.candidates)
        let changed = LeaveOneOut.run([flat, pcng], candidates: Self.candidates)
        #expect(changed.folds[0].chosen == onPCNG)
        #expect(changed.folds[0].chosen == plain.folds[0].chosen)
        #expect(changed.folds[0].standing.score.balancedAccuracy != plain.folds[0].standing.score.balancedAccuracy)
    }

    /// The worst margin reported for the choice on all datasets is that configuration's balanced
    /// accuracy minus the best anchor's, on the dataset where it is smallest.
    @Test func theWorstMarginOnAllIsTheChoicesSmallestLeadOverTheBestAnchor() throws {
        let datasets = [try RSSIDatasets.herald(directory: Self.fixtures), try RSSIDatasets.pcng(directory: Self.fixtures)]
        let outcome = LeaveOneOut.run(datasets, candidates: Self.candidates)
        let margins = datasets.map { dataset in
            let ours = ProximityBench.run(dataset, methods: [.ours], configuration: outcome.chosenOnAll)[0].total.balancedAccuracy
            let best = ProximityBench.run(dataset, methods: ProximityMethod.anchors).map(\.total.balancedAccuracy).max() ?? .nan
            return ours - best
        }
        #expect(abs(outcome.worstMarginOnAll - (margins.min() ?? .nan)) < 1e-12, "\(outcome.worstMarginOnAll) vs \(margins)")
    }
}
