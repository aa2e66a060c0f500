import Hummingbird
import ServiceLifecycle

/// One owner's open `/v1/events` stream after its first reads: what it keeps for its life, and its loop.
///
/// The loop runs in the connection's task for hours, and Swift's task allocator keeps that task's slabs at the
/// deepest its async frames ever went. An async frame keeps a slot for every call inlined into it, so each step is
/// a function of its own, never inlined: written as one closure the loop's frame was 5 KB (heaptrack, #36). The
/// opening (`StreamOpening`) is the connection task's deepest point, and the loop is to stay below it.
struct EventStream: Sendable {
    let owner: OwnerSession
    let database: Database
    let sessions: SessionStore
    let policy: SessionPolicy
    let clock: @Sendable () -> Int64
    let memoryTrim: MemoryTrim
    /// The last event sent: the stream goes on after it.
    let start: Int64
    /// The client's address, for the read log: each sighting the stream delivers is a read of its bike's place.
    let client: String

    private var signal: EventSignal { database.events }
    private var channel: EventSignal.Channel { .account(owner.accountID) }

    func run(_ writer: inout any ResponseBodyWriter) async throws {
        defer { memoryTrim.streamClosed() }
        var seen = await signal.count(channel)
        try await writer.write(ByteBuffer(string: ": connected\n\n"))
        var lastID = start
        var checkDatabase = true
        var sessionCheck = SessionCheck()
        // A server shutting down ends its streams at once (clients reconnect, to a replica or
        // the restarted server), rather than at their next keep-alive.
        try await withGracefulShutdownHandler {
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                guard try await sessionIsLive(&sessionCheck, woken: checkDatabase) else { break }
                if checkDatabase {
                    lastID = try await sendEvents(after: lastID, to: &writer)
                } else {
                    try await keepAlive(&writer)
                }
                let next = await wait(after: seen)
                checkDatabase = next != seen
                seen = next
            }
        } onGracefulShutdown: { [signal, channel] in
            Task { await signal.signal(channel) }
        }
        try await writer.finish(nil)
    }

    /// Reads the session when `SessionCheck` says so; false once it has ended.
    @inline(never)
    private func sessionIsLive(_ check: inout SessionCheck, woken: Bool) async throws -> Bool {
        let now = clock()
        guard check.isDue(woken: woken, now: now) else { return true }
        let live = try await inChildTask { [sessions, owner, policy] in try await sessions.liveUntil(owner, policy: policy, now: now) }
        guard let until = live else { return false }
        check.checked(liveUntil: until, now: now)
        return true
    }

    /// Sends the events after `lastID`, until a page comes back short (a burst larger than one page is sent whole);
    /// the id of the last sent.
    @inline(never)
    private func sendEvents(after lastID: Int64, to writer: inout any ResponseBodyWriter) async throws -> Int64 {
        var lastID = lastID
        var page: [StoredEvent]
        repeat {
            let after = lastID
            page = try await inChildTask { [owner, database] in
                try await EventStore.events(account: owner.accountID, after: after, limit: 100, database: database)
            }
            for event in page {
                try await writer.write(ByteBuffer(string: "id: \(event.id)\nevent: \(event.kind)\ndata: \(event.payload)\n\n"))
                lastID = event.id
            }
            try await logReads(of: page)
        } while page.count == 100
        return lastID
    }

    /// Logs a read of each bike whose sighting the page delivered (`ReadLog`), whatever the stream was opened for: a
    /// stream opened before the bike was marked missing carries its sightings too.
    @inline(never)
    private func logReads(of page: [StoredEvent]) async throws {
        let bikes = Set(page.compactMap(\.sightingBikeID))
        guard !bikes.isEmpty else { return }
        try await inChildTask { [owner, database, client, clock] in
            let log = ReadLog(database: database)
            for bike in bikes.sorted() {
                try await log.record(bikeID: bike, owner: owner.accountID, reader: .account(owner.accountID), route: .events, client: client, now: clock())
            }
        }
    }

    @inline(never)
    private func keepAlive(_ writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
    }

    @inline(never)
    private func wait(after seen: UInt64) async -> UInt64 {
        await signal.wait(channel, after: seen, timeout: EventRoutes.keepAlive)
    }
}
