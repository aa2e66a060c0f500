import BikebeaconAPI
import Foundation
import SQLKit

/// A sentinel's stored health: its last heartbeat, when the server received it, and the state
/// the server last recorded for it (since when, why).
public struct SentinelHealthRecord: Sendable, Equatable {
    public var sentinelID: String
    public var heartbeat: SentinelHeartbeat
    public var receivedMilliseconds: Int64
    public var state: SentinelState
    public var reason: String
    public var stateMilliseconds: Int64
}

/// One recorded change of state.
public struct SentinelTransition: Sendable, Equatable {
    public var from: SentinelState?
    public var to: SentinelState
    public var reason: String
    public var atMilliseconds: Int64
}

/// Heartbeats and state transitions in the database.
///
/// A heartbeat costs one row write in the steady state (the health row updated in place); a
/// change of state is a compare-and-swap on the stored state, so when replicas on one PostgreSQL
/// judge the same change, exactly one of them records it (its transition row, its event).
public struct SentinelHealthStore: Sendable {
    let database: Database
    let thresholds: SentinelThresholds

    public init(database: Database, thresholds: SentinelThresholds = SentinelThresholds()) {
        self.database = database
        self.thresholds = thresholds
    }

    /// Stores a heartbeat received now and records the change of state it makes, if any.
    /// Returns the accounts whose event streams got an event (signal them after this returns).
    @discardableResult
    func record(_ beat: SentinelHeartbeat, from sentinel: Sentinel, now: Int64) async throws -> [String] {
        let payload = String(decoding: try JSONResponse.encoder.encode(beat), as: UTF8.self)
        let reading = SentinelReading(beat)
        // Every statement below that stores the heartbeat stores what an estimate reads of it too.
        let heartbeatColumns: SQLQueryString = "heartbeat = \(bind: payload), received_ms = \(bind: now), \(reading.assignments)"
        let verdict = SentinelHealth.judge(heartbeat: beat, receivedMilliseconds: now, revoked: false, now: now, thresholds: thresholds)
        // The steady state, the state unchanged: one statement, no transaction.
        let kept = try await database.withSession { db in
            try await db.raw("""
                UPDATE sentinel_health SET \(heartbeatColumns), reason = \(bind: verdict.reason)
                WHERE sentinel_id = \(bind: sentinel.id) AND state = \(bind: verdict.state.rawValue) RETURNING sentinel_id
                """).first() != nil
        }
        if kept { return [] }
        return try await database.transaction { db in
            let stored = try await db.raw("SELECT state FROM sentinel_health WHERE sentinel_id = \(bind: sentinel.id)")
                .first()?.decode(column: "state", as: String.self)
            guard let stored else {
                // The first heartbeat: the row is born with its state. Two replicas racing insert once.
                let inserted = try await db.raw("""
                    INSERT INTO sentinel_health (sentinel_id, heartbeat, received_ms, state, reason, state_ms, \(idents: SentinelReading.columns, joinedBy: ", "))
                    VALUES (\(bind: sentinel.id), \(bind: payload), \(bind: now), \(bind: verdict.state.rawValue), \(bind: verdict.reason), \(bind: now),
                      \(binds: reading.values))
                    ON CONFLICT (sentinel_id) DO NOTHING RETURNING sentinel_id
                    """).first() != nil
                guard inserted else { return [] }
                return try await Self.transition(sentinel.id, from: nil, to: verdict, at: now, in: db)
            }
            if stored == verdict.state.rawValue {
                try await db.raw("""
                    UPDATE sentinel_health SET \(heartbeatColumns), reason = \(bind: verdict.reason)
                    WHERE sentinel_id = \(bind: sentinel.id)
                    """).run()
                return []
            }
            let swapped = try await db.raw("""
                UPDATE sentinel_health SET \(heartbeatColumns), state = \(bind: verdict.state.rawValue),
                  reason = \(bind: verdict.reason), state_ms = \(bind: now)
                WHERE sentinel_id = \(bind: sentinel.id) AND state = \(bind: stored) RETURNING sentinel_id
                """).first() != nil
            guard swapped else {
                // Another replica changed the state meanwhile: keep the heartbeat; the sweep settles the state.
                try await db.raw("""
                    UPDATE sentinel_health SET \(heartbeatColumns) WHERE sentinel_id = \(bind: sentinel.id)
                    """).run()
                return []
            }
            return try await Self.transition(sentinel.id, from: SentinelState(rawValue: stored), to: verdict, at: now, in: db)
        }
    }

    /// Judges every sentinel with a stored heartbeat again at `now` and records the changes: the
    /// periodic sweep that notices silence, and, at start-up, states recomputed from stored heartbeats.
    /// Returns the accounts whose event streams got an event.
    @discardableResult
    public func sweep(now: Int64) async throws -> [String] {
        let rows = try await database.withSession { db in
            try await db.raw("""
                SELECT h.sentinel_id, h.heartbeat, h.received_ms, h.state, s.revoked_ms FROM sentinel_health h
                JOIN sentinels s ON s.id = h.sentinel_id WHERE h.state <> 'retired'
                """).all()
        }
        var notified: [String] = []
        for row in rows {
            let id = try row.decode(column: "sentinel_id", as: String.self)
            let stored = try row.decode(column: "state", as: String.self)
            let beat = try? JSONDecoder().decode(SentinelHeartbeat.self, from: Data(try row.decode(column: "heartbeat", as: String.self).utf8))
            let verdict = SentinelHealth.judge(heartbeat: beat, receivedMilliseconds: try row.decode(column: "received_ms", as: Int64.self),
                                               revoked: try row.decode(column: "revoked_ms", as: Int64?.self) != nil, now: now,
                                               thresholds: thresholds)
            guard verdict.state.rawValue != stored else { continue }
            notified += try await swap(id, from: stored, to: verdict, now: now)
        }
        return notified
    }

    /// Records a revoked sentinel as retired (if it ever sent a heartbeat).
    public func retire(sentinelID: String, now: Int64) async throws {
        guard let stored = try await database.withSession({ db in
            try await db.raw("SELECT state FROM sentinel_health WHERE sentinel_id = \(bind: sentinelID)").first()?
                .decode(column: "state", as: String.self)
        }), stored != SentinelState.retired.rawValue else { return }
        let notified = try await swap(sentinelID, from: stored, to: SentinelVerdict(.retired, "revoked by the operator"), now: now)
        await database.events.signal(accounts: notified)
    }

    /// Compare-and-swap of the stored state; the one caller that wins records the transition.
    private func swap(_ id: String, from stored: String, to verdict: SentinelVerdict, now: Int64) async throws -> [String] {
        try await database.transaction { db in
            let swapped = try await db.raw("""
                UPDATE sentinel_health SET state = \(bind: verdict.state.rawValue), reason = \(bind: verdict.reason), state_ms = \(bind: now)
                WHERE sentinel_id = \(bind: id) AND state = \(bind: stored) RETURNING sentinel_id
                """).first() != nil
            guard swapped else { return [] }
            return try await Self.transition(id, from: SentinelState(rawValue: stored), to: verdict, at: now, in: db)
        }
    }

    /// The transition's row, and its event on the streams of whoever watches the sentinel: its owner
    /// for a home sentinel, and every operator (their Network page follows every sentinel). Inside
    /// the swap's transaction, so the event is stored exactly when the transition is.
    private static func transition(_ id: String, from: SentinelState?, to verdict: SentinelVerdict, at now: Int64,
                                   in db: any SQLDatabase) async throws -> [String] {
        try await db.raw("""
            INSERT INTO sentinel_transitions (sentinel_id, from_state, to_state, reason, at_ms)
            VALUES (\(bind: id), \(bind: from?.rawValue), \(bind: verdict.state.rawValue), \(bind: verdict.reason), \(bind: now))
            """).run()
        guard let row = try await db.raw("SELECT name, owner_id FROM sentinels WHERE id = \(bind: id)").first() else { return [] }
        let operators = try await db.raw("SELECT account_id FROM operators ORDER BY account_id").all()
            .map { try $0.decode(column: "account_id", as: String.self) }
        let watchers = ((try row.decode(column: "owner_id", as: String?.self)).map { [$0] } ?? []) + operators
        let event = SentinelStateEvent(sentinelId: id, sentinel: try row.decode(column: "name", as: String.self),
                                       state: verdict.state.rawValue, previous: from?.rawValue, reason: verdict.reason,
                                       time: Timestamp.format(milliseconds: now))
        var told: [String] = []
        for account in watchers where !told.contains(account) {
            try await EventStore.append(event, kind: SentinelStateEvent.kind, account: account, now: now, in: db)
            told.append(account)
        }
        return told
    }

    /// Every sentinel's stored health, by sentinel id.
    public func all() async throws -> [String: SentinelHealthRecord] {
        try await database.withSession { db in
            try await db.raw("SELECT sentinel_id, heartbeat, received_ms, state, reason, state_ms FROM sentinel_health").all()
                .map(Self.record)
        }.reduce(into: [:]) { $0[$1.sentinelID] = $1 }
    }

    /// The last `limit` transitions of one sentinel, newest first.
    public func transitions(sentinelID: String, limit: Int = 20) async throws -> [SentinelTransition] {
        try await database.withSession { db in
            try await db.raw("""
                SELECT from_state, to_state, reason, at_ms FROM sentinel_transitions WHERE sentinel_id = \(bind: sentinelID)
                ORDER BY id DESC LIMIT \(literal: limit)
                """).all().map(Self.transitionRow)
        }
    }

    /// A `sentinel_transitions` row (from_state, to_state, reason, at_ms).
    static func transitionRow(_ row: any SQLRow) throws -> SentinelTransition {
        guard let to = SentinelState(rawValue: try row.decode(column: "to_state", as: String.self)) else {
            throw StorageError.corruptRow("sentinel_transitions.to_state")
        }
        return SentinelTransition(from: try row.decode(column: "from_state", as: String?.self).flatMap(SentinelState.init(rawValue:)),
                                  to: to, reason: try row.decode(column: "reason", as: String.self),
                                  atMilliseconds: try row.decode(column: "at_ms", as: Int64.self))
    }

    /// How many sentinels are in each state: a revoked one is retired, one never heard from is silent.
    public func counts() async throws -> [SentinelState: Int] {
        let rows = try await database.withSession { db in
            try await db.raw("""
                SELECT CASE WHEN s.revoked_ms IS NOT NULL THEN 'retired' ELSE COALESCE(h.state, 'silent') END AS state, COUNT(*) AS n
                FROM sentinels s LEFT JOIN sentinel_health h ON h.sentinel_id = s.id GROUP BY 1
                """).all()
        }
        var counts = Dictionary(uniqueKeysWithValues: SentinelState.allCases.map { ($0, 0) })
        for row in rows {
            if let state = SentinelState(rawValue: try row.decode(column: "state", as: String.self)) {
                counts[state, default: 0] += try row.decode(column: "n", as: Int.self)
            }
        }
        return counts
    }

    static func record(_ row: any SQLRow) throws -> SentinelHealthRecord {
        let text = try row.decode(column: "heartbeat", as: String.self)
        guard let beat = try? JSONDecoder().decode(SentinelHeartbeat.self, from: Data(text.utf8)),
              let state = SentinelState(rawValue: try row.decode(column: "state", as: String.self))
        else { throw StorageError.corruptRow("sentinel_health") }
        return SentinelHealthRecord(sentinelID: try row.decode(column: "sentinel_id", as: String.self), heartbeat: beat,
                                    receivedMilliseconds: try row.decode(column: "received_ms", as: Int64.self), state: state,
                                    reason: try row.decode(column: "reason", as: String.self),
                                    stateMilliseconds: try row.decode(column: "state_ms", as: Int64.self))
    }
}
