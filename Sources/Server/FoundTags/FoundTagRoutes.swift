import Beacon
import BikebeaconAPI
import Hummingbird

/// "Found a tag?" (#35), for anyone, without an account: the page `/found`, and the API it calls. A look-up says
/// only whether a tag is on a registered bike (not whose, which, or whether it is missing); a finder can write to
/// the owner through the notification queue; someone who found a tag hidden on them reports it, which seals the
/// bike at once (`AbuseStore`, #43). Look-ups and messages count against the client's address
/// (`ServerOptions.foundTagClientLimit`), reports against a budget of their own (`foundReportClientLimit`), both
/// before anything is looked up. Per tag (`foundTagPerTagLimit`) only what reaches a registered bike counts, so
/// nobody can spend a tag's budget before it is registered, and the first report of an unsealed tag is never refused.
enum FoundTagRoutes {
    static let clientPrefix = "found:"
    static let tagPrefix = "found-tag:"

    static let notRegistered = APIError(.notFound, "not_registered",
        "no registered bike carries this tag; check the ID against what your app shows, or take the bike to the police")

    static func add(to router: Router<AppContext>, state: ServerState) {
        let page = DashboardRoutes.load()["found.html"]
        let headers = DashboardRoutes.securityHeaders(tiles: state.options.mapTiles)
        router.get("/found") { _, _ in
            try DashboardRoutes.response(page, headers: headers)
        }

        router.post("/v1/found/lookup") { request, context in
            try await limit(request, context: context, state: state)
            let body = try await JSONResponse.decode(FoundTagLookup.self, from: request, context: context)
            let beacon = try FoundTagInput.tag(body.tag)
            let registered = try await FoundTagStore(database: state.database).bike(beacon: beacon) != nil
            return try JSONResponse.make(FoundTagAnswer(registered: registered), headers: [.cacheControl: "no-store"])
        }

        router.post("/v1/found/message") { request, context in
            try await limit(request, context: context, state: state)
            let body = try await JSONResponse.decode(FoundTagMessage.self, from: request, context: context)
            let beacon = try FoundTagInput.tag(body.tag)
            let message = try FoundTagInput.text(body.message, field: "message", limit: FoundTagInput.maxMessageLength, required: true)
            let contact = try FoundTagInput.text(body.contact, field: "contact", limit: FoundTagInput.maxContactLength, required: false,
                                                 singleLine: true)
            let store = FoundTagStore(database: state.database)
            guard let bike = try await store.bike(beacon: beacon) else { throw notRegistered }
            guard !bike.sealed else {
                throw APIError(.conflict, "under_review", "this tag is under review by the network's operator; messages to its owner are not passed on")
            }
            try await limitTag("message", beacon, state: state)
            try await store.relay(to: bike, message: message, contact: contact, dispatcher: state.notifications, now: state.now)
            await state.database.events.signal(.deliveries)
            return Response(status: .accepted)
        }

        router.post("/v1/found/report") { request, context in
            let client = try await limit(request, context: context, state: state, report: true)
            let body = try await JSONResponse.decode(HiddenTagReport.self, from: request, context: context)
            let beacon = try FoundTagInput.tag(body.tag)
            let message = try FoundTagInput.text(body.message, field: "message", limit: FoundTagInput.maxMessageLength, required: false)
            let contact = try FoundTagInput.text(body.contact, field: "contact", limit: FoundTagInput.maxContactLength, required: false,
                                                 singleLine: true)
            guard let bike = try await FoundTagStore(database: state.database).bike(beacon: beacon) else { throw notRegistered }
            // Only reports of a tag sealed already spend its budget: they add nothing but mail for the operator.
            if bike.sealed { try await limitTag("report", beacon, state: state) }
            let operators = state.options.sentinelAlerts.operatorEmails
            guard let outcome = try await AbuseStore(database: state.database, deltaRetention: state.options.deltaRetention)
                .report(beacon: beacon, message: message, contact: contact, client: client,
                        operatorEmails: state.options.mail == nil ? [] : operators, operatorContact: operators.first,
                        breakerPerHour: state.options.reportBreakerPerHour, notifications: state.notifications, now: state.now)
            else { throw notRegistered }
            let what = outcome.held ? "held for the operator (past serve --report-breaker-per-hour)" : "its bike is sealed"
            if state.options.mail == nil || operators.isEmpty {
                state.logger.warning("a tag was reported hidden on someone and \(what), but no operator is mailed (set serve --operator-email and --smtp-url); see `bikebeacon-server abuse list`",
                                     metadata: ["report": "\(outcome.reference)"])
            } else {
                state.logger.notice("a tag was reported hidden on someone: \(what), and the operator mailed", metadata: ["report": "\(outcome.reference)"])
            }
            if let owner = outcome.sealedOwner { await state.database.events.signal(accounts: [owner]) }
            await state.database.events.signal(.deliveries)
            return try JSONResponse.make(HiddenTagReceipt(reference: outcome.reference), status: .created, headers: [.cacheControl: "no-store"])
        }
    }

    static let reportPrefix = "found-report:"

    /// Takes one of the client's tokens, from the reports' own budget with `report`; returns the client's key.
    @discardableResult
    static func limit(_ request: Request, context: AppContext, state: ServerState, report: Bool = false) async throws -> String {
        let client = AccountRoutes.client(of: request, context: context, state: state)
        let limiter = RateLimiter(database: state.database, limit: report ? state.options.foundReportClientLimit : state.options.foundTagClientLimit)
        let now = state.now
        let prefix = report ? reportPrefix : clientPrefix
        try await limiter.forgetRefilled(prefix: prefix, now: now)
        if let wait = try await limiter.retryAfter(prefix + client, now: now) {
            throw APIError.rateLimited(retryAfter: wait, report
                ? "too many reports from your network today; try again in \(wait) s, or call the police"
                : "too many look-ups from your network; try again in \(wait) s")
        }
        return client
    }

    /// Takes one of the tag's tokens for `what` (`message`, `report`).
    static func limitTag(_ what: String, _ beacon: BeaconID, state: ServerState) async throws {
        let limiter = RateLimiter(database: state.database, limit: state.options.foundTagPerTagLimit)
        let now = state.now
        try await limiter.forgetRefilled(prefix: tagPrefix, now: now)
        if let wait = try await limiter.retryAfter("\(tagPrefix)\(what):\(beacon)", now: now) {
            throw APIError.rateLimited(retryAfter: wait, "this tag's owner has had enough \(what)s for now; try again in \(wait) s")
        }
    }
}
