#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Subprocesses
import Testing

/// The port a child server is told to listen on: one the kernel does not hand to anyone else's
/// connection or port-0 bind meanwhile.
@Suite struct LoopbackPortTests {
    @Test func aFreePortIsBelowTheEphemeralRangeAndBindable() throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let start = try #require(range.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) })
        for _ in 0..<20 {
            let port = try LoopbackPort.free()
            #expect((20_000..<start).contains(port), "\(port) is not below \(start)")
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            #expect(LoopbackPort.bind(fd, port: port) == port)
            close(fd)
        }
    }

    @Test func aHeldPortIsNotBoundAgain() throws {
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(held) }
        let port = try #require(LoopbackPort.bind(held, port: 0))
        let other = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(other) }
        #expect(LoopbackPort.bind(other, port: port) == nil)
    }
}
