#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sightings on their way into the outbox. When the outbox cannot take one (its disk full, its file
/// unwritable) the sighting is held in memory, in order, and written by a later `commit` once the
/// outbox takes writes again, so a full state directory pauses durability instead of stopping the
/// sentinel. Bounded: past `limit` held, the oldest `present` (else the oldest) is dropped, as the
/// outbox itself trims when full.
struct PendingSightings {
    /// What a `commit` changed, for the log: only transitions are worth a line.
    enum Change: Equatable {
        case none
        /// The outbox refused a write; sightings are held from now on.
        case startedHolding(error: String)
        /// The outbox took every held sighting again.
        case resumed(written: Int)
    }

    let limit: Int
    private(set) var held: [Sighting] = []
    /// Held sightings dropped to stay within `limit`, since the start.
    private(set) var dropped = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Writes the held sightings, then `new`, in order, through `append`; stops at the first refusal
    /// and holds the rest.
    mutating func commit(_ new: [Sighting], append: (Sighting) async throws -> Void) async -> Change {
        let wasHolding = !held.isEmpty
        held.append(contentsOf: new)
        var written = 0
        while let next = held.first {
            do {
                try await append(next)
            } catch {
                trim()
                return wasHolding ? .none : .startedHolding(error: String(describing: error))
            }
            held.removeFirst()
            written += 1
        }
        return wasHolding ? .resumed(written: written) : .none
    }

    private mutating func trim() {
        while held.count > limit {
            let victim = held.firstIndex { $0.event == .present } ?? held.startIndex
            held.remove(at: victim)
            dropped += 1
        }
    }
}
