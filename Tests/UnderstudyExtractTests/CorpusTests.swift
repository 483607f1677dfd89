import Testing
import UnderstudyExtract

/// Runs every message of `Corpus/` and checks the best code (or that there is none) and each
/// expected link's purpose.
@Suite struct CorpusTests {
    static let messages = CorpusMessage.all()

    @Test func corpusIsLoadedAndLarge() {
        #expect(Self.messages.count >= 30)
        #expect(Self.messages.contains { $0.expectedCode == nil })
        #expect(Self.messages.contains { $0.expectedCode != nil })
    }

    @Test(arguments: CorpusTests.messages)
    func bestCode(_ message: CorpusMessage) {
        let extraction = message.extract()
        if let expected = message.expectedCode {
            #expect(extraction.bestCode?.value == expected, "codes: \(extraction.codes)")
            if let raw = message.expectedRaw {
                #expect(extraction.bestCode?.raw == raw)
            }
        } else {
            #expect(extraction.codes.isEmpty, "unexpected codes: \(extraction.codes)")
        }
    }

    @Test(arguments: CorpusTests.messages)
    func links(_ message: CorpusMessage) {
        let extraction = message.extract()
        for (purpose, url) in message.expectedLinks {
            let link = extraction.links.first { $0.url == url }
            #expect(link != nil, "missing \(url) in \(extraction.links.map(\.url))")
            #expect(link?.purpose.rawValue == purpose, "\(url)")
        }
        if let count = message.expectedLinkCount {
            #expect(extraction.links.count == count, "links: \(extraction.links.map(\.url))")
        }
        for link in extraction.links {
            #expect(link.url.hasPrefix("http://") || link.url.hasPrefix("https://"))
            #expect(!link.url.contains("&amp;"))
        }
    }
}
