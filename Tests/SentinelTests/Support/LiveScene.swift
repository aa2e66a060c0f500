import Beacon
import Foundation
@testable import Sentinel

/// A live sentinel's world for a test: the real server with the sentinel enrolled at a place, an
/// owner whose bikes are missing, the sentinel's settings, and a FakeRadio hearing those bikes.
/// The caller stops the server.
struct LiveScene {
    let server: ServerHarness
    let owner: (token: String, bikes: [String])
    let settings: SentinelConfiguration
    let radio = FakeRadio()

    static func start(sentinel name: String, missing bikes: [BeaconID]) async throws -> LiveScene {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: name)
        try await server.start()
        do {
            let owner = try await server.ownerWithMissingBikes(bikes)
            var settings = SentinelConfiguration(serverURL: server.url, token: token, stateDirectory: dir.appendingPathComponent("state").path)
            settings.requestTimeout = 2
            let scene = LiveScene(server: server, owner: owner, settings: settings)
            scene.radio.setAudible(Set(bikes))
            return scene
        } catch {
            server.stop()
            throw error
        }
    }

    /// The owner's sightings' events, newest first.
    func events() async throws -> [String] {
        try await server.sightings(owner: owner.token, bikes: owner.bikes).map(\.event)
    }
}
