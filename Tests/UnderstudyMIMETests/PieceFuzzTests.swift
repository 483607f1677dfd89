import Testing
@testable import UnderstudyMIME

@Suite struct PieceFuzzTests {
    /// Deterministic pseudo-random strings over the characters each grammar cares about.
    static func strings(_ alphabet: String, count: Int, length: Int) -> [String] {
        let chars = Array(alphabet.unicodeScalars)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        return (0..<count).map { _ in
            var s = String.UnicodeScalarView()
            for _ in 0..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                s.append(chars[Int(state >> 33) % chars.count])
            }
            return String(s)
        }
    }

    @Test func piecesNeverCrash() {
        for s in Self.strings("=?QqBb_ aZ09=?\"()<>,:;@[]\\\r\n\té€", count: 500, length: 120) {
            _ = RFC2047.decode(s)
            _ = MIMEAddress.parseList(s)
            _ = MIMEContentType(parsing: s)
            _ = MIMEParameters.parse(s + "; a*0*=x'y'%zz; a*1=\"q")
            _ = MIMEDate(raw: s)
        }
        for s in Self.strings("<>/!-&#x;ab \"'=pbrscriptstylehead\n", count: 500, length: 200) {
            _ = HTMLText.plainText(fromHTML: s)
        }
        for s in Self.strings("=0A\r\n \tzZ+/", count: 300, length: 100) {
            _ = QuotedPrintable.decode(Array(s.utf8))
            _ = MIMEBase64.decode(Array(s.utf8))
        }
        for label in ["shift_jis", "iso-2022-jp", "utf-16", "gb18030", "big5", "euc-kr", "utf-7", "x-bogus"] {
            for s in Self.strings("\u{1B}$B()@AB\u{80}\u{FF}\u{A4}\u{8E}+-", count: 50, length: 64) {
                let bytes = s.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
                let decoded = Charset.decode(bytes, label: label)
                #expect(decoded.unicodeScalars.count <= bytes.count + 1)
            }
        }
    }
}
