import BikebeaconAPI
import Hummingbird

/// The plain pages a share link shows when it no longer opens: no script, nothing about the bike.
enum SharePages {
    static func gone(_ share: Share, headers: HTTPFields) -> Response {
        if share.status == "paused" {
            return page(.gone, title: "This share link is paused",
                        text: "The bike's page is not shown for now. Ask the bike's owner if you need it.", headers: headers)
        }
        let what = share.status == "revoked" ? "The bike's owner has revoked this link." : "This link expired at \(share.expiresAt)."
        return page(.gone, title: "This share link no longer works",
                    text: "\(what) Ask the owner for a new link if you still need it.", headers: headers)
    }

    static func notFound(headers: HTTPFields) -> Response {
        page(.notFound, title: "No such share link",
             text: "Check that the whole link was copied; otherwise ask the bike's owner for a new one.", headers: headers)
    }

    static func page(_ status: HTTPResponse.Status, title: String, text: String, headers: HTTPFields) -> Response {
        var headers = headers
        headers[.contentType] = "text/html; charset=utf-8"
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.escape(title))</title><link rel="stylesheet" href="/dashboard/style.css"></head>
            <body><main><h1>\(HTML.escape(title))</h1><p>\(HTML.escape(text))</p></main></body></html>
            """
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
