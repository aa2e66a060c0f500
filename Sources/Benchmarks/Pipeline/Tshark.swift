import Foundation

/// tshark as the decode benchmark's baseline: the independent decoder `captures/SOURCE.txt`
/// counted the fixtures with.
public enum Tshark {
    /// Runs tshark on a capture and counts iBeacon AD entries (data starting `0215`), streaming
    /// its output so a million-report capture needs no more memory than a chunk.
    public static func countIBeacons(executable: String, capture path: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-r", path, "-T", "fields", "-e", "btcommon.eir_ad.entry.data"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var count = 0
        var carry: [UInt8] = []
        while true {
            let chunk = output.fileHandleForReading.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            carry += chunk
            var start = 0
            for (index, byte) in carry.enumerated() where byte == UInt8(ascii: "\n") {
                count += iBeaconEntries(inLine: carry[start..<index])
                start = index + 1
            }
            carry.removeFirst(start)
        }
        count += iBeaconEntries(inLine: carry[...])
        process.waitUntilExit()
        return count
    }

    /// iBeacon entries in one line of `-e btcommon.eir_ad.entry.data` output (comma-separated hex).
    public static func iBeaconEntries(inLine line: ArraySlice<UInt8>) -> Int {
        line.split(separator: UInt8(ascii: ",")).filter { $0.starts(with: Array("0215".utf8)) }.count
    }
}
