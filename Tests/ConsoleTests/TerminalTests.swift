#if canImport(Glibc)
import Glibc
#endif
import Console
import Foundation
import Testing

/// The range view and every command write through `Terminal.write`: a full pipe or a signal
/// must not cut a line short.
struct TerminalTests {
    @Test func writesEverythingThroughAFullPipe() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let readEnd = ends[0]
        let text = String(repeating: "0123456789abcdef", count: 64 * 1024) + "end"
        // The reader is a thread of its own: a task blocked in read() would hold one of the cooperative
        // pool's threads (two on a 2-core machine) while this test holds another in write(), and starve
        // every other test until the pipe drained.
        async let total: Int = withCheckedContinuation { continuation in
            Thread {
                var total = 0
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                    if n <= 0 { break }
                    total += n
                }
                continuation.resume(returning: total)
            }.start()
        }
        Terminal.write(text, to: ends[1])
        close(ends[1])
        #expect(await total == text.utf8.count)
        close(readEnd)
    }
}
