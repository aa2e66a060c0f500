#if canImport(Glibc)
import Glibc
#endif

/// A loopback port for a child to listen on (the demo's server, the tests' servers and brokers),
/// found by binding it and letting it go.
public enum LoopbackPort {
    /// A port on 127.0.0.1 that nothing holds now, drawn below the kernel's ephemeral range. A port
    /// the kernel hands out (a bind to port 0) may go to another process's outgoing connection, or to
    /// another server's port 0, before the child binds it: that failed a server's start in a full
    /// parallel test run. Port 0's answer when nothing below the range is free.
    public static func free() throws(LoopbackPortError) -> Int {
        let top = ephemeralRangeStart()
        if top > lowest {
            for _ in 0..<100 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard fd >= 0 else { throw LoopbackPortError() }
                let port = bind(fd, port: Int.random(in: lowest..<top))
                close(fd)
                if let port { return port }
            }
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackPortError() }
        defer { close(fd) }
        guard let port = bind(fd, port: 0) else { throw LoopbackPortError() }
        return port
    }

    /// Binds `fd` to 127.0.0.1:`port` (0: any free one); the port bound, or nil.
    public static func bind(_ fd: Int32, port: Int) -> Int? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Below the ports of well-known services that a test or demo host may run.
    private static let lowest = 20_000

    /// The first port of `ip_local_port_range` (Linux's default, 32768, when it cannot be read).
    private static func ephemeralRangeStart() -> Int {
        let fd = open("/proc/sys/net/ipv4/ip_local_port_range", O_RDONLY)
        guard fd >= 0 else { return 32768 }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &bytes, bytes.count)
        let digits = bytes.prefix(max(count, 0)).prefix { (48...57).contains($0) }
        return Int(String(decoding: digits, as: UTF8.self)) ?? 32768
    }
}

/// No loopback port could be bound: this host has no usable 127.0.0.1.
public struct LoopbackPortError: Error, Sendable, CustomStringConvertible {
    public var description: String { "cannot bind a port on 127.0.0.1: check that the loopback interface is up (ip link set lo up)" }
}
