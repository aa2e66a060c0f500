import BikebeaconAPI
import Hummingbird

/// `GET /v1/network/sentinels`: every sentinel with its state and health, for operators only
/// (an owner who is not one gets 403). `?state=` keeps one state; `?outdated=true` keeps those
/// running an older version than the newest any sentinel reports.
enum NetworkRoutes {
    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.get("/v1/network/sentinels") { request, context in
            let caller = try context.owner()
            guard try await OperatorStore(database: state.database).isOperator(accountID: caller.accountID) else {
                throw APIError(.forbidden, "forbidden", "the network view is for operators; an operator is made with 'bikebeacon-server operators add EMAIL'")
            }
            let wanted = request.uri.queryParameters.get("state")
            if let wanted, !NetworkView.states.contains(wanted) {
                throw APIError.invalid("'state' must be one of \(NetworkView.states.joined(separator: ", "))")
            }
            let outdatedText = request.uri.queryParameters.get("outdated")
            guard outdatedText == nil || outdatedText == "true" || outdatedText == "false" else {
                throw APIError.invalid("'outdated' must be true or false")
            }
            let sentinels = try await SentinelStore(database: state.database).list()
            let health = try await state.sentinelHealth.all()
            let all = NetworkView.sentinels(sentinels, health: health)
            let kept = all.filter { (wanted == nil || $0.state == wanted) && (outdatedText != "true" || $0.outdated) }
            return try JSONResponse.make(NetworkSentinelList(sentinels: kept))
        }
    }
}
