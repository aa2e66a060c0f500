#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Subprocesses

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
        guard let port = LoopbackPort.bind(fd, port: 0) else {
            Glibc.close(fd)
            throw HarnessError("cannot bind a refusing port on 127.0.0.1")
        }
        self.fd = fd
        self.port = port
    }

    /// Gives the port back; call it once, when the test no longer needs it refused.
    public func close() { _ = Glibc.close(fd) }
}

/// 127.0.0.1:`port` as the socket calls take it.
private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
