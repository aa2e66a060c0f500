import Foundation
import BikebeaconAPI

/// A tag put on a bike less than this long ago is marked missing only with a police report's reference (#35).
///
/// iBeacon IDs are broadcast in clear: whoever hid a tag on a person can register it and mark it
/// missing. The hold is measured from when that tag was put on this bike (`bikes.beacon_since_ms`),
/// never from the account's or the bike's age, so re-registering a tag, moving it to another bike or
/// swapping it onto an old bike all start it again; editing anything else does not. Pure.
public struct NewTagHold: Sendable, Equatable {
    public static let hour: Int64 = 3_600_000
    /// The hold in milliseconds; 0 turns it off (`serve --new-tag-hold 0`).
    public var length: Int64

    public init(hours: Double = 24) {
        length = Int64((hours * Double(Self.hour)).rounded())
    }

    /// When the hold on a tag put on at `tagSince` ends; nil when it does not hold at `now`.
    public func end(tagSince: Int64, now: Int64) -> Int64? {
        guard length > 0, now < tagSince + length else { return nil }
        return tagSince + length
    }

    /// The refusal of a missing report without a reference while the hold lasts.
    func refusal(tagSince: Int64, until end: Int64) -> APIError {
        APIError(.conflict, "police_reference_required", """
            this tag was put on the bike less than \(hours) h ago (at \(Timestamp.format(milliseconds: tagSince))): \
            to mark the bike missing now, give the reference of your police report ('policeReference'; \
            the network's operator sees it), or mark it missing after \(Timestamp.format(milliseconds: end))
            """)
    }

    /// The refusal of a new tag on a bike that is on the missing list: it would be followed at once.
    func tagChangeRefusal() -> APIError {
        APIError(.conflict, "missing_bike_tag_change", """
            this bike is missing, and a new tag would be followed at once: mark it recovered, change its tag, \
            then mark it missing again (with a police report's reference if the tag is less than \(hours) h on the bike)
            """)
    }

    private var hours: String {
        length % Self.hour == 0 ? String(length / Self.hour) : String(Double(length) / Double(Self.hour))
    }

    /// The longest reference taken; a police report number is far shorter.
    static let maxReferenceLength = 100

    /// The shortest reference taken: a police report's number has a few characters, one a digit at least.
    static let minReferenceLength = 4

    /// The reference as stored: trimmed, nil when absent or blank. Refuses control and bidi characters (they would
    /// garble the operator's terminal and CSV), overlong text, and what is no report's number (`x`, `none`, `-`):
    /// fewer than 4 characters or no digit (#43).
    static func reference(_ text: String?) throws(APIError) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        guard trimmed.count <= maxReferenceLength else {
            throw .invalid("'policeReference' is longer than \(maxReferenceLength) characters")
        }
        guard TerminalText.firstUnsafe(in: trimmed) == nil else {
            throw .invalid("'policeReference' holds a control character (a line break or tab); give the reference on one line")
        }
        guard trimmed.count >= minReferenceLength, trimmed.unicodeScalars.contains(where: { $0.properties.numericType == .decimal }) else {
            throw .invalid("'policeReference' does not look like a police report's reference: give the number on the report "
                + "(at least \(minReferenceLength) characters, with a digit)")
        }
        return trimmed
    }
}
