import Foundation
import Testing
import TestSupport

/// CDBus.h declares libdbus-1's API itself (the library is loaded on first use, not linked): a C
/// compiler checks every declared function's type and every struct's layout against the
/// installed <dbus/dbus.h>.
struct LibdbusABITests {
    @Test func theDeclaredAPIMatchesTheInstalledHeader() async throws {
        let flags = try await run(path: "/usr/bin/pkg-config", ["--cflags", "dbus-1"])
        try #require(flags.status == 0, "pkg-config knows no dbus-1 (scripts/setup installs libdbus-1-dev): \(flags.stderr)")
        let abi = Paths.repository.appendingPathComponent("Tests/DBusScannerTests/ABI").path
        let cdbus = Paths.repository.appendingPathComponent("Sources/CDBus").path
        let checker = FileManager.default.temporaryDirectory.appendingPathComponent("dbus-abi-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: checker) }
        // The toolchain's own clang: every machine that builds bikebeacon has it.
        let compiled = try await run(path: "/usr/bin/env", ["clang", "-std=c11", "-Wall", "-Werror"]
            + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
            + ["-I", cdbus, "-I", cdbus + "/include", abi + "/installed.c", abi + "/declared.c", "-o", checker])
        try #require(compiled.status == 0, "CDBus.h does not compile against <dbus/dbus.h>: \(compiled.stderr)")
        let checked = try await run(path: checker, [])
        #expect(checked.status == 0, "\(checked.stdout)")
    }
}
