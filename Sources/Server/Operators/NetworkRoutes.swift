import BikebeaconAPI
import Hummingbird

/// `GET /v1/network/sentinels`: every sentinel with its state and health, for operators only
/// (an owner who is not one gets 403). `?state=` keeps one state; `?outdated=true` keeps those
/// running an older version than the newest any sentinel reports. `GET /v1/network/reports`: the reports of hidden
/// tags open or held, so that none waits unseen (#43).
enum NetworkRoutes {
    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.get("/v1/network/reports") { _, context in
            try await requireOperator(context, state: state)
            let reports = try await AbuseStore(database: state.database).list().map {
                NetworkReport(reference: $0.id, status: $0.status, reportedAt: Timestamp.format(milliseconds: $0.createdMilliseconds), caseId: $0.caseID)
            }
            return try JSONResponse.make(NetworkReportList(open: reports.filter { $0.status == "open" }.count,
                                                           held: reports.filter { $0.status == "held" }.count, reports: reports),
                                         headers: [.cacheControl: "no-store"])
        }

        router.get("/v1/network/sentinels") { request, context in
            try await requireOperator(context, state: state)
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

    static func requireOperator(_ context: AppContext, state: ServerState) async throws {
        guard try await OperatorStore(database: state.database).isOperator(accountID: try context.owner().accountID) else {
            throw APIError(.forbidden, "forbidden", "the network view is for operators; an operator is made with 'bikebeacon-server operators add EMAIL'")
        }
    }
}
