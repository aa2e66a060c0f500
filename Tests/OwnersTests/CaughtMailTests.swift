import LocalServer
import Testing

/// The demo's mail catcher reads back what bikebeacon-server's MIME writes: an encoded-word subject,
/// a multipart message with quoted-printable parts (soft line breaks, "=3D", "=20" before the signature).
struct CaughtMailTests {
    static let message = """
        From: bikebeacon demo <demo@example.org>
        To: operator@example.org
        Subject: =?UTF-8?B?U2VudGluZWwgQ2Fmw6kgUm9zYQ==?=
         =?UTF-8?B?IGhhcyBnb25lIHNpbGVudA==?=
        MIME-Version: 1.0
        Content-Type: multipart/alternative; boundary="=_bikebeacon_42"

        --=_bikebeacon_42
        Content-Type: text/plain; charset=utf-8
        Content-Transfer-Encoding: quoted-printable

        Sentinel Caf=C3=A9 Rosa has gone silent.

        Why: no heartbeat for a very long time, so long that this line is folded by=
         the encoder; a =3D sign
        --=20
        You get this as the operator.
        --=_bikebeacon_42
        Content-Type: text/html; charset=utf-8
        Content-Transfer-Encoding: quoted-printable

        <p>not the text</p>
        --=_bikebeacon_42--
        """

    @Test func subjectAndTextAreDecoded() {
        let mail = CaughtMail(recipients: ["operator@example.org"], message: Self.message)
        #expect(mail.subject == "Sentinel Café Rosa has gone silent")
        #expect(mail.text == """
            Sentinel Café Rosa has gone silent.

            Why: no heartbeat for a very long time, so long that this line is folded by the encoder; a = sign
            --\u{20}
            You get this as the operator.
            """)
    }

    @Test func aSinglePartMessageIsItsBody() {
        let mail = CaughtMail(recipients: [], message: "Subject: Plain\nContent-Type: text/plain; charset=utf-8\n\nHello=\n world\n")
        #expect(mail.subject == "Plain")
        #expect(mail.text == "Hello world")
    }
}
