import BikebeaconAPI
import Hummingbird
import SQLKit

/// An owner's data rights: take everything away (export) and leave (delete the account).
enum AccountDataRoutes {
    static func add(to callers: RouterGroup<AppContext>, state: ServerState) {
        callers.get("/v1/account/export") { request, context in
            let owner = try context.owner()
            let export = try await AccountData(database: state.database).export(
                accountID: owner.accountID, now: state.now,
                pushSubscriptions: try await PushRoutes.subscriptions(accountID: owner.accountID, state: state),
                sessions: try await SessionRoutes.live(for: owner, state: state))
            // The export carries every sighting's place: a read of each bike it has any of (`ReadLog`).
            let client = AccountRoutes.client(of: request, context: context, state: state)
            for bikeID in Set(export.sightings.map(\.bikeId)).sorted() {
                try await state.readLog.record(bikeID: bikeID, owner: owner.accountID, reader: .account(owner.accountID), route: .export,
                                               client: client, now: state.now)
            }
            return try JSONResponse.make(export, headers: [.contentDisposition: "attachment; filename=\"bikebeacon-account.json\""])
        }

        callers.delete("/v1/account") { request, context in
            let owner = try context.owner()
            let accountID = owner.accountID
            let body = try await JSONResponse.decode(AccountDeletion.self, from: request, context: context)
            try await AccountRoutes.confirm(password: body.password, owner: owner, request: request, context: context, state: state,
                                            refusal: "the password is wrong; the account was not deleted")
            try await AccountData(database: state.database).delete(accountID: accountID, missingList: state.missingList, now: state.now)
            await state.sessions.wakeStreams(of: accountID)
            state.logger.notice("account deleted at its owner's request", metadata: ["account": "\(accountID)"])
            return Response(status: .noContent)
        }
    }
}

/// Reads and erases everything an account owns.
struct AccountData: Sendable {
    let database: Database

    func export(accountID: String, now: Int64, pushSubscriptions: [PushSubscription], sessions: [Session]) async throws -> AccountExport {
        let shares = try await ShareStore(database: database).list(owner: accountID, bikeID: nil, now: now)
        let dates = try await BikeDateStore(database: database).list(owner: accountID, bikeID: nil)
        return try await database.withSession { db in
            guard let row = try await db.raw("SELECT email, webhook_url, created_ms FROM accounts WHERE id = \(bind: accountID)").first() else {
                throw APIError.unauthenticated
            }
            let bikes = try await db.raw("SELECT \(unsafeRaw: BikeStore.columns) FROM bikes WHERE owner_id = \(bind: accountID) ORDER BY created_ms, id").all().map(BikeStore.bike)
            let sightings = try await db.raw("""
                SELECT s.*, t.name AS sentinel_name FROM sightings s JOIN sentinels t ON t.id = s.sentinel_id
                JOIN bikes b ON b.id = s.bike_id WHERE b.owner_id = \(bind: accountID) AND \(unsafeRaw: SightingSeal.ownerVisible("s"))
                ORDER BY s.time_ms, s.id
                """).all().map(SightingStore.sighting)
            return AccountExport(
                account: Account(id: accountID, email: try row.decode(column: "email", as: String.self),
                                 operator: try await db.raw("SELECT account_id FROM operators WHERE account_id = \(bind: accountID)").first() != nil),
                createdAt: Timestamp.format(milliseconds: try row.decode(column: "created_ms", as: Int64.self)),
                exportedAt: Timestamp.format(milliseconds: now),
                webhookUrl: try row.decode(column: "webhook_url", as: String?.self),
                bikes: bikes, sightings: sightings,
                notifications: try await NotificationDispatcher.settings(accountID: accountID, in: db),
                pushSubscriptions: pushSubscriptions, sessions: sessions, shares: shares, dates: dates)
        }
    }

    /// Deletes the account; bikes, their share links and dates, sightings, sessions, events and subscriptions go with it (foreign keys
    /// cascade). Missing bikes leave the missing list in the same transaction, so sentinels stop looking. Sealed sightings of an
    /// unreleased report case are kept for the police (`SightingSeal.keepEvidence`): leaving does not erase a stalking case.
    func delete(accountID: String, missingList: MissingListStore, now: Int64) async throws {
        try await database.transaction { db in try await Self.delete(accountID: accountID, missingList: missingList, now: now, in: db) }
    }

    /// The deletion inside the caller's transaction (the operator's `abuse close-account` closes reports in the same one).
    static func delete(accountID: String, missingList: MissingListStore, now: Int64, in db: any SQLDatabase) async throws {
        try await SightingSeal.keepEvidence(bikeCondition: "b.owner_id = \(bind: accountID)", now: now, in: db)
        let missing = try await db.raw("""
            SELECT \(unsafeRaw: BikeStore.columns) FROM bikes WHERE owner_id = \(bind: accountID) AND missing_since_ms IS NOT NULL
            """).all().map(BikeStore.bike)
        try await db.raw("DELETE FROM bikes WHERE owner_id = \(bind: accountID)").run()
        if !missing.isEmpty { _ = try await missingList.recordChange(of: missing.map(\.beacon), in: db) }
        try await db.raw("DELETE FROM accounts WHERE id = \(bind: accountID)").run()
        try await SessionStore.ended(accountID: accountID, in: db)
    }
}
