import ArgumentParser

@main
struct Bikebeacon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikebeacon",
        abstract: "Find lost and stolen bikes by their iBeacon tags.",
        subcommands: [
            DecodeCommand.self,
            AnalyzeCommand.self,
            ReplayCommand.self,
            RecordCommand.self,
            ScanCommand.self,
            DemoCommand.self,
            SentinelCommand.self,
            StatusCommand.self,
            RangeCommand.self,
            BikesCommand.self,
            LoginCommand.self,
        ]
    )
}
