import Beacon
import Crypto
import Foundation
import Testing
@testable import Server

/// What a sentinel's poll is read by, each written to do no more work than it must (#36): the bearer token, its
/// digest and the list's entity tags, held to what the plainer forms they replaced gave on the same input.
@Suite struct PollRequestTests {
    @Test(arguments: [
        "Bearer bbs_abc", "bearer bbs_abc", "BEARER bbs_abc", "BeArEr  bbs_abc ", "Bearer", "Bearer ", "Bearer\tbbs_abc",
        "Basic dXNlcg==", "Bearerx bbs_abc", "Bearer bbs_abc def", "", " Bearer bbs_abc", "Béarer bbs_abc", "bearer_ x",
    ])
    func theBearerTokenIsReadAsTheSplitHeaderWasRead(header: String) {
        let parts = header.split(separator: " ", maxSplits: 1)
        let before = parts.count == 2 && parts[0].lowercased() == "bearer" ? parts[1].withoutOptionalWhitespace : nil
        let expected = before.flatMap { $0.isEmpty ? nil : String($0) }
        #expect(BearerAuthenticator.token(header).map(String.init) == expected)
    }

    @Test func theDigestIsTheSHA256InLowerCaseHex() {
        for token in ["bbs_abc", "", "bbo_" + String(repeating: "x", count: 43), "é☂"] {
            let expected = SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(Tokens.digest(token) == expected)
            #expect(Tokens.digest(token[...]) == expected)
        }
        #expect(Hex.string([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(Hex.string(UnsafeRawBufferPointer(start: nil, count: 0)) == "")
    }

    @Test func aTagMatchesAsTheTagsItWasComparedWithDid() {
        let headers = [
            "\"v7\"", "\"v7-gzip\"", "*", " \"v7\" ", "\"v6\", \"v7-gzip\"", "\"v6\",\"v8\"", "W/\"v7\"", "\"v07\"", "\"v7-gzipx\"",
            "\"v\"", "\"v-gzip\"", "\"v-7\"", "\"v+7\"", "\"V7\"", "v7", "\"v7", "\"v99999999999999999999\"", ",", "", " , * ",
            "\"v0\"", "\"v00\"", "\"v9223372036854775807\"", "\"v7-gzip-gzip\"", "\"x7\"", "\"v7\",",
        ]
        for version: Int64 in [0, 7, 9_223_372_036_854_775_807] {
            let plain = SentinelRoutes.etag(version: version), gzipped = SentinelRoutes.etag(version: version, gzip: true)
            for header in headers + [plain, gzipped, "\(plain), \(gzipped)"] {
                let before = header.split(separator: ",").contains { candidate in
                    let candidate = candidate.withoutOptionalWhitespace
                    return candidate == "*" || candidate == plain || candidate == gzipped
                }
                #expect(SentinelRoutes.matches(header, version: version) == before, "\(header) against version \(version)")
            }
        }
    }
}
