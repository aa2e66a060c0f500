#if canImport(Glibc)
import Glibc
#endif
import Console
import Foundation
import Testing

/// The range view and every command write through `Terminal.write`: a full pipe or a signal
/// must not cut a line short, and a reader that went away must not kill the program.
struct TerminalTests {
    @Test func writesEverythingThroughAFullPipe() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let text = String(repeating: "0123456789abcdef", count: 64 * 1024) + "end"
        let readEnd = ends[0]
        let reader = Task.detached { () -> Int in
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if n <= 0 { return total }
                total += n
            }
        }
        Terminal.write(text, to: ends[1])
        close(ends[1])
        #expect(await reader.value == text.utf8.count)
        close(ends[0])
    }

    @Test func aClosedReaderIsNotAnError() {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        signal(SIGPIPE, SIG_IGN)
        Terminal.write("nobody reads this\n", to: ends[1])
        close(ends[1])
    }
}
