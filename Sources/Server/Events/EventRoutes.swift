import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/events`: the owner's events as server-sent events. Resumes after `Last-Event-ID`;
/// without it, starts with events stored from now on. A stream reads the database only when
/// `Database.events` signals its owner's channel, so an idle stream costs no CPU. A stream ends with its
/// session: ending one (log-out, revoked from another device, a password reset or change, the account
/// deleted) signals the owner's channel too, and the stream checks its session when so woken, when the
/// session's expiry comes, and every `SessionCheck.recheck` besides; a keep-alive alone reads nothing
/// (at one database read per stream every 15 s, 19 000 idle streams cost a fifth of a core).
///
/// Every database read and write of a stream runs in a child task (`StreamOpening` for the opening, `inChildTask` in
/// `EventStream`): a task keeps the most memory its async frames ever took for as long as it lives, and the stream's
/// task lives as long as the stream.
enum EventRoutes {
    /// A comment line this often keeps proxies from closing an idle stream, and lets the server
    /// notice a client that went away (the write fails).
    static let keepAlive: Duration = .seconds(15)

    static let path = "/v1/events"

    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.get(RouterPath(path)) { request, context in
            let owner = try context.owner()
            let account = owner.accountID
            let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!]
            let resumeAfter = lastEventID.flatMap { Int64($0) }
            if lastEventID != nil, (resumeAfter ?? -1) < 0 { throw APIError.invalid("'Last-Event-ID' must be an event id") }
            let client = AccountRoutes.client(of: request, context: context, state: state)
            // These reads run in `StreamOpening`'s child task, like the rest of the chain before the stream is written.
            let start: Int64
            if let resumeAfter { start = resumeAfter } else { start = try await EventStore.latestID(account: account, database: state.database) }
            // The stream carries the sightings of the owner's missing bikes as they come: a read of each (`ReadLog`).
            for bike in try await state.bikes.list(owner: account) where bike.missing {
                try await state.readLog.record(bikeID: bike.id, owner: account, reader: .account(account), route: .events, client: client,
                                               now: state.now)
            }
            // What the open stream keeps, and no more: the whole `ServerState` in its closure cost 1.2 KB a stream.
            let stream = EventStream(owner: owner, database: state.database, sessions: state.sessions, policy: state.options.sessions,
                                     clock: state.options.now, memoryTrim: state.memoryTrim, start: start, client: client)
            let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in try await stream.run(&writer) })
        }
    }
}
