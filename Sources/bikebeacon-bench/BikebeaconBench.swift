import ArgumentParser

/// The benchmarks, in their own executable so neither shipped binary links them.
@main
struct BikebeaconBench: AsyncParsableCommand {
    /// Where the shared RSSI data lies from a checkout with `../shared` beside it: the data commands' default.
    static let sharedRSSI = "../shared/data/rssi"

    static let configuration = CommandConfiguration(
        commandName: "bikebeacon-bench",
        abstract: "Benchmarks. Figures are ratios against a baseline measured in the same run.",
        subcommands: [
            RegistryBenchCommand.self,
            RegionsBenchCommand.self,
            PipelineBenchCommand.self,
            SentinelBenchCommand.self,
            DecodeBenchCommand.self,
            ProximityBenchCommand.self,
            RawInsertBenchCommand.self,
            EventsBenchCommand.self,
            SDCardBenchCommand.self,
            StartupBenchCommand.self,
            CitySeedCommand.self,
            CityServeCommand.self,
            BareHTTPCommand.self,
            MissingListApplyCommand.self,
            LocateBenchCommand.self,
            FuseBenchCommand.self,
            IngestEstimateBenchCommand.self,
        ]
    )
}
