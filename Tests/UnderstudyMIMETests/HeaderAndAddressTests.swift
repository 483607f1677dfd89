import Testing
@testable import UnderstudyMIME

@Suite struct HeaderAndAddressTests {
    @Test func foldingOrderDuplicatesAndCase() {
        let m = MIMEMessage(parsing: Array("""
            From mbox-line Wed Dec  2 16:18:45 2026
            Received: from a
            \tby b
            received: from c
            SUBJECT: hello
              world
            X-Empty:

            """.utf8))
        #expect(m.headers.map(\.name) == ["Received", "received", "SUBJECT", "X-Empty"])
        #expect(m.headers.all(named: "RECEIVED").map(\.value) == ["from a\tby b", "from c"])
        #expect(m.subject == "hello  world")
        #expect(m.headers["x-empty"] == "")
        #expect(m.text == "")
    }

    @Test func rawAndDecodedValues() {
        let m = MIMEMessage(parsing: Array("Subject: =?utf-8?q?caf=C3=A9?= ok\n\n".utf8))
        let h = m.headers.first(named: "subject")!
        #expect(h.rawValue == "=?utf-8?q?caf=C3=A9?= ok")
        #expect(h.value == "café ok")
    }

    @Test(arguments: [
        ("John Doe <john@example.com>", [MIMEAddress(name: "John Doe", address: "john@example.com")]),
        ("\"Doe, John\" <john@example.com>, jane@example.com",
         [MIMEAddress(name: "Doe, John", address: "john@example.com"), MIMEAddress(name: nil, address: "jane@example.com")]),
        ("john@example.com (John Doe)", [MIMEAddress(name: "John Doe", address: "john@example.com")]),
        ("Team: a@x.org, B <b@x.org>;, c@x.org",
         [MIMEAddress(name: nil, address: "a@x.org"), MIMEAddress(name: "B", address: "b@x.org"),
          MIMEAddress(name: nil, address: "c@x.org")]),
        ("undisclosed-recipients:;", []),
        ("=?utf-8?B?5byg5LiJ?= <zhang@example.cn>", [MIMEAddress(name: "张三", address: "zhang@example.cn")]),
        ("\"=?utf-8?Q?J=C3=B6rg?=\" <j@example.de>", [MIMEAddress(name: "Jörg", address: "j@example.de")]),
        ("<@relay.example:user@example.com>", [MIMEAddress(name: nil, address: "user@example.com")]),
        ("\"odd \\\"quoted\\\" name\" <\"first last\"@example.com>",
         [MIMEAddress(name: "odd \"quoted\" name", address: "\"first last\"@example.com")]),
        ("Pete(A nice \\) chap) <pete(his account)@silly.test(his host)>",
         [MIMEAddress(name: "Pete", address: "pete@silly.test")]),
        ("user@[192.0.2.1]", [MIMEAddress(name: nil, address: "user@[192.0.2.1]")]),
        (",,, ,", []),
    ])
    func addressLists(raw: String, expected: [MIMEAddress]) {
        #expect(MIMEAddress.parseList(raw) == expected)
    }

    @Test(arguments: [
        ("Wed, 2 Dec 2026 16:18:45 +0000", Int64(1_796_228_325)),
        ("2 Dec 2026 16:18:45 GMT", 1_796_228_325),
        ("Wed, 02 Dec 2026 11:18:45 EST", 1_796_228_325),
        ("Wed, 2 Dec 26 17:18:45 +0100 (CET)", 1_796_228_325),
        ("Wed, 2 Dec 2026 16:18 +0000", 1_796_228_280),
        ("Thu, 1 Jan 1970 00:00:00 -0000", 0),
        ("Sun, 21 Mar 1993 23:56:48 -0800 (PST)", 732_787_008),
        ("WED,02 DEC 2026 16:18:45 UT", 1_796_228_325),
        ("Wed Dec  2 16:18:45 2026", 1_796_228_325),
        ("Wed, 2 Dec 2026 (a comment) 16:18:45\r\n +0000", 1_796_228_325),
        ("Wed, 2 December 2026 08:18:45 PST", 1_796_228_325),
    ])
    func dates(raw: String, epoch: Int64) {
        #expect(MIMEDate(raw: raw).secondsSince1970 == epoch)
    }

    @Test(arguments: ["", "yesterday", "32 Dec 2026 10:00:00 +0000", "2 Dec 2026 25:00:00 +0000", "2 Foo 2026 10:00 +0000",
                      "2 Dec 2026 10::00 +0000", "2 Dec 2026 10:00:00:00 +0000", "2 Dec 1899 10:00 +0000",
                      String(repeating: "2 Dec 2026 ", count: 30)])
    func unparseableDates(raw: String) {
        let d = MIMEDate(raw: raw)
        #expect(d.raw == raw)
        #expect(d.secondsSince1970 == nil)
    }

    @Test func newlinesAreNormalizedToLF() {
        #expect(MIMEPart.normalizeNewlines("a\r\nb\rc\nd\r\r\ne\r") == "a\nb\nc\nd\n\ne\n")
        #expect(MIMEPart.normalizeNewlines("\r\n\r\n") == "\n\n")
        #expect(MIMEPart.normalizeNewlines("no carriage returns\n") == "no carriage returns\n")
        #expect(MIMEPart.normalizeNewlines("") == "")
        let long = String(repeating: "验证码 line\r\n", count: 500)
        #expect(MIMEPart.normalizeNewlines(long) == String(repeating: "验证码 line\n", count: 500))
    }

    @Test func htmlToText() {
        #expect(HTMLText.plainText(fromHTML: "<p>a</p><p>b</p>") == "a\n\nb")
        #expect(HTMLText.plainText(fromHTML: "x<br>y<br><br><br>z") == "x\ny\n\nz")
        #expect(HTMLText.plainText(fromHTML: "<!-- hidden --><div>  lots   of\n\n space </div>") == "lots of space")
        #expect(HTMLText.plainText(fromHTML: "<table><tr><td>A</td><td>B</td></tr><tr><td>C</td></tr></table>") == "A B\nC")
        #expect(HTMLText.plainText(fromHTML: "<p>x</p><pre>  keep\n   this</pre>") == "x\n\n  keep\n   this")
        #expect(HTMLText.plainText(fromHTML: "&lt;b&gt; &amp;amp; &#65;&#x42; &euro;&bogus; & alone") == "<b> &amp; AB €&bogus; & alone")
        #expect(HTMLText.plainText(fromHTML: "<a title=\"x>y\" href=\"u\">link</a> a < b") == "link a < b")
        #expect(HTMLText.plainText(fromHTML: "<STYLE>.a{}</STYLE><Script>alert(1)</SCRIPT>ok") == "ok")
        #expect(HTMLText.plainText(fromHTML: "<head><meta charset=utf-8><body>no head close") == "no head close")
        #expect(HTMLText.plainText(fromHTML: "<script>never closed") == "")
        let hostile = String(repeating: "<head><a \"", count: 20_000)
        _ = HTMLText.plainText(fromHTML: hostile)
    }
}
