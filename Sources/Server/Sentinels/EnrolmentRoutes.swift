import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /v1/sentinel/enrol`: a sentinel being set up (`bikebeacon enroll`) exchanges its one-time
/// code for its token. No token yet, so the attempts count against the client's address.
///
/// `GET /enrol`: where the enrolment QR code (`EnrolmentNotice.url`, `/enrol#CODE`) leads a phone that scans it. The
/// code is the fragment, which no browser sends; the page (enrol.html) shows the command for the Pi. The old
/// `/enrol/CODE` answers the same fixed page, which neither echoes nor uses the code (#43).
enum EnrolmentRoutes {
    static let limiterPrefix = "enrol:"

    static func add(to router: Router<AppContext>, state: ServerState) {
        let page = DashboardRoutes.load()["enrol.html"]
        let headers: HTTPFields = {
            var fields = DashboardRoutes.securityHeaders(tiles: state.options.mapTiles)
            fields[.cacheControl] = "no-store"
            return fields
        }()
        router.get("/enrol") { _, _ in try DashboardRoutes.response(page, headers: headers) }
        router.get("/enrol/{code}") { _, _ in try DashboardRoutes.response(page, headers: headers) }
        router.post("/v1/sentinel/enrol") { request, context in
            let client = AccountRoutes.client(of: request, context: context, state: state)
            let now = state.now
            let limiter = RateLimiter(database: state.database, limit: state.options.enrolLimit)
            try await limiter.forgetRefilled(prefix: limiterPrefix, now: now)
            if let wait = try await limiter.retryAfter(limiterPrefix + client, now: now) {
                throw APIError.rateLimited(retryAfter: wait, "too many enrolment attempts from your network; try again in \(wait) s")
            }
            let body = try await JSONResponse.decode(EnrolmentRequest.self, from: request, context: context)
            guard EnrolmentCode.normalised(body.code) != nil else {
                throw APIError.invalid("'code' must be the enrolment code `sentinels add` printed (20 letters and digits, dashes optional)")
            }
            switch try await EnrolmentStore(database: state.database).claim(code: body.code, now: now) {
            case let .enrolled(sentinel, token):
                state.logger.notice("sentinel enrolled with its code", metadata: ["sentinel": "\(sentinel.name)", "client": "\(client)"])
                let place = sentinel.latitude.flatMap { latitude in sentinel.longitude.map { SentinelPlace(latitude: latitude, longitude: $0) } }
                return try JSONResponse.make(SentinelEnrolment(token: token, name: sentinel.name, serverURL: PublicOrigin.of(request, context: context, state: state),
                                                               roaming: place == nil, place: place),
                                             headers: [.cacheControl: "no-store"])
            case let outcome:
                throw refusal(outcome)
            }
        }
    }

    /// The refusal for an enrolment that did not happen, saying what the operator does next.
    static func refusal(_ outcome: EnrolmentOutcome) -> APIError {
        let again = "ask the server's operator for a new code (`bikebeacon-server sentinels rotate NAME` issues one)"
        return switch outcome {
        case .enrolled, .unknown:
            APIError(.notFound, "unknown_code", "no such enrolment code: check it against the one `sentinels add` printed, or \(again)")
        case let .used(at):
            APIError(.gone, "code_used", "this enrolment code was used at \(Timestamp.format(milliseconds: at)); a code works once: \(again)")
        case let .expired(at):
            APIError(.gone, "code_expired", "this enrolment code expired at \(Timestamp.format(milliseconds: at)) (codes work for 24 h): \(again)")
        case .revoked:
            APIError(.gone, "sentinel_revoked", "the sentinel this code enrols was revoked; the operator enrols it again with `sentinels add`")
        case .superseded:
            APIError(.gone, "code_superseded", "the sentinel's token was rotated after this code was issued: use the code `sentinels rotate` printed with it")
        }
    }
}
