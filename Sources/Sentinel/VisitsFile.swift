import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The open visits of missing bikes on disk (`visits.json` in the state directory), so a restart
/// (a crash, a power cut, an upgrade) does not report a bike that never left as arrived again.
/// Small and rarely written: replaced atomically when a visit opens, ends or is reported, and at
/// most every `refresh` seconds while only its last-heard times move; nothing while no missing bike
/// is in range.
struct VisitsFile: Sendable {
    struct Content: Codable, Equatable {
        var visits: [SightingTracker.OpenVisit]
    }

    enum Loaded: Equatable {
        case absent
        case loaded([SightingTracker.OpenVisit])
        /// Unreadable or not a visits file: started without it.
        case ignored(reason: String)
    }

    let path: String
    /// Seconds between saves while only last-heard times change.
    var refresh = 30.0

    func load() -> Loaded {
        guard FileManager.default.fileExists(atPath: path) else { return .absent }
        do {
            return .loaded(try JSONDecoder().decode(Content.self, from: Data(contentsOf: URL(fileURLWithPath: path))).visits)
        } catch is DecodingError {
            return .ignored(reason: "not a visits file")
        } catch {
            return .ignored(reason: IOErrorText.describe(error))
        }
    }

    func save(_ visits: [SightingTracker.OpenVisit]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try AtomicFile.write(try encoder.encode(Content(visits: visits)), to: path)
    }

    /// Whether `visits` must be written now, given what was written last and when: at once when a
    /// visit opened, ended or was reported; after `refresh` seconds when only times moved. Both in
    /// core time (the wall-clock stamp moves by itself).
    func isDue(_ visits: [SightingTracker.OpenVisit], saved: [SightingTracker.OpenVisit], savedAt: Double, now: Double) -> Bool {
        func shape(_ v: [SightingTracker.OpenVisit]) -> [String] { v.map { "\($0.beacon) \($0.firstSeen) \($0.lastReport)" } }
        if shape(visits) != shape(saved) { return true }
        return visits != saved && now - savedAt >= refresh
    }
}
