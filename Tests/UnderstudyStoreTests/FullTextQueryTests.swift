import Testing
@testable import UnderstudyStore

@Suite struct FullTextSearchTests {
    /// One store with English, accented, Chinese, Japanese and Korean mail.
    final class Fixture: Sendable {
        let store: MessageStore
        let english, french, chinese, japanese, korean: String

        init() throws {
            store = try makeStore()
            english = try store.insert(sample(1, subject: "Your O'Reilly invoice", text: "Reset your password with the e-mail link."))
            french = try store.insert(sample(2, subject: "Résumé du café", text: "Crème brûlée à Noël"))
            chinese = try store.insert(sample(3, to: "li@example.cn", subject: "【示例】账户验证",
                                              text: "您的验证码是123456，请在10分钟内输入。"))
            japanese = try store.insert(sample(4, subject: "確認コードのお知らせ", text: "確認コードは 654321 です"))
            korean = try store.insert(sample(5, subject: "인증번호 안내", text: "인증번호는 777777 입니다"))
        }

        func search(_ query: String) throws -> [String] {
            try store.list(MessageFilter(query: query)).items.map(\.id)
        }
    }

    @Test func findsEnglishWordsPrefixesPhrasesAndExclusions() throws {
        let f = try Fixture()
        defer { f.store.close() }
        #expect(try f.search("invoice") == [f.english])
        #expect(try f.search("INVOICE password") == [f.english])  // all words, any field, any case
        #expect(try f.search("invoice missingword").isEmpty)
        #expect(try f.search("passw*") == [f.english])
        #expect(try f.search("\"reset your password\"") == [f.english])
        #expect(try f.search("\"password your reset\"").isEmpty)
        #expect(try f.search("e-mail") == [f.english])
        #expect(try f.search("o'reilly") == [f.english])
        #expect(try f.search("sender@example.com").count == 5)  // From header is indexed
        #expect(try f.search("li@example.cn") == [f.chinese])  // recipients are indexed
        #expect(try f.search("example -invoice").count == 4)
        #expect(try f.search("-\"O'Reilly invoice\" example").count == 4)
    }

    @Test func ignoresDiacritics() throws {
        let f = try Fixture()
        defer { f.store.close() }
        #expect(try f.search("resume cafe") == [f.french])
        #expect(try f.search("résumé") == [f.french])
        #expect(try f.search("CREME brulee noel") == [f.french])
    }

    @Test func findsChineseJapaneseAndKoreanSubstrings() throws {
        let f = try Fixture()
        defer { f.store.close() }
        #expect(try f.search("验证码") == [f.chinese])  // inside "您的验证码是123456"
        #expect(try f.search("验证") == [f.chinese])  // two characters, in subject and body
        #expect(try f.search("123456") == [f.chinese])  // digits next to CJK are their own word
        #expect(try f.search("码验").isEmpty)  // order matters
        #expect(try f.search("確認コード") == [f.japanese])
        #expect(try f.search("コード 654321") == [f.japanese])
        #expect(try f.search("인증번호") == [f.korean])
        #expect(try f.search("验证码 確認").isEmpty)
    }

    @Test(arguments: [
        "foo-bar", "\"phrase\"", "o'reilly", "验证码", "\"unclosed phrase", "a\"b", "NEAR(a b)", "a OR b", "a AND",
        "NOT x", "x NOT", "(x", "x)", "col:value", "subject:invoice", "^start", "a*b", "**x", "{a b}: c",
        "'; DROP TABLE messages; --", "x\u{0}y", "\"\u{301}invoice", "a + b", "-", "--x", "-\"\"", "\\\"",
        "emoji 😀 test", "\u{202E}rtl", String(repeating: "word ", count: 30),
    ])
    func hostileInputNeverBreaksTheQuery(_ input: String) throws {
        let store = try makeStore()
        defer { store.close() }
        try store.insert(sample(1, subject: "invoice foo bar"))
        do {
            let page = try store.list(MessageFilter(query: input))
            #expect(page.total == page.items.count)
        } catch let error as MessageStoreError {
            #expect(error.isInvalidQuery)
        }
        // Whatever happened, the store still works.
        #expect(try store.list(MessageFilter(query: "invoice")).total == 1)
    }

    @Test(arguments: ["", "   "]) func blankQueryMeansNoSearch(_ input: String) throws {
        let store = try makeStore()
        defer { store.close() }
        try store.insert(sample(1))
        #expect(try store.list(MessageFilter(query: input)).total == 1)
    }

    @Test(arguments: ["-", "***", "'\"", "()", "--"]) func queryWithoutWordsIsAClearError(_ input: String) throws {
        let error = #expect(throws: MessageStoreError.self) { try FullTextQuery(input) }
        #expect(error?.isInvalidQuery == true)
        #expect(error?.message.contains("no letters or digits") == true)
    }

    @Test func overlongQueriesAreRejected() throws {
        #expect(throws: MessageStoreError.self) { try FullTextQuery(String(repeating: "a", count: 2000)) }
        #expect(throws: MessageStoreError.self) { try FullTextQuery(String(repeating: "a ", count: 40)) }
    }

    @Test func buildsQuotedExpressions() throws {
        #expect(try FullTextQuery("foo").expression == "\"foo\"")
        #expect(try FullTextQuery("foo bar*").expression == "(\"foo\" AND \"bar\"*)")
        #expect(try FullTextQuery("a\"b").expression == "(\"a\" AND \"b\")")
        #expect(try FullTextQuery("x -y").expression == "\"x\" NOT \"y\"")
        #expect(try FullTextQuery("验证码").expression == "\" 验 证 码\"")
        #expect(FullTextQuery.indexText("plain text") == "plain text")
        #expect(FullTextQuery.indexText("码123") == " 码 123")
    }
}
