import Testing
@testable import UnderstudyMIME

@Suite struct FormatFlowedTests {
    @Test func unwrapsSoftBreaks() {
        let flowed = "Your code is \nsplit across \nlines.\n\n> quoted soft \n> continues\n-- \nsig\n"
        #expect(FormatFlowed.unwrap(flowed, deleteSpace: false)
            == "Your code is split across lines.\n\n> quoted soft continues\n-- \nsig\n")
        #expect(FormatFlowed.unwrap("ab \ncd", deleteSpace: true) == "abcd")
        #expect(FormatFlowed.unwrap(" From stuffed", deleteSpace: false) == "From stuffed")
    }

    @Test func appliedToTextParts() {
        let m = MIMEMessage(parsing: Array("""
            Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes

            Verifi\u{20}
            cation code: 123456
            """.utf8))
        #expect(m.text == "Verification code: 123456")
    }

    @Test func windowsNumericReferences() {
        #expect(HTMLText.plainText(fromHTML: "a&#150;b &#147;q&#148;") == "a–b “q”")
    }
}
