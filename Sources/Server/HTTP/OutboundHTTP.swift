import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Calls to URLs owners chose (webhooks, push endpoints), safe against SSRF: the host is resolved
/// here, every address checked (`TargetAddress`), and the connection made to the checked address
/// itself (AsyncHTTPClient's DNS override), so a second, different DNS answer cannot slip in.
/// Redirects are not followed.
struct OutboundHTTP: Sendable {
    let allowPrivateTargets: Bool

    struct Refused: Error, CustomStringConvertible {
        var host: String
        var address: String
        var kind: TargetAddress

        var description: String {
            "refused to call \(host): it resolves to \(address), a \(kind.rawValue) address"
                + " (only `serve --allow-private-targets` permits loopback and private targets)"
        }
    }

    struct Unresolvable: Error, CustomStringConvertible {
        var host: String
        var description: String { "cannot resolve \(host)" }
    }

    struct Response: Sendable {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    /// Refuses a URL at save time when its host is, or resolves to, a forbidden address. A name
    /// that does not resolve now is accepted: it is checked again at every send.
    func checkSaved(host: String) async throws(Refused) {
        guard let addresses = try? await Self.resolve(host) else { return }
        try check(host: host, addresses)
    }

    private func check(host: String, _ addresses: [[UInt8]]) throws(Refused) {
        for address in addresses {
            let kind = TargetAddress.classify(address)
            if !kind.allowed(privateTargets: allowPrivateTargets) {
                throw Refused(host: host, address: Self.text(address), kind: kind)
            }
        }
    }

    /// Sends `request` to the checked address; the whole body (up to 64 KB) is read before returning.
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> Response {
        guard let url = URL(string: request.url), let host = url.host.map(Self.unbracketed), !host.isEmpty else {
            throw Unresolvable(host: request.url)
        }
        let addresses = try await Self.resolve(host)
        try check(host: host, addresses)
        guard let first = addresses.first else { throw Unresolvable(host: host) }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)))
        configuration.dnsOverride = [host: Self.text(first)]
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = (try? await response.body.collect(upTo: 64 * 1024)) ?? ByteBuffer()
            try? await client.shutdown()
            return Response(status: response.status, headers: response.headers, body: body)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Every address `host` resolves to (getaddrinfo accepts every IPv4 spelling: decimal, octal, hex, short forms).
    static func resolve(_ host: String) async throws -> [[UInt8]] {
        let addresses = try await NIOThreadPool.singleton.runIfActive { () -> [[UInt8]] in
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0, let head = list else { return [] }
            defer { freeaddrinfo(head) }
            var result: [[UInt8]] = []
            var node: UnsafeMutablePointer<addrinfo>? = head
            while let current = node {
                if let address = current.pointee.ai_addr {
                    switch Int32(current.pointee.ai_family) {
                    case AF_INET:
                        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                            var raw = pointer.pointee.sin_addr
                            result.append(withUnsafeBytes(of: &raw) { Array($0) })
                        }
                    case AF_INET6:
                        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                            var raw = pointer.pointee.sin6_addr
                            result.append(withUnsafeBytes(of: &raw) { Array($0) })
                        }
                    default: break
                    }
                }
                node = current.pointee.ai_next
            }
            return result
        }
        guard !addresses.isEmpty else { throw Unresolvable(host: host) }
        return addresses
    }

    /// The address in its canonical text form (what the connection is made to and logs show).
    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }
}
