import ArgumentParser
import Beacon
import Console
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode iBeacon frames given as hex.",
        discussion: """
        Each argument is either a full advertising-data buffer (e.g. 0201061AFF4C000215…) or \
        manufacturer data starting with Apple's company id (4c000215…). Prints one JSON object \
        per argument; exits 1 if any argument was not an iBeacon.
        """
    )

    @Argument(help: "Hex bytes; spaces and colons are ignored.")
    var hex: [String]

    func run() throws {
        var failures = 0
        for argument in hex {
            let line: String
            if let bytes = Hex.bytes(argument) {
                do {
                    line = DecodeOutput.json(try IBeacon.decode(anyForm: bytes))
                } catch {
                    line = DecodeOutput.json(error: error.description)
                    failures += 1
                }
            } else {
                line = DecodeOutput.json(error: "not hex: expected pairs of digits 0-9 a-f")
                failures += 1
            }
            print(line)
        }
        if failures > 0 { throw ExitCode(1) }
    }
}

enum DecodeOutput {
    static func json(_ frame: IBeaconFrame) -> String {
        let power = frame.measuredPower.map(String.init) ?? "null"
        return #"{"uuid": "\#(frame.beacon.uuid.uuidString)", "major": \#(frame.beacon.major), "minor": \#(frame.beacon.minor), "measuredPower": \#(power)}"#
    }

    static func json(error: String) -> String {
        #"{"error": "\#(JSONText.escape(error))"}"#
    }
}
