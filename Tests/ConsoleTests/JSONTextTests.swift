import Console
import Foundation
import Testing

/// `decode` writes error messages (which quote the operator's input) into hand-written JSON
/// lines: whatever was typed, the line must still parse to the same text.
struct JSONTextTests {
    @Test(arguments: ["plain", "quote \" and backslash \\", "tab\tnew\nline\rreturn", "bell \u{07} and unit separator \u{1F}", "ümlaut → 🚲", ""])
    func escapedTextParsesBackToItself(_ text: String) throws {
        let line = #"{"error": "\#(JSONText.escape(text))"}"#
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["error"] == text)
    }

    @Test func controlCharactersBecomeFourHexDigits() {
        #expect(JSONText.escape("\u{01}") == "\\u0001")
        #expect(JSONText.escape("\u{1B}") == "\\u001b")
    }
}
