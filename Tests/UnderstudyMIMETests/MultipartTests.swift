import Testing
@testable import UnderstudyMIME

@Suite struct MultipartTests {
    @Test func rfc2046SimpleExample() throws {
        let m = MIMEMessage(parsing: try Fixture.bytes("rfc2046-simple.eml"))
        #expect(m.parts.map(\.partNumber) == ["1", "2"])
        #expect(m.parts.map(\.contentType) == ["text/plain", "text/plain"])
        #expect(m.parts[0].text == "This is implicitly typed plain US-ASCII text.\nIt does NOT end with a linebreak.")
        #expect(m.parts[1].text == "This is explicitly typed plain US-ASCII text.\nIt DOES end with a linebreak.\n")
        #expect(m.text?.contains("preamble") == false)
        #expect(m.text?.contains("epilogue") == false)
        #expect(m.text?.hasPrefix("This is implicitly") == true)
        #expect(m.date?.secondsSince1970 == 732_787_008)
        #expect(m.subject == "Sample message")
        #expect(!m.isTruncated)
    }

    @Test func rfc2049ComplexExample() throws {
        let m = MIMEMessage(parsing: try Fixture.bytes("rfc2049-complex.eml"))
        #expect(m.parts.map(\.partNumber) == ["1", "2", "3.1", "3.2", "4", "5"])
        #expect(m.parts.map(\.contentType) == ["text/plain", "text/plain", "audio/basic", "image/jpeg",
                                               "text/enriched", "message/rfc822"])
        #expect(m.parts[2].isAttachment)
        #expect(m.parts[5].isAttachment)
        #expect(m.date?.secondsSince1970 == 781_571_705)
        // The embedded message is kept whole and parses on its own.
        #expect(m.bytes(ofPart: "5") != nil)
        #expect(m.part("4")?.embeddedMessage() == nil)
        let inner = try #require(m.part("5")?.embeddedMessage())
        #expect(inner.subject == "(subject in US-ASCII)")
        #expect(inner.text?.contains("Additional text in ISO-8859-1 goes here") == true)
        #expect(m.text?.contains("Some text appears here") == true)
        #expect(m.text?.contains("explicit versus implicit") == true)
    }

    static let nested = """
        From: "Shop, Inc." <noreply@shop.example>
        To: undisclosed-recipients:;
        Subject: Your order
        Message-ID: <order-1@shop.example>
        Date: Wed, 2 Dec 2026 16:18:45 +0000
        MIME-Version: 1.0
        Content-Type: multipart/mixed; boundary="outer"

        --outer
        Content-Type: multipart/related; boundary="rel"; type="multipart/alternative"

        --rel
        Content-Type: multipart/alternative; boundary="alt"

        --alt
        Content-Type: text/plain; charset=utf-8
        Content-Transfer-Encoding: quoted-printable

        Your code is 482913. Gr=C3=BC=C3=9Fe, the sh=
        op.
        --alt
        Content-Type: text/html; charset=utf-8
        Content-Transfer-Encoding: quoted-printable

        <html><head><style>p{color:red}</style></head><body><p>Your code is <b>482913</b>.</p><img src=3D"cid:logo@shop"></body></html>
        --alt--
        --rel
        Content-Type: image/png
        Content-ID: <logo@shop>
        Content-Disposition: inline
        Content-Transfer-Encoding: base64

        iVBORw0KGgo=
        --rel--
        --outer
        Content-Type: application/pdf; name="invoice.pdf"
        Content-Disposition: attachment; filename="invoice.pdf"
        Content-Transfer-Encoding: base64

        JVBERi0xLjQK
        JUVPRgo=
        --outer--
        """

    @Test func nestedWithAttachmentAndCidImage() {
        let m = MIMEMessage(parsing: Array(Self.nested.utf8))
        #expect(m.parts.map(\.partNumber) == ["1.1.1", "1.1.2", "1.2", "2"])
        #expect(m.text == "Your code is 482913. Grüße, the shop.")
        #expect(m.html?.contains("<b>482913</b>") == true)
        #expect(m.textFromHTML == nil)
        #expect(m.from == [MIMEAddress(name: "Shop, Inc.", address: "noreply@shop.example")])
        #expect(m.to.isEmpty)
        #expect(m.messageID == "order-1@shop.example")
        #expect(m.date?.secondsSince1970 == 1_796_228_325)
        let logo = m.part("1.2")!
        #expect(logo.contentID == "logo@shop")
        #expect(logo.disposition == .inline)
        #expect(!logo.isAttachment)
        #expect(logo.bytes == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(m.inlineParts.map(\.partNumber) == ["1.2"])
        let pdf = m.part("2")!
        #expect(pdf.isAttachment)
        #expect(pdf.filename == "invoice.pdf")
        #expect(pdf.size == 14)
        #expect(m.bytes(ofPart: "2") == Array("%PDF-1.4\n%EOF\n".utf8))
        #expect(m.attachments.map(\.partNumber) == ["2"])
    }

    @Test func htmlOnlyMessageGetsTextFromHTML() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: text/html; charset=utf-8

            <html><head><title>T</title><script>var x = "<p>no</p>";</script></head>
            <body><h1>Welcome&nbsp;back</h1><p>Click <a href="https://x.example/v?t=1&amp;u=2">verify &amp; continue</a>.</p>
            <ul><li>one</li><li>two &#x1F600; &#169;</li></ul><p>caf\u{E9}</p></body></html>
            """.utf8))
        #expect(m.text == nil)
        #expect(m.textFromHTML == "Welcome back\n\nClick verify & continue.\n\none\ntwo 😀 ©\n\ncafé")
        #expect(m.bestText == m.textFromHTML)
    }

    @Test func crlfAndLFGiveTheSameResult() throws {
        for name in ["rfc2046-simple.eml", "rfc2049-complex.eml", "rfc2047-section8-d.eml"] {
            let bytes = lf(try Fixture.bytes(name))
            let a = MIMEMessage(parsing: bytes)
            let b = MIMEMessage(parsing: crlf(bytes))
            #expect(a.headers == b.headers)
            #expect(a.text == b.text)
            #expect(a.html == b.html)
            #expect(a.from == b.from && a.to == b.to && a.cc == b.cc)
            #expect(a.parts.map(\.partNumber) == b.parts.map(\.partNumber))
            #expect(a.parts.map(\.contentType) == b.parts.map(\.contentType))
            #expect(a.parts.map(\.text) == b.parts.map(\.text))
        }
        let nested = Array(Self.nested.utf8)
        let a = MIMEMessage(parsing: nested)
        let b = MIMEMessage(parsing: crlf(nested))
        #expect(a.text == b.text && a.html == b.html && a.headers == b.headers)
        #expect(a.parts.filter { $0.transferEncoding == "base64" }.map(\.bytes)
            == b.parts.filter { $0.transferEncoding == "base64" }.map(\.bytes))
    }

    @Test func digestChildrenDefaultToMessage() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: multipart/digest; boundary=d

            --d

            Subject: first

            one
            --d--
            """.utf8))
        #expect(m.parts.map(\.contentType) == ["message/rfc822"])
        #expect(MIMEMessage(parsing: m.parts[0].bytes).subject == "first")
    }

    @Test func transportPaddingAndPrefixBoundaries() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: multipart/mixed; boundary="b"

            --b \t
            Content-Type: multipart/alternative; boundary="b-1"

            --b-1
            Content-Type: text/plain

            inner
            --b-1--
            --b--  
            """.utf8))
        #expect(m.parts.map(\.partNumber) == ["1.1"])
        #expect(m.text == "inner")
    }
}
