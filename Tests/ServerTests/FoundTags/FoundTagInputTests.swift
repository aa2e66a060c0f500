import Testing
@testable import Server

/// What a stranger may write through "Found a tag?": plain text that reads the same wherever it is shown.
@Suite struct FoundTagInputTests {
    @Test(arguments: ["<b>", "a <script>x", "</p>", "<!-- x -->", "<?xml", "<img src=x>", "x <Div"])
    func markupIsRefused(_ text: String) {
        #expect(FoundTagInput.looksLikeMarkup(text))
        #expect(throws: APIError.self) { try FoundTagInput.text(text, field: "message", limit: 500, required: true) }
    }

    @Test(arguments: ["Found at the station", "a < b", "<3", "price <= 5", "2 < 3 > 1", "rack <", "Tom & Jerry's"])
    func plainTextPasses(_ text: String) throws {
        #expect(!FoundTagInput.looksLikeMarkup(text))
        #expect(try FoundTagInput.text("  \(text)\n", field: "message", limit: 500, required: true) == text)
    }

    @Test func controlCharacters() throws {
        #expect(try FoundTagInput.text("line one\nline two", field: "message", limit: 500, required: true) == "line one\nline two")
        for text in ["bell\u{7}", "escape \u{1B}[31m red", "nul\u{0}"] {
            #expect(throws: APIError.self) { try FoundTagInput.text(text, field: "message", limit: 500, required: true) }
        }
        #expect(throws: APIError.self) { try FoundTagInput.text("a\nb", field: "contact", limit: 200, required: false, singleLine: true) }
        #expect(try FoundTagInput.text(nil, field: "contact", limit: 200, required: false) == "")
        #expect(throws: APIError.self) { try FoundTagInput.text(nil, field: "message", limit: 500, required: true) }
    }
}
