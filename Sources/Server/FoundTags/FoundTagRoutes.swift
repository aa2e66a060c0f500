import Beacon
import BikebeaconAPI
import Hummingbird

/// "Found a tag?" (#35), for anyone, without an account: the page `/found`, and the API it calls. A look-up says
/// only whether a tag is on a registered bike (not whose, which, or whether it is missing); a finder can write to
/// the owner through the notification queue; someone who found a tag hidden on them reports it, which freezes
/// the bike at once (`AbuseStore`). Every request counts against the client's address, messages and reports
/// against the tag too (`ServerOptions.foundTagClientLimit`, `foundTagPerTagLimit`), before anything is looked up.
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
            guard !bike.underReview else {
                throw APIError(.conflict, "under_review", "this tag is under review by the network's operator; messages to its owner are not passed on")
            }
            try await limitTag("message", beacon, state: state)
            try await store.relay(to: bike, message: message, contact: contact, dispatcher: state.notifications, now: state.now)
            await state.database.events.signal(.deliveries)
            return Response(status: .accepted)
        }

        router.post("/v1/found/report") { request, context in
            let client = try await limit(request, context: context, state: state)
            let body = try await JSONResponse.decode(HiddenTagReport.self, from: request, context: context)
            let beacon = try FoundTagInput.tag(body.tag)
            let message = try FoundTagInput.text(body.message, field: "message", limit: FoundTagInput.maxMessageLength, required: false)
            let contact = try FoundTagInput.text(body.contact, field: "contact", limit: FoundTagInput.maxContactLength, required: false,
                                                 singleLine: true)
            try await limitTag("report", beacon, state: state)
            let operators = state.options.sentinelAlerts.operatorEmails
            guard let reference = try await AbuseStore(database: state.database, deltaRetention: state.options.deltaRetention)
                .report(beacon: beacon, message: message, contact: contact, client: client,
                        operatorEmails: state.options.mail == nil ? [] : operators, now: state.now)
            else { throw notRegistered }
            if state.options.mail == nil || operators.isEmpty {
                state.logger.warning("a tag was reported hidden on someone and its bike is frozen, but no operator is mailed (set serve --operator-email and --smtp-url); see `bikebeacon-server abuse list`",
                                     metadata: ["report": "\(reference)"])
            } else {
                state.logger.notice("a tag was reported hidden on someone: its bike is frozen and the operator mailed", metadata: ["report": "\(reference)"])
                await state.database.events.signal(.deliveries)
            }
            return try JSONResponse.make(HiddenTagReceipt(reference: reference), status: .created, headers: [.cacheControl: "no-store"])
        }
    }

    /// Takes one of the client's tokens; returns the client's key.
    @discardableResult
    static func limit(_ request: Request, context: AppContext, state: ServerState) async throws -> String {
        let client = AccountRoutes.client(of: request, context: context, state: state)
        let limiter = RateLimiter(database: state.database, limit: state.options.foundTagClientLimit)
        let now = state.now
        try await limiter.forgetRefilled(prefix: clientPrefix, now: now)
        if let wait = try await limiter.retryAfter(clientPrefix + client, now: now) {
            throw APIError.rateLimited(retryAfter: wait, "too many look-ups from your network; try again in \(wait) s")
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
