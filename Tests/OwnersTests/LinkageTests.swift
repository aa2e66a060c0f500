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

    /// A sentinel on a Pi Zero carries no ICU (its data alone is ~30 MB) and no full Foundation:
    /// `bikebeacon` needs FoundationEssentials at most. A module importing `Foundation` (rather
    /// than `FoundationEssentials`), or a dependency doing so, brings them back and fails here.
    @Test func theSentinelBinaryLinksNoICUOrFullFoundation() async throws {
        let path = Paths.executable("bikebeacon").path
        let needed = try await dynamicDependencies(path)
        #expect(!needed.isEmpty, "readelf listed no dependencies of bikebeacon: the check would pass vacuously")
        let banned = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libFoundationNetworking.so", "libcurl"]
        let offenders = needed.filter { library in banned.contains { library.hasPrefix($0) } }
        #expect(offenders.isEmpty, "bikebeacon links \(offenders): import FoundationEssentials (#if canImport) instead of Foundation")
        if !needed.contains(where: { $0.hasPrefix("libswiftCore") }) {
            // Built with --static-swift-stdlib: Foundation is inside; look for its symbols instead.
            let symbols = try await run(path: "/usr/bin/nm", ["--defined-only", path])
            try #require(symbols.status == 0 && !symbols.lines.isEmpty, "nm found no symbols in \(path) (stripped?): cannot check a static build")
            let icu = symbols.lines.filter { $0.hasSuffix(" ucol_open") || $0.contains("$s10Foundation") || $0.contains("$s32FoundationInternationalization") }
            #expect(icu.isEmpty, "the static bikebeacon carries ICU or full Foundation: \(icu.prefix(3))")
        }
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
