import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/events`: the owner's events as server-sent events. Resumes after `Last-Event-ID`;
/// without it, starts with events stored from now on.
enum EventRoutes {
    /// How often a stream checks the database even when this process stored nothing (other replicas may have).
    static let pollEvery = 20
    static let tick: Duration = .milliseconds(100)
    /// A comment line this often keeps proxies from closing an idle stream, and lets the
    /// server notice a client that went away (the write fails) within seconds.
    static let keepAliveTicks = 20

    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.get("/v1/events") { request, context in
            let account = try context.owner().accountID
            let start: Int64
            if let last = request.headers[HTTPField.Name("Last-Event-ID")!] {
                guard let id = Int64(last), id >= 0 else { throw APIError.invalid("'Last-Event-ID' must be an event id") }
                start = id
            } else {
                start = try await EventStore.latestID(account: account, database: state.database)
            }
            let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                var lastID = start
                var seen = -1
                var ticks = 0
                while !Task.isCancelled {
                    let generation = await state.broker.generation(of: account)
                    if generation != seen || ticks % pollEvery == 0 {
                        seen = generation
                        for event in try await EventStore.events(account: account, after: lastID, limit: 100, database: state.database) {
                            try await writer.write(ByteBuffer(string: "id: \(event.id)\nevent: sighting\ndata: \(event.payload)\n\n"))
                            lastID = event.id
                        }
                    }
                    ticks += 1
                    if ticks % keepAliveTicks == 0 { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
                    try await Task.sleep(for: tick)
                }
                try await writer.finish(nil)
            })
        }
    }
}
