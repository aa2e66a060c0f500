import BikebeaconAPI
import SQLKit

/// What a bike's owner is told when a report seals it and again when the operator releases or closes the case
/// (#43): push and mail through the queue (past the no-spam window) and a `review` event on the stream, in the
/// transaction that changed the seal. Plain words for someone who may be frightened or angry, how to reach the
/// operator, and nothing of the reporter.
enum ReviewNotice {
    static func text(_ event: OwnerNotification.Event, operatorContact: String?) -> String {
        let reach = operatorContact.map { "Write to the network's operator at \($0)." }
            ?? "Reach the network's operator through the address on this server's front page."
        switch event {
        case .reviewStarted:
            return """
                Someone reported finding this bike's tag hidden on them. While the network's operator looks into it, new sightings \
                of the bike are kept but not shown to you, and your share links are paused. Nothing is deleted, and the bike stays \
                on the missing list. If your bike was stolen, the report may be the thief's: tell the operator, and give them your \
                police reference. \(reach)
                """
        case .reviewReleased:
            return """
                The operator has looked at the report and released it. The sightings kept during the review now show on the \
                bike's page, marked "held for review", and your share links work again. \(reach)
                """
        default:
            return """
                The operator has closed the report: the bike left the missing list and cannot be put back on it. The sightings \
                kept during the review are not shown to you. If you think this is wrong, say so to the operator. \(reach)
                """
        }
    }

    static func status(_ event: OwnerNotification.Event) -> String {
        switch event {
        case .reviewStarted: "sealed"
        case .reviewReleased: "released"
        default: "closed"
        }
    }

    /// Queues the owner's push and mail and appends the stream's event, inside the caller's transaction.
    static func tell(_ event: OwnerNotification.Event, bikeID: String, bikeName: String, owner: String, operatorContact: String?,
                     notifications: NotificationDispatcher, now: Int64, in db: any SQLDatabase) async throws {
        let words = text(event, operatorContact: operatorContact)
        let time = Timestamp.format(milliseconds: now)
        try await notifications.queue(OwnerNotification(event: event, bikeId: bikeID, bikeName: bikeName, ownerId: owner, place: nil,
                                                        latitude: nil, longitude: nil, time: time, zone: nil, message: words,
                                                        contact: operatorContact), now: now, in: db)
        try await EventStore.append(ReviewEvent(bikeId: bikeID, bikeName: bikeName, status: status(event), message: words,
                                                operatorContact: operatorContact, time: time),
                                    kind: "review", account: owner, now: now, in: db)
    }
}
