import Beacon
import Foundation

/// The checks on what a stranger sends to "Found a tag?": the tag's ID in any form `BeaconPaste` reads, and short
/// plain text. Each refusal is a 400 naming the field. Pure.
enum FoundTagInput {
    static let maxMessageLength = 500
    static let maxContactLength = 200

    /// The tag's ID, or a 400 saying what is wrong with `tag`.
    static func tag(_ text: String) throws(APIError) -> BeaconID {
        guard text.count <= BeaconParseRoutes.maxLength else {
            throw .invalid("'tag' is longer than \(BeaconParseRoutes.maxLength) characters: paste only the tag's ID")
        }
        do throws(BeaconPaste.Failure) {
            return try BeaconPaste.parse(text)
        } catch {
            throw .invalid("'tag': \(error.description)")
        }
    }

    /// Plain text of at most `limit` characters, trimmed: no control characters but line breaks and tabs (none at all
    /// with `singleLine`), and nothing that reads as an HTML tag (`<b`, `</`, `<!`, `<?`), since it is shown to others.
    static func text(_ value: String?, field: String, limit: Int, required: Bool, singleLine: Bool = false) throws(APIError) -> String {
        let text = (value ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if required, text.isEmpty { throw .invalid("'\(field)' is empty: say where the bike is") }
        guard text.count <= limit else { throw .invalid("'\(field)' is longer than \(limit) characters") }
        let allowed: Set<Unicode.Scalar> = singleLine ? ["\t"] : ["\n", "\r", "\t"]
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
            throw .invalid("'\(field)' holds a control character\(singleLine ? " or line break" : ""); send plain text")
        }
        if looksLikeMarkup(text) { throw .invalid("'\(field)' must be plain text, without HTML tags") }
        return text
    }

    /// Whether `<` is followed by a letter, `/`, `!` or `?`: the start of a tag or comment. "a < b" and "<3" stay text.
    static func looksLikeMarkup(_ text: String) -> Bool {
        let characters = Array(text)
        for (index, character) in characters.enumerated() where character == "<" && index + 1 < characters.count {
            let next = characters[index + 1]
            if next.isLetter || next == "/" || next == "!" || next == "?" { return true }
        }
        return false
    }
}
