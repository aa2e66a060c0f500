import Foundation
import Testing
import TestSupport

/// The shipped binaries use one HTTP stack (AsyncHTTPClient on SwiftNIO). FoundationNetworking
/// would drag libcurl, GnuTLS, Kerberos and LDAP onto a Pi: its return must fail a test.
struct LinkageTests {
    @Test(arguments: ["bikebeacon", "bikebeacon-server"])
    func noShippedBinaryLinksFoundationNetworking(_ name: String) async throws {
        let needed = try await dynamicDependencies(Paths.executable(name).path)
        #expect(!needed.isEmpty, "readelf listed no dependencies of \(name): the check would pass vacuously")
        let offenders = needed.filter { $0.contains("FoundationNetworking") || $0.contains("libcurl") }
        #expect(offenders.isEmpty, "\(name) links \(offenders): move the HTTP call to ServerClient (AsyncHTTPClient)")
    }

    /// The NEEDED entries of an ELF file's dynamic section, as `readelf -d` prints them.
    private func dynamicDependencies(_ path: String) async throws -> [String] {
        let result = try await run(path: "/usr/bin/readelf", ["-d", "-W", path])
        try #require(result.status == 0, "readelf failed on \(path) (binutils installed?): \(result.stderr)")
        return result.lines.filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last.map { String($0.dropLast()) }
        }
    }
}
