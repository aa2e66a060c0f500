import Beacon
import BikebeaconAPI
import Foundation
import Registry
@testable import Sentinel

/// A stand-in for the server's missing list that answers like the real one: ETags, deltas
/// from versions it remembers, the full list otherwise; or fails when told the server is down.
actor FakeMissingList: MissingListSource {
    private(set) var version: Int64 = 1
    private(set) var bikes: [BeaconID: MissingBike] = [:]
    private var history: [Int64: [BeaconID: MissingBike]] = [:]
    var isDown = false
    private(set) var requests: [(since: Int64?, etag: String?)] = []

    init(bikes: [MissingBike]) {
        for bike in bikes { self.bikes[bike.beacon] = bike }
        history[version] = self.bikes
    }

    func setDown(_ down: Bool) { isDown = down }

    func change(adding: [MissingBike] = [], removing: [BeaconID] = []) {
        for beacon in removing { bikes[beacon] = nil }
        for bike in adding { bikes[bike.beacon] = bike }
        version += 1
        history[version] = bikes
    }

    /// Makes every older version unknown, as after the server pruned its change log.
    func forgetHistory() { history = [version: bikes] }

    func fetch(since: Int64?, etag: String?) async throws -> MissingListAnswer {
        requests.append((since, etag))
        if isDown { throw URLError(.cannotConnectToHost) }
        let tag = "\"v\(version)\""
        if etag == tag { return .notModified }
        if let since, let old = history[since] {
            let added = bikes.values.filter { old[$0.beacon] != $0 }
            let removed = old.keys.filter { bikes[$0] == nil }
            return .delta(MissingListDelta(since: since, version: version, added: Array(added), removed: removed), etag: tag)
        }
        return .full(version: version, bikes: Array(bikes.values), etag: tag)
    }
}

/// A stand-in for `POST /v1/sightings`: idempotent on id, can be down, can refuse beacons.
actor FakeSightingServer: SightingTransport {
    private(set) var stored: [UUID: Sighting] = [:]
    private(set) var batches = 0
    var isDown = false
    var refused: Set<BeaconID> = []

    func setDown(_ down: Bool) { isDown = down }
    func refuse(_ beacon: BeaconID) { refused.insert(beacon) }

    func send(_ sightings: [Sighting]) async throws -> SightingResult {
        batches += 1
        if isDown { throw URLError(.cannotConnectToHost) }
        var receipt = SightingResult(accepted: 0, duplicates: 0, rejected: [])
        for s in sightings {
            if refused.contains(s.beacon) {
                receipt.rejected.append(.init(id: s.id.uuidString.lowercased(), reason: "beacon is not on the missing list"))
            } else if stored[s.id] != nil {
                receipt.duplicates += 1
            } else {
                stored[s.id] = s
                receipt.accepted += 1
            }
        }
        return receipt
    }
}
