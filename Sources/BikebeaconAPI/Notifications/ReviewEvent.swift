#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `event: review` on the owner's stream and webhook (#43): a report of the bike's tag sealed its sightings
/// (`sealed`), or the operator released (`released`) or closed (`closed`) the case. It carries nothing of the
/// reporter, and no place.
public struct ReviewEvent: Codable, Sendable, Equatable {
    /// Always `review`.
    public var type: String
    public var bikeId: String
    public var bikeName: String
    /// `sealed`, `released` or `closed`.
    public var status: String
    /// What it means for the owner, in words.
    public var message: String
    /// How to reach the network's operator (an e-mail address); absent when the operator gave none.
    public var operatorContact: String?
    public var time: String

    public init(bikeId: String, bikeName: String, status: String, message: String, operatorContact: String?, time: String) {
        type = "review"
        self.bikeId = bikeId
        self.bikeName = bikeName
        self.status = status
        self.message = message
        self.operatorContact = operatorContact
        self.time = time
    }
}
