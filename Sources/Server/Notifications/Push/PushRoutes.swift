import BikebeaconAPI
import Foundation
import Hummingbird

/// Web Push for owners: the server's VAPID key, owners' push subscriptions, and which channels
/// (push, email) they want notifications on.
enum PushRoutes {
    /// The key is open (the dashboard needs it before anything else); the rest are on `callers`, the authenticated group.
    static func add(to router: Router<AppContext>, callers: RouterGroup<AppContext>, state: ServerState) {
        router.get("/v1/push/key") { _, _ in
            try JSONResponse.make(PushKey(publicKey: state.vapid.publicKey))
        }

        callers.post("/v1/push/subscriptions") { request, context in
            let accountID = try context.owner().accountID
            let body = try await JSONResponse.decode(PushSubscriptionRequest.self, from: request, context: context)
            try await check(body, state: state)
            do {
                let id = try await state.pushSubscriptions.save(
                    accountID: accountID, endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth, now: state.now)
                return try JSONResponse.make(PushSubscriptionCreated(id: id), status: .created,
                                             headers: [.location: "/v1/push/subscriptions/\(id)"])
            } catch PushSubscriptionStore.SaveError.tooMany {
                throw APIError(.conflict, "too_many_subscriptions",
                               "an account may have at most \(PushSubscriptionStore.limit) push subscriptions; delete an unused one first")
            }
        }

        callers.get("/v1/push/subscriptions") { _, context in
            try JSONResponse.make(PushSubscriptionList(subscriptions: try await subscriptions(accountID: context.owner().accountID, state: state)))
        }

        callers.delete("/v1/push/subscriptions/{id}") { _, context in
            let accountID = try context.owner().accountID
            guard let id = context.parameters.get("id"), id.count <= 64,
                  try await state.pushSubscriptions.delete(id: id, accountID: accountID)
            else { throw APIError(.notFound, "not_found", "no such push subscription") }
            return Response(status: .noContent)
        }

        callers.get("/v1/account/notifications") { _, context in
            let accountID = try context.owner().accountID
            return try JSONResponse.make(try await state.database.withSession {
                try await NotificationDispatcher.settings(accountID: accountID, in: $0)
            })
        }

        callers.put("/v1/account/notifications") { request, context in
            let accountID = try context.owner().accountID
            let body = try await JSONResponse.decode(NotificationSettingsChange.self, from: request, context: context)
            guard body.push != nil || body.email != nil else { throw APIError.invalid("send 'push' and/or 'email' as true or false") }
            let settings = try await state.database.transaction { db in
                var settings = try await NotificationDispatcher.settings(accountID: accountID, in: db)
                settings.push = body.push ?? settings.push
                settings.email = body.email ?? settings.email
                try await NotificationDispatcher.setSettings(settings, accountID: accountID, in: db)
                return settings
            }
            return try JSONResponse.make(settings)
        }
    }

    /// A usable subscription: an https endpoint (http only with `--allow-private-targets`) on an
    /// allowed address, a P-256 key and a 16-byte auth secret.
    static func check(_ body: PushSubscriptionRequest, state: ServerState) async throws {
        let allowPrivate = state.options.allowPrivateTargets
        guard body.endpoint.count <= 2000, let url = URL(string: body.endpoint), let scheme = url.scheme?.lowercased(),
              scheme == "https" || (allowPrivate && scheme == "http"), let host = url.host, !host.isEmpty
        else {
            throw APIError.invalid(allowPrivate ? "'endpoint' must be an absolute http or https URL"
                                                : "'endpoint' must be an absolute https URL (a browser's push service)")
        }
        guard let p256dh = Base64URL.decode(body.keys.p256dh), (try? WebPushEncryption.clientKey(p256dh)) != nil else {
            throw APIError.invalid(WebPushEncryption.Failure.badClientKey.description)
        }
        guard let auth = Base64URL.decode(body.keys.auth), auth.count == 16 else {
            throw APIError.invalid(WebPushEncryption.Failure.badAuthSecret.description)
        }
        try await checkTarget(host: host, field: "endpoint", state: state)
    }

    /// Refuses, with a 400 naming the field, a URL whose host is or resolves to a forbidden address.
    static func checkTarget(host: String, field: String, state: ServerState) async throws {
        do {
            try await state.outbound.checkSaved(host: OutboundHTTP.unbracketed(host))
        } catch {
            throw APIError(.badRequest, "forbidden_target", "'\(field)' points at \(error.address), a \(error.kind.rawValue) address;"
                           + " webhooks and push endpoints must be public (the operator can allow local ones with --allow-private-targets)")
        }
    }

    /// The account's push subscriptions as the owner sees them (the keys stay on the server).
    static func subscriptions(accountID: String, state: ServerState) async throws -> [PushSubscription] {
        try await state.pushSubscriptions.list(accountID: accountID).map {
            PushSubscription(id: $0.id, endpoint: $0.endpoint, createdAt: Timestamp.format(milliseconds: $0.createdMilliseconds))
        }
    }
}
