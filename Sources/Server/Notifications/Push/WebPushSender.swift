import BikebeaconAPI
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore

/// Delivers notifications to browsers' push services (RFC 8030): the payload encrypted for the
/// subscription (RFC 8291), signed for the service (RFC 8292), with `TTL` and `Urgency: high`.
struct WebPushSender: NotificationSender {
    let channel = NotificationChannel.push
    let subscriptions: PushSubscriptionStore
    let vapid: VAPID
    let http: OutboundHTTP
    let logger: Logger
    let now: @Sendable () -> Int64

    /// A day: a phone that is off overnight still gets the news, a stale one is not shown days later.
    static let ttlSeconds = 86_400
    static let timeout: TimeAmount = .seconds(10)

    func deliver(_ item: QueuedNotification) async -> DeliveryOutcome {
        let subscription: StoredPushSubscription
        do {
            guard let found = try await subscriptions.find(id: item.target) else {
                return .drop(reason: "the push subscription was deleted")
            }
            subscription = found
        } catch {
            return .retry(reason: "database: \(error)")
        }
        let request: HTTPClientRequest
        do {
            request = try makeRequest(item.notification, to: subscription)
        } catch {
            return .drop(reason: "cannot encrypt for this subscription: \(error)")
        }
        let response: OutboundHTTP.Response
        do {
            response = try await http.execute(request, timeout: Self.timeout)
        } catch let refused as OutboundHTTP.Refused {
            logger.warning("push send refused", metadata: ["subscription": "\(subscription.id)", "reason": "\(refused)"])
            return .drop(reason: refused.description)
        } catch {
            return .retry(reason: "push service unreachable: \(error)")
        }
        return await outcome(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                       subscription: subscription)
    }

    func makeRequest(_ notification: OwnerNotification, to subscription: StoredPushSubscription) throws -> HTTPClientRequest {
        guard let endpoint = URL(string: subscription.endpoint), let audience = VAPID.audience(of: endpoint),
              let p256dh = Base64URL.decode(subscription.p256dh), let auth = Base64URL.decode(subscription.auth)
        else { throw WebPushEncryption.Failure.badClientKey }
        let body = try WebPushEncryption.encrypt(Array(try notification.json().utf8),
                                                 clientKey: try WebPushEncryption.clientKey(p256dh), auth: auth)
        var request = HTTPClientRequest(url: subscription.endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "TTL", value: String(Self.ttlSeconds))
        request.headers.add(name: "Urgency", value: "high")
        request.headers.add(name: "Authorization", value: try vapid.authorization(audience: audience, nowSeconds: now() / 1000))
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }

    /// What the push service's answer means for this delivery (RFC 8030 §5, RFC 8292 §5).
    private func outcome(status: Int, retryAfter: String?, subscription: StoredPushSubscription) async -> DeliveryOutcome {
        switch status {
        case 200..<300:
            return .delivered
        case 404, 410:
            // The browser unsubscribed or the subscription expired: it will never work again.
            _ = try? await subscriptions.delete(id: subscription.id)
            logger.info("push subscription gone; deleted it", metadata: ["subscription": "\(subscription.id)", "status": "\(status)"])
            return .drop(reason: "push service answered \(status): subscription gone")
        case 413:
            return .drop(reason: "push service answered 413: payload too large")
        case 429:
            let seconds = retryAfter.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            return .retry(reason: "push service answered 429: rate limited", afterMilliseconds: seconds.map { $0 * 1000 })
        default:
            return .retry(reason: "push service answered \(status)")
        }
    }
}
