import CFuzzDriver
import Foundation
import Sentinel

/// libFuzzer entry: any bytes as the sentinel's YAML config, read as `bikebeacon sentinel` and
/// `--check-config` read it. A config is accepted or refused with an error an operator can read;
/// never a crash or a hang.
private func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let configuration = try SentinelConfiguration.parse(yaml: text, environment: [:])
        do {
            try configuration.validate()
        } catch {
            precondition(!String(describing: error).isEmpty, "validate() threw an error without a message")
        }
    } catch {
        precondition(!String(describing: error).isEmpty, "parse threw an error without a message")
    }
    return 0
}

exit(bikebeacon_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, testOneInput))
