import BikebeaconAPI
import Foundation
import Hummingbird

/// "Find my tag": the owner asks their home sentinel what it hears (`/v1/sentinels/{id}/…`); the
/// sentinel holds `GET /v1/sentinel/listen` open until it is asked, then reports the tags it hears
/// (`POST /v1/sentinel/nearby`) until the two minutes are over.
enum NearbyRoutes {
    /// The longest a sentinel's `listen` request is held open.
    static let maxWait = 30
    /// How often a held request looks at the database: the signal wakes it at once on this server,
    /// this catches an owner's request that reached another replica.
    static let recheck: Duration = .seconds(2)

    static func add(to callers: RouterGroup<AppContext>, state: ServerState) {
        let nearby = NearbyStore(database: state.database)
        let notFound = APIError(.notFound, "not_found", "no such home sentinel on this account; the operator enrols one with `sentinels add --owner EMAIL`")

        callers.get("/v1/account/sentinels") { _, context in
            let owner = try context.owner().accountID
            return try JSONResponse.make(HomeSentinelList(sentinels: try await nearby.sentinels(owner: owner, now: state.now)))
        }

        callers.post("/v1/sentinels/{id}/listen") { _, context in
            let owner = try context.owner().accountID
            guard let id = context.parameters.get("id"), id.count <= 64,
                  let home = try await nearby.listen(sentinelID: id, owner: owner, now: state.now)
            else { throw notFound }
            await state.database.events.signal(.sentinel(id))
            return try JSONResponse.make(home, status: .accepted)
        }

        callers.delete("/v1/sentinels/{id}/listen") { _, context in
            let owner = try context.owner().accountID
            guard let id = context.parameters.get("id"), id.count <= 64, try await nearby.stop(sentinelID: id, owner: owner)
            else { throw notFound }
            return Response(status: .noContent)
        }

        callers.get("/v1/sentinels/{id}/nearby") { _, context in
            let owner = try context.owner().accountID
            guard let id = context.parameters.get("id"), id.count <= 64,
                  let heard = try await nearby.nearby(sentinelID: id, owner: owner, now: state.now)
            else { throw notFound }
            return try JSONResponse.make(heard, headers: [.cacheControl: "no-store"])
        }

        callers.get("/v1/sentinel/listen") { request, context in
            let sentinel = try context.sentinel()
            let waitText = request.uri.queryParameters.get("wait") ?? "0"
            guard let wait = Int(waitText), (0...maxWait).contains(wait) else {
                throw APIError.invalid("'wait' is how many seconds to hold the request open, 0…\(maxWait)")
            }
            let signal = state.database.events
            let deadline = ContinuousClock.now + .seconds(wait)
            while true {
                let seen = await signal.count(.sentinel(sentinel.id))
                guard let listening = try await nearby.listening(sentinelID: sentinel.id, now: state.now) else {
                    throw APIError(.notFound, "not_home_sentinel",
                                   "this sentinel is no owner's home sentinel, so nobody can ask what it hears (`sentinels add --owner EMAIL`)")
                }
                if let until = listening {
                    return try JSONResponse.make(ListenRequest(listeningUntil: Timestamp.format(milliseconds: until)))
                }
                let left = deadline - ContinuousClock.now
                guard left > .zero, !Task.isCancelled else { return Response(status: .noContent) }
                _ = await signal.wait(.sentinel(sentinel.id), after: seen, timeout: min(left, recheck))
            }
        }

        callers.post("/v1/sentinel/nearby") { request, context in
            let sentinel = try context.sentinel()
            let report = try await JSONResponse.decode(NearbyReport.self, from: request, context: context)
            guard report.beacons.count <= NearbyStore.maxBeacons else {
                throw APIError(.contentTooLarge, "too_many_beacons", "send at most \(NearbyStore.maxBeacons) tags, the loudest")
            }
            guard report.beacons.allSatisfy({ (-127...20).contains($0.rssi) && $0.count > 0 }) else {
                throw APIError.invalid("each tag's 'rssi' is -127…20 dBm and its 'count' at least 1")
            }
            guard try await nearby.record(report, sentinelID: sentinel.id, now: state.now) else {
                throw APIError(.conflict, "not_listening", "nobody asked this sentinel what it hears, or the two minutes are over; stop reporting")
            }
            return Response(status: .noContent)
        }
    }
}
