import Testing
@testable import UnderstudyMIME

@Suite struct BodySelectionTests {
    @Test func alternativeInAnyOrderAndInlineFiles() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: multipart/mixed; boundary=m

            --m
            Content-Type: multipart/alternative; boundary=a

            --a
            Content-Type: text/html

            <p>html body</p>
            --a
            Content-Type: text/plain

            plain body
            --a--
            --m
            Content-Type: application/pdf
            Content-Disposition: inline; filename=scan.pdf

            %PDF
            --m
            Content-Type: text/plain
            Content-Disposition: inline

            footer
            --m
            Content-Type: text/plain; name=notes.txt

            not the body
            --m--
            """.utf8))
        #expect(m.text == "plain body\nfooter")
        #expect(m.html == "<p>html body</p>")
        #expect(m.attachments.map(\.partNumber) == ["2", "4"])
        #expect(m.part("2")?.disposition == .inline)
    }
}
