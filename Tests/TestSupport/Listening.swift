#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A TCP connection to 127.0.0.1:`port`: its descriptor (the caller closes it), or nil when nothing accepts it.
public func connectToLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else {
        close(fd)
        return nil
    }
    return fd
}

/// Whether something accepts TCP connections on 127.0.0.1:`port` now.
public func acceptsConnections(port: Int) -> Bool {
    guard let fd = connectToLoopback(port: port) else { return false }
    close(fd)
    return true
}

/// A loopback port that refuses connections (ECONNREFUSED on Linux) until `close()`: bound but not
/// listening. A port from a free-port helper is released at once, so on a full parallel run another
/// test's server could bind it and the "unreachable" server answered; this one stays held meanwhile.
public struct RefusingPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws(HarnessError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("cannot open a socket to hold a refusing port") }
        guard let port = bindLoopback(fd, port: 0) else {
            Glibc.close(fd)
            throw HarnessError("cannot bind a refusing port on 127.0.0.1")
        }
        self.fd = fd
        self.port = port
    }

    /// Gives the port back; call it once, when the test no longer needs it refused.
    public func close() { _ = Glibc.close(fd) }
}

/// A free loopback port below the kernel's ephemeral range (32768 up), for a listener the server binds later. A port
/// from a free-port helper is an ephemeral one, and on a full parallel run another test's server binding port 0 could
/// be given it in between; none is given a port below that range.
public func portBelowTheEphemeralRange() throws(HarnessError) -> Int {
    for _ in 0..<100 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("cannot open a socket to find a free port") }
        let port = bindLoopback(fd, port: Int.random(in: 20_000..<32_768))
        Glibc.close(fd)
        if let port { return port }
    }
    throw HarnessError("no free port on 127.0.0.1 between 20000 and 32767 in 100 tries")
}

/// Binds `fd` to 127.0.0.1:`port` (0: any free one); the port bound, or nil.
private func bindLoopback(_ fd: Int32, port: Int) -> Int? {
    var address = loopbackAddress(port: port)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

/// 127.0.0.1:`port` as the socket calls take it.
private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
