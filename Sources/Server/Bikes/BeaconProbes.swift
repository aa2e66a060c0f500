import Beacon

/// `409 beacon_taken` tells whoever asks that a tag is on someone's bike, and tags broadcast their IDs in clear:
/// anyone with an account could find out whether a bike they pass is guarded. Each account hears that answer a
/// few times (`ServerOptions.beaconTakenLimit`: 5, then one an hour, shared by every replica); after that every
/// request that sets a beacon waits (429) before the tag is looked up, taken or not, so the wait says nothing
/// either. An owner who mistyped a tag once or twice never notices; a script probing tags stops at once.
enum BeaconProbes {
    static let prefix = "beacon-taken:"

    /// Runs `body` (which may throw `beacon_taken`) when it sets a beacon and the account may still be told.
    static func counting<T: Sendable>(owner: String, beacon: BeaconID?, state: ServerState,
                                      _ body: () async throws -> T) async throws -> T {
        guard beacon != nil else { return try await body() }
        let key = prefix + owner
        let now = state.now
        if let wait = try await state.beaconTakenLimiter.wait(key, now: now) {
            throw APIError.rateLimited(retryAfter: wait,
                                       "this account tried too many tags that are already on a bike; try again in \(wait) s")
        }
        do {
            return try await body()
        } catch let error as APIError where error.code == BikeStore.beaconTaken.code {
            try await state.beaconTakenLimiter.forgetRefilled(prefix: prefix, now: now)
            _ = try await state.beaconTakenLimiter.retryAfter(key, now: now)
            throw error
        }
    }
}
