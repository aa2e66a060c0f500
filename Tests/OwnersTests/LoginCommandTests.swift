import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalServer
import Testing
import TestSupport
import Subprocesses

/// `bikebeacon login` and `range --bike NAME` against a real bikebeacon-server on loopback.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: Paths.executable("bikebeacon-server").path),
                "bikebeacon-server is not built: skipping the account tests"))
struct LoginCommandTests {
    static var beacon: [String: Any] { ["uuid": "494E5445-4C4C-495F-524F-434B535F4857", "major": 20596, "minor": 25984] }

    @Test func loginStoresAPrivateTokenAndRangeFindsTheAccountsBike() async throws {
        let server = try await AccountServer.start()
        defer { server.stop() }
        let config = try temporaryDirectory()
        let environment = ["XDG_CONFIG_HOME": config]
        let email = "ann@example.org", password = "correct horse battery"
        #expect(try await server.call("POST", "/v1/accounts", ["email": email, "password": password]).status == 201)

        let wrong = try await run("bikebeacon", ["login", server.base, "--email", email, "--password-stdin"], stdin: Data("nope nope\n".utf8), environment: environment)
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("email or password is wrong"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: config + "/bikebeacon/session.json"), "a failed login stores nothing")

        let login = try await run("bikebeacon", ["login", server.base, "--email", email, "--password-stdin"], stdin: Data((password + "\n").utf8), environment: environment)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("logged in to \(server.base) as \(email)"))
        let file = config + "/bikebeacon/session.json"
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "the token is readable by this user only")
        #expect((try FileManager.default.attributesOfItem(atPath: config + "/bikebeacon")[.posixPermissions] as? Int) == 0o700)
        let session = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        let token = try #require(session["token"] as? String)

        #expect(try await server.call("POST", "/v1/bikes", ["name": "green", "beacon": Self.beacon], token: token).status == 201)
        let range = try await run("bikebeacon", ["range", "--bike", "green", "--replay", Paths.fixture("captures/govee-h5100.btsnoop").path, "--speed", "5000"], environment: environment)
        #expect(range.status == 0, "\(range.stderr)")
        #expect(range.lines.count >= 17 && range.lines.allSatisfy { $0.contains(#""bike":"green""#) })
        let listed = try await run("bikebeacon", ["bikes", "list"], environment: environment)
        #expect(listed.stdout.contains("account bikes at \(server.base) (\(email)):"))
        #expect(listed.stdout.contains("green  494E5445-4C4C-495F-524F-434B535F4857:20596:25984"))
        let unknown = try await run("bikebeacon", ["range", "--bike", "blue", "--replay", Paths.fixture("captures/govee-h5100.btsnoop").path], environment: environment)
        #expect(unknown.stderr.contains("no bike called \"blue\": known bikes are \"green\""), "\(unknown.stderr)")
    }

    @Test func unreachableServerAndBadURLAreClearErrors() async throws {
        let config = try temporaryDirectory()
        let bad = try await run("bikebeacon", ["login", "ftp://example.org", "--email", "a@example.org", "--password-stdin"], stdin: Data("x\n".utf8), environment: ["XDG_CONFIG_HOME": config])
        #expect(bad.stderr.contains("is not a server URL"))
        let down = try await run("bikebeacon", ["login", "http://127.0.0.1:9", "--email", "a@example.org", "--password-stdin"], stdin: Data("x\n".utf8), environment: ["XDG_CONFIG_HOME": config])
        #expect(down.status != 0)
        #expect(down.stderr.contains("cannot reach http://127.0.0.1:9"), "\(down.stderr)")
    }
}

/// bikebeacon-server on a free loopback port with a fresh SQLite database; bcrypt cost 4, so a
/// loaded machine does not time the test's requests out hashing passwords.
struct AccountServer {
    let process: ChildProcess
    let base: String

    static func start() async throws -> AccountServer {
        let directory = try temporaryDirectory()
        let port = try LoopbackPort.free()
        let log = directory + "/server.log"
        let process = try ChildProcess.spawn(Paths.executable("bikebeacon-server").path,
                                             ["serve", "--host", "127.0.0.1", "--port", String(port),
                                              "--database", "sqlite://\(directory)/server.sqlite", "--bcrypt-cost", "4"],
                                             stdout: .file(log), stderr: .file(log))
        let server = AccountServer(process: process, base: "http://127.0.0.1:\(port)")
        for _ in 0..<150 {
            if let (status, _) = try? await server.call("GET", "/healthz"), status == 200 { return server }
            try await Task.sleep(for: .milliseconds(200))
        }
        process.terminate()
        process.wait()
        throw StartFailure(message: "bikebeacon-server did not start; see \(directory)/server.log")
    }

    func stop() {
        process.terminate()
        process.wait()
    }

    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, token: String? = nil) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = 5
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
