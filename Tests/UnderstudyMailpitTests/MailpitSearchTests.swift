import Testing
import UnderstudyStore
@testable import UnderstudyMailpit

@Suite struct MailpitSearchTests {
    @Test func compilesEveryKindOfTerm() throws {
        let search = try MailpitSearch(#"code "sign in" to:alice@example.com from:bob cc:carol bcc:dave subject:"Your code" message-id:<a@b> tag:Signup is:read is:unread is:tagged has:attachment before:2026-12-03 after:2026-12-01T10:00:00Z source:resend"#)
        #expect(search.conditions == [
            .text("code"), .text("sign in"), .to("alice@example.com"), .from("bob"), .cc("carol"), .bcc("dave"),
            .subject("Your code"), .messageID("a@b"), .tag("Signup"), .isRead(true), .isRead(false), .isTagged,
            .hasAttachment, .receivedBefore(1_796_256_000_000), .receivedAfter(1_796_119_200_000), .source("resend"),
        ])
    }

    @Test func negationWithDashOrBang() throws {
        #expect(try MailpitSearch("-to:alice !is:read -word").conditions == [.not(.to("alice")), .not(.isRead(true)), .not(.text("word"))])
        // A quoted phrase is text, even when it starts with a dash or holds a colon.
        #expect(try MailpitSearch(#""-5 off" "to:x""#).conditions == [.text("-5 off"), .text("to:x")])
        #expect(try MailpitSearch(#"-"two words""#).conditions == [.not(.text("two words"))])
        #expect(try MailpitSearch("- !").conditions == [.text("-"), .text("!")])
    }

    @Test func unknownFieldsAreWordsAndBadValuesAreErrors() throws {
        #expect(try MailpitSearch("http://x.example").conditions == [.text("http://x.example")])
        #expect(try MailpitSearch("to:").conditions.isEmpty)
        #expect(throws: MailpitSearch.ParseError.self) { try MailpitSearch("before:yesterday") }
        #expect(throws: MailpitSearch.ParseError.self) { try MailpitSearch("is:starred") }
        #expect(throws: MailpitSearch.ParseError.self) { try MailpitSearch(String(repeating: "a ", count: 65)) }
        #expect(throws: MailpitSearch.ParseError.self) { try MailpitSearch(String(repeating: "a", count: 5000)) }
        #expect(try MailpitSearch("   ").conditions.isEmpty)
    }
}
