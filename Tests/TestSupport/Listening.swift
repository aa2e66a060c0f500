import Foundation

/// A TCP connection to 127.0.0.1:`port`: its descriptor (the caller closes it), or nil when nothing accepts it.
public func connectToLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
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
