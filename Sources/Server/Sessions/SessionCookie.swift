import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The dashboard's session cookies and their cross-site request forgery check.
///
/// `bb_session` carries the session token: HttpOnly (page scripts cannot read it, so an injected
/// script cannot steal it), SameSite=Strict, Secure over https. `bb_csrf` is readable by the page,
/// which echoes it in `X-CSRF-Token` on every state-changing request: a signed double submit, the
/// value being an HMAC of the session token, so another site can neither read nor forge it.
enum SessionCookie {
    static let session = "bb_session"
    static let csrf = "bb_csrf"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// The CSRF token that belongs to a session token.
    static func csrfToken(for sessionToken: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("bikebeacon csrf".utf8), using: SymmetricKey(data: Data(sessionToken.utf8)))
        return Base64URL.encode(Data(mac))
    }

    /// GET and HEAD only read; everything else needs the CSRF token and, when the browser names one, our own origin.
    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// Why a cookie-authenticated request that changes something is refused, or nil when it may proceed.
    static func forgeryRefusal(_ request: Request, sessionToken: String) -> String? {
        if let origin = request.headers[.origin], origin != "null" {
            let host = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map { $0.lowercased() }
            // Behind a reverse proxy the browser's host may arrive as X-Forwarded-Host instead of Host.
            let ours = [request.head.authority, request.headers[HTTPField.Name("X-Forwarded-Host")!]].compactMap { $0?.lowercased() }
            guard let host, ours.contains(host) else {
                return "this request came from another site (\(origin)); the dashboard only accepts changes from its own pages"
            }
        }
        guard let sent = request.headers[csrfHeader], equalInConstantTime(sent, csrfToken(for: sessionToken)) else {
            return "the X-CSRF-Token header is missing or wrong; reload the dashboard and try again"
        }
        return nil
    }

    /// Compares without stopping at the first difference, so timing does not reveal how much of a guess was right.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices {
            difference |= x[index] ^ y[index]
        }
        return difference == 0
    }

    /// Secure only when the browser reached us over https (directly or through a TLS proxy that says so).
    static func isSecure(_ request: Request) -> Bool {
        request.head.scheme == "https" || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
            || request.headers[.origin]?.lowercased().hasPrefix("https://") == true
    }

    static func set(on response: inout Response, token: String, maxAgeSeconds: Int, secure: Bool) {
        response.setCookie(Cookie(name: session, value: token, maxAge: maxAgeSeconds, path: "/", secure: secure, httpOnly: true, sameSite: .strict))
        response.setCookie(Cookie(name: csrf, value: csrfToken(for: token), maxAge: maxAgeSeconds, path: "/", secure: secure,
                                  httpOnly: false, sameSite: .strict))
    }

    static func clear(on response: inout Response, secure: Bool) {
        for (name, httpOnly) in [(session, true), (csrf, false)] {
            response.setCookie(Cookie(name: name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: httpOnly, sameSite: .strict))
        }
    }
}
