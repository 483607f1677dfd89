import Testing
@testable import UnderstudyMIME

/// One fixture message per charset (see Fixtures/make-charset-fixtures.py): the sample text is in the
/// Subject (B words split mid-character), the From display name (a Q word) and the 8bit/base64 body.
@Suite struct CharsetMessageTests {
    static let samples: [(label: String, text: String)] = [
        ("utf-8", "Grüße, 你好, привет 👋"),
        ("us-ascii", "Hello plain world"),
        ("iso-8859-1", "Grüße aus Köln, café"),
        ("latin1", "Ça marche très bien"),
        ("iso-8859-2", "Zażółć gęślą jaźń"),
        ("iso-8859-5", "Привет мир"),
        ("iso-8859-7", "Καλημέρα κόσμε"),
        ("iso-8859-15", "Prix: 100 € œuvre"),
        ("windows-1250", "Příliš žluťoučký kůň"),
        ("windows-1251", "Съешь же ещё этих мягких"),
        ("cp1252", "“Smart quotes” – and € sign"),
        ("windows-1253", "Καλημέρα"),
        ("windows-1254", "Şişli İstanbul ğ"),
        ("windows-1255", "שלום עולם"),
        ("windows-1256", "مرحبا بالعالم"),
        ("windows-1257", "Ąžuolas ėjo"),
        ("gb2312", "你好，世界 镕喆"),
        ("gbk", "中文邮件测试"),
        ("gb18030", "你好 𠀀 €"),
        ("big5", "臺灣繁體中文"),
        ("shift_jis", "こんにちは世界、カタカナ①"),
        ("x-sjis", "日本語"),
        ("euc-jp", "日本語のテキスト"),
        ("iso-2022-jp", "日本語のメール本文"),
        ("euc-kr", "안녕하세요 세계"),
        ("ks_c_5601-1987", "한국어 메일"),
        ("koi8-r", "Привет, мир"),
        ("utf-16", "Hello 世界"),
    ]

    @Test(arguments: samples)
    func subjectNameAndBody(label: String, text: String) throws {
        let m = MIMEMessage(parsing: try Fixture.bytes("charset-\(label).eml"))
        #expect(m.subject == text)
        #expect(m.from == [MIMEAddress(name: text, address: "sender@example.com")])
        #expect(m.text?.trimmingCharacters(in: "\n") == text)
        #expect(m.parts.first?.charset == label)
    }

    @Test(arguments: [
        ("utf8", "UTF-8"), ("UTF-8", "UTF-8"), ("latin1", "WINDOWS-1252"), ("ISO-8859-1", "WINDOWS-1252"),
        ("cp1252", "WINDOWS-1252"), ("x-sjis", "CP932"), ("Shift_JIS", "CP932"), ("ks_c_5601-1987", "CP949"),
        ("gb2312", "GB18030"), ("eucgb2312_cn", "GB18030"), ("GBK", "GB18030"), ("big5_tw", "BIG5-HKSCS"), ("big5", "BIG5-HKSCS"), ("iso-2022-jp", "ISO-2022-JP-2"),
        ("\"koi8-r\"", "KOI8-R"), ("windows-1251", "CP1251"), ("iso8859-2", "ISO-8859-2"), ("x-cp1250", "CP1250"),
        ("IBM437", "IBM437"),
    ])
    func labelAliases(label: String, canonical: String) {
        #expect(Charset.canonicalName(for: label) == canonical)
    }

    @Test func unknownLabelsAndInvalidBytesKeepText() {
        #expect(Charset.canonicalName(for: "x-no-such-charset") == nil)
        #expect(Charset.canonicalName(for: "utf-8//TRANSLIT") == nil)
        // Unknown label: UTF-8 where valid, Windows-1252 for the other bytes.
        #expect(Charset.decode(Array("naïve ".utf8) + [0x63, 0x61, 0x66, 0xE9, 0x20, 0x93, 0x71, 0x94], label: "x-unknown-thing")
            == "naïve café “q”")
        // Invalid UTF-8 in a UTF-8 label: same policy; nothing lost.
        #expect(Charset.decode([0x61, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x62], label: "utf-8") == "aÃ(í\u{A0}\u{20AC}b")
        // Invalid sequence in a multibyte charset: U+FFFD, ASCII around it intact.
        #expect(Charset.decode([0x61, 0x82, 0xA0, 0xFF, 0x62], label: "shift_jis") == "aあ\u{FFFD}b")
        // Truncated sequence at the end.
        #expect(Charset.decode([0x61, 0xE4], label: "gbk") == "a\u{FFFD}")
        #expect(Charset.decode([], label: "euc-kr") == "")
    }

    @Test func unknownCharsetMessageStillDecodes() {
        let m = MIMEMessage(parsing: [UInt8]("""
            Subject: =?x-klingon?Q?Qapla=E9?=
            Content-Type: text/plain; charset=x-klingon

            tlhIngan Hol
            """.utf8))
        #expect(m.subject == "Qaplaé")
        #expect(m.text == "tlhIngan Hol")
    }

    @Test func rawUTF8AndLatin1Headers() {
        var bytes = Array("Subject: Grüße 你好\nFrom: Jörg <j@example.de>\nX-Latin: ".utf8)
        bytes += [0x63, 0x61, 0x66, 0xE9]
        bytes += Array("\n\nbody\n".utf8)
        let m = MIMEMessage(parsing: bytes)
        #expect(m.subject == "Grüße 你好")
        #expect(m.from == [MIMEAddress(name: "Jörg", address: "j@example.de")])
        #expect(m.headers["x-latin"] == "café")
        #expect(m.text == "body\n")
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
