import Testing
@testable import UnderstudyMIME

/// Hostile and broken input: every case must finish (linearly) and degrade to something readable.
@Suite struct MalformedInputTests {
    @Test func unterminatedBoundaryEndsAtEndOfMessage() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: multipart/mixed; boundary=zz

            --zz
            Content-Type: text/plain

            first
            --zz
            Content-Type: text/plain

            second, and then the connection dropped
            """.utf8))
        #expect(m.parts.map(\.partNumber) == ["1", "2"])
        #expect(m.text == "first\nsecond, and then the connection dropped")
    }

    @Test func boundaryNeverFoundIsOnePart() {
        let m = MIMEMessage(parsing: Array("Content-Type: multipart/mixed; boundary=nope\n\njust text\n".utf8))
        #expect(m.parts.count == 1)
        #expect(m.parts[0].bytes == Array("just text\n".utf8))
        let noBoundary = MIMEMessage(parsing: Array("Content-Type: multipart/mixed\n\nx".utf8))
        #expect(noBoundary.parts.count == 1)
    }

    @Test func bogusBase64AndQuotedPrintable() {
        #expect(MIMEBase64.decode(Array("SGVs\r\nbG8=".utf8)) == Array("Hello".utf8))
        #expect(MIMEBase64.decode(Array("SGVsbG8".utf8)) == Array("Hello".utf8))  // missing padding
        #expect(MIMEBase64.decode(Array("S".utf8)) == [])  // a lone sextet
        #expect(MIMEBase64.decode(Array("SGk=SGk=".utf8)) == Array("HiHi".utf8))  // concatenated chunks
        #expect(MIMEBase64.decode(Array("*S!G#V%s^b&G(8)".utf8)) == Array("Hello".utf8))
        #expect(MIMEBase64.decode([UInt8](0...255)).count < 256)

        #expect(QuotedPrintable.decode(Array("a=3Db=3db =XY =\n=4".utf8)) == Array("a=b=b =XY =4".utf8))
        #expect(QuotedPrintable.decode(Array("soft=  \r\nbreak   \r\nend=".utf8)) == Array("softbreak\r\nend".utf8))
        #expect(QuotedPrintable.decode(Array("tab\there".utf8)) == Array("tab\there".utf8))

        let m = MIMEMessage(parsing: Array("""
            Content-Type: text/plain; charset=utf-8
            Content-Transfer-Encoding: base64

            ***not base64 at all***
            """.utf8))
        #expect(m.parts.count == 1)
    }

    static func nested(_ depth: Int) -> [UInt8] {
        var s = "Subject: deep\n"
        for i in 0..<depth {
            s += "Content-Type: multipart/mixed; boundary=\"b\(i)\"\n\n--b\(i)\n"
        }
        s += "Content-Type: text/plain\n\nbottom\n"
        for i in stride(from: depth - 1, through: 0, by: -1) { s += "--b\(i)--\n" }
        return Array(s.utf8)
    }

    @Test func deepNestingRespectsTheLimit() {
        let m = MIMEMessage(parsing: Self.nested(1000))
        #expect(m.isTruncated)
        #expect(m.parts.count == 1)
        #expect(m.parts[0].isOpaque)
        #expect(m.parts[0].partNumber.split(separator: ".").count == 32)
        #expect(m.text == nil)

        let capped = MIMEMessage(parsing: Self.nested(1000), limits: MIMELimits(maxDepth: 1_000_000))
        #expect(capped.isTruncated)
        #expect(capped.parts[0].partNumber.split(separator: ".").count == 256)

        let allowed = MIMEMessage(parsing: Self.nested(100), limits: MIMELimits(maxDepth: 200))
        #expect(!allowed.isTruncated)
        #expect(allowed.text == "bottom")
        #expect(allowed.parts[0].partNumber.split(separator: ".").count == 100)
    }

    @Test func hundredThousandParts() {
        var s = "Content-Type: multipart/mixed; boundary=p\n\n"
        s.reserveCapacity(3_000_000)
        for i in 0..<100_000 { s += "--p\nContent-Type: text/plain\n\npart \(i)\n" }
        s += "--p--\n"
        let m = MIMEMessage(parsing: Array(s.utf8))
        #expect(m.isTruncated)
        #expect(m.parts.count == 1000)
        #expect(m.parts[998].text == "part 998")
        #expect(m.parts[999].isOpaque)
        #expect(m.parts[999].bytes.count > 1_000_000)

        let all = MIMEMessage(parsing: Array(s.utf8), limits: MIMELimits(maxParts: 200_000))
        #expect(all.parts.count == 100_000)
        #expect(!all.isTruncated)
    }

    @Test func decodedSizeLimit() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: multipart/mixed; boundary=s

            --s

            0123456789
            --s

            0123456789
            --s--
            """.utf8), limits: MIMELimits(maxDecodedBytes: 15))
        #expect(m.parts.count == 2)
        #expect(!m.parts[0].isOpaque)
        #expect(m.parts[1].isOpaque)
        #expect(m.isTruncated)
    }

    @Test func hugeHeaderLineAndManyHeaders() {
        let long = String(repeating: "x", count: 2_000_000)
        let m = MIMEMessage(parsing: Array("Subject: \(long)\nTo: \(String(repeating: "a@b.c, ", count: 100_000))\n\nbody".utf8))
        #expect(m.subject?.utf8.count == 2_000_000)
        #expect(m.to.count == 100_000)
        #expect(m.text == "body")

        let folded = "Subject: start" + String(repeating: "\n continued", count: 100_000) + "\n\nb"
        #expect(MIMEMessage(parsing: Array(folded.utf8)).subject?.hasSuffix("continued continued") == true)

        let many = String(repeating: "X-H: v\n", count: 50_000) + "\nbody"
        let mm = MIMEMessage(parsing: Array(many.utf8))
        #expect(mm.headers.count == 1000)
        #expect(mm.isTruncated)
        #expect(mm.text == "body")
    }

    @Test(arguments: [
        "", "\n", "\r\n\r\n", ":", "no colon at all", "From \n\n", "Content-Type: multipart/mixed; boundary=\"\"\n\n--\n",
        "Content-Type: multipart/alternative; boundary=x\n\n--x--\n", "Content-Type: message/rfc822\n\n",
        "Subject: =?", "Subject: =?utf-8?b?", "To: <<<>>>,,,;;;:::@@@\"\n", "From: (((unclosed\n", "Date: 99 Foo 1\n",
    ])
    func garbageNeverCrashes(input: String) {
        let m = MIMEMessage(parsing: Array(input.utf8))
        #expect(m.parts.count <= 1)
    }

    @Test func randomBytesNeverCrash() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            var bytes: [UInt8] = Array("Content-Type: multipart/mixed; boundary=q\n\n".utf8)
            for _ in 0..<2000 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let r = UInt8(truncatingIfNeeded: state >> 33)
                // Bias toward the bytes the parser cares about.
                let alphabet: [UInt8] = Array("-q\n\r=?:;<>\"()".utf8)
                bytes.append(r < 128 ? alphabet[Int(r) % alphabet.count] : r)
            }
            _ = MIMEMessage(parsing: bytes)
        }
    }
}
