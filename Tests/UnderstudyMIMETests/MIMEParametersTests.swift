import Testing
@testable import UnderstudyMIME

@Suite struct MIMEParametersTests {
    @Test func rfc2231Examples() throws {
        let blocks = try Fixture.blocks("rfc2231-examples.txt")
        #expect(blocks.count == 3)
        for block in blocks {
            let expected = block[block.count - 1]
            let name = block[block.count - 2]
            let header = block.dropLast(2).joined(separator: "")
            let type = MIMEContentType(parsing: header)
            #expect(type.parameters[name] == expected, "header: \(header)")
        }
    }

    @Test func quotingAndCase() {
        let t = MIMEContentType(parsing: "Text/HTML; Charset=\"UTF-8\"; name=\"a \\\"b\\\"; c.txt\"; x=y (comment)")
        #expect(t.mimeType == "text/html")
        #expect(t.charset == "UTF-8")
        #expect(t.parameters["name"] == "a \"b\"; c.txt")
    }

    @Test func rfc2231FilenameWithCharset() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: application/pdf
            Content-Disposition: attachment;
             filename*0*=UTF-8''%E2%82%AC%20rapport%20;
             filename*1*=d%C3%A9cembre.pdf
            Content-Transfer-Encoding: base64

            JVBERi0=
            """.utf8))
        #expect(m.parts.count == 1)
        #expect(m.parts[0].filename == "€ rapport décembre.pdf")
        #expect(m.parts[0].isAttachment)
        #expect(m.parts[0].bytes == Array("%PDF-".utf8))
    }

    @Test func encodedWordFilenameAndLatin1Extended() {
        let t = MIMEContentType(parsing: "image/png; name=\"=?utf-8?B?w6l0w6kucG5n?=\"")
        #expect(t.parameters["name"] == "été.png")
        let d = MIMEParameters.parse("attachment; filename*=iso-8859-1'fr'%E9t%E9.txt")
        #expect(d.value == "attachment")
        #expect(d.parameters["filename"] == "été.txt")
    }

    @Test func missingOrGarbageTypeIsTextPlain() {
        #expect(MIMEContentType(parsing: "").mimeType == "text/plain")
        #expect(MIMEContentType(parsing: "garbage").mimeType == "text/plain")
        #expect(MIMEContentType(parsing: ";;;=;=\"").mimeType == "text/plain")
    }
}
