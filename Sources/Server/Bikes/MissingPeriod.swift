/// How long a bike stays on the missing list unless its owner renews it (#35).
///
/// iBeacon IDs are broadcast in clear: anyone can register a tag they hid on a person, mark it
/// missing and have every sentinel report where it goes. A period that ends by itself means a tag
/// is never followed for good without its owner looking at it again; the reminder before it ends
/// means a real owner does not lose track of a stolen bike.
public struct MissingPeriod: Sendable, Equatable {
    public static let day: Int64 = 86_400_000

    /// `serve --missing-days`.
    public var length: Int64
    /// The owner is reminded this long before the end.
    public var reminderLead: Int64

    public init(days: Int = 30, reminderDays: Int = 3) {
        length = Int64(days) * Self.day
        reminderLead = Int64(min(reminderDays, max(days - 1, 0))) * Self.day
    }

    /// When a period begun (or renewed) at `now` ends.
    public func end(from now: Int64) -> Int64 { now + length }

    /// When the owner of a bike whose period ends at `end` is reminded.
    public func reminder(before end: Int64) -> Int64 { end - reminderLead }
}
