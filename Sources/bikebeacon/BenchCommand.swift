import ArgumentParser

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks. Figures are ratios against a baseline measured in the same run.",
        subcommands: [
            RegistryBenchCommand.self,
            RegionsBenchCommand.self,
            PipelineBenchCommand.self,
            SentinelBenchCommand.self,
            DecodeBenchCommand.self,
            ProximityBenchCommand.self,
            SDCardBenchCommand.self,
            StartupBenchCommand.self,
        ]
    )
}
