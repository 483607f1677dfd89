import Testing
@testable import UnderstudyExtract

@Suite struct TextDocumentTests {
    /// The reference: the same text fed scalar by scalar through `append`, as the HTML path does.
    static func appended(_ text: String) -> TextDocument {
        var document = TextDocument()
        for scalar in text.unicodeScalars { document.append(scalar, flags: 0) }
        document.finish()
        return document
    }

    static let samples: [String] = [
        "",
        "   \n\t ",
        "Your code is 583920",
        "  Leading and trailing  \r\n\r\n  spaces\t\tand\u{0B}tabs  ",
        "Line one\nLine two\n\n\nLine five\r\nCRLF line",
        "Votre code : 482 913 — Ünïcödé ÀÉÎÕÜ ÆØÞ",
        "验证码：６４１０２８\u{3000}请在１０分钟内使用",
        "認証コードは　ＡＢＣ１２３　です\u{2028}次の行",
        "Ваш код: ЁЖИК 1234 Привет",
        "Emoji 🎉 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 outside the BMP 👍🏽",
        "soft\u{AD}hyphen zero\u{200B}width\u{FEFF}bom \u{7F}del \u{01}ctl",
        "nbsp\u{A0}\u{A0}thin\u{2009}space\u{202F}narrow\u{3000}ideographic",
        "\u{2029}para sep first",
        "ＦＵＬＬＷＩＤＴＨ ｌｅｔｔｅｒｓ ０１２３",
    ]

    @Test(arguments: samples)
    func plainTextMatchesAppendingScalarByScalar(_ text: String) {
        let fast = TextDocument(plainText: text)
        let reference = Self.appended(text)
        #expect(fast.scalars == reference.scalars)
        #expect(fast.folded == reference.folded)
        #expect(fast.flags == reference.flags)
        #expect(fast.folded.count == fast.scalars.count)
    }

    @Test func bothPathsStopAtTheSameCap() {
        // Every way of arriving at the cap: with and without a separator in front of the last scalar.
        for filler in ["word ", "ab\n", "x", "验证 ", "🎉\t"] {
            let text = String(repeating: filler, count: TextDocument.maximumScalars / filler.unicodeScalars.count + 7)
            let fast = TextDocument(plainText: text)
            let reference = Self.appended(text)
            #expect(fast.count <= TextDocument.maximumScalars)
            #expect(fast.count >= TextDocument.maximumScalars - 1)
            #expect(fast.scalars == reference.scalars, "filler \(filler.debugDescription)")
        }
    }

    @Test func randomTextMatches() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", "Z", "7", " ", "\n", "\t", "\r", "\u{0B}", "\u{1}", "\u{A0}", "\u{AD}",
                                          "é", "Ё", "Ж", "验", "\u{3000}", "\u{2028}", "\u{200B}", "５", "Ｑ", "🎉", ":"]
        for _ in 0..<300 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...80, using: &generator) {
                text.append(alphabet.randomElement(using: &generator)!)
            }
            let string = String(text)
            #expect(TextDocument(plainText: string).scalars == Self.appended(string).scalars, "\(string.debugDescription)")
            #expect(TextDocument(plainText: string).folded == Self.appended(string).folded)
        }
    }
}
