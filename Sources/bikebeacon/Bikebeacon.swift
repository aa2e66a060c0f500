import ArgumentParser
#if os(Linux)
import CMalloc
#endif
import Sentinel

@main
struct Bikebeacon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikebeacon",
        abstract: "Find lost and stolen bikes by their iBeacon tags.",
        version: BikebeaconVersion.current,
        subcommands: [
            DecodeCommand.self,
            AnalyzeCommand.self,
            CalibrateCommand.self,
            LocateCommand.self,
            ReplayCommand.self,
            RecordCommand.self,
            ScanCommand.self,
            DemoCommand.self,
            SentinelCommand.self,
            EnrollCommand.self,
            StatusCommand.self,
            RangeCommand.self,
            BikesCommand.self,
            LoginCommand.self,
        ]
    )

    /// One malloc arena, set before any thread starts. glibc otherwise gives threads arenas of their
    /// own (up to eight per core), and on a 512 MB Pi the sentinel's few, lightly allocating threads
    /// paid a megabyte of slack for them (`bikebeacon-bench sentinel`: peak RSS 20.7 → 19.7 MB).
    static func main() async {
        #if os(Linux)
        _ = mallopt(M_ARENA_MAX, 1)
        #endif
        await main(nil)
    }
}
