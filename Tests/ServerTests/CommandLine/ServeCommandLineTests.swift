#if canImport(Glibc)
import Glibc
#endif
import Subprocesses
import Testing
import TestSupport

/// `serve` on a port another program holds says which port and what to do, in the operator's words, not NIO's.
@Suite struct ServeCommandLineTests {
    @Test func aTakenPortIsAClearError() async throws {
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(held) }
        let port = try #require(LoopbackPort.bind(held, port: 0))
        try #require(listen(held, 1) == 0)
        let directory = try TestDirectory.fresh("serve-port")
        let result = try await run("bikebeacon-server", ["serve", "--port", "\(port)", "--bcrypt-cost", "4",
                                                         "--database", "sqlite://" + directory.appendingPathComponent("server.sqlite").path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(port): another program already has that port") && result.stderr.contains("give another --port"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("sweep failed"), "a start that fails logs no sweep error: \(result.stderr)")
    }
}
