import Testing
import UnderstudyExtract

/// Runs every message of `Corpus/` and checks the best code (or that there is none) and each
/// expected link's purpose.
@Suite struct CorpusTests {
    static let messages = CorpusMessage.all()

    @Test func corpusIsLoadedAndLarge() {
        #expect(Self.messages.count >= 80)
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

    /// Precision and recall of the best code over the whole corpus, printed for the record: a
    /// wrong best code counts as a false positive and a miss, a code in a message without one as
    /// a false positive.
    @Test func precisionAndRecall() {
        var truePositives = 0, falsePositives = 0, falseNegatives = 0
        var misses: [String] = []
        for message in Self.messages {
            let best = message.extract().bestCode?.value
            switch (message.expectedCode, best) {
            case let (expected?, found?) where expected == found: truePositives += 1
            case (_?, let found):
                falseNegatives += 1
                if found != nil { falsePositives += 1 }
                misses.append(message.name)
            case (nil, _?):
                falsePositives += 1
                misses.append(message.name)
            case (nil, nil): break
            }
        }
        let precision = Double(truePositives) / Double(max(1, truePositives + falsePositives))
        let recall = Double(truePositives) / Double(max(1, truePositives + falseNegatives))
        let traps = Self.messages.filter { $0.expectedCode == nil }.count
        print("Extraction corpus: \(Self.messages.count) messages (\(Self.messages.count - traps) with a code, \(traps) without): "
              + "precision \(Self.percent(precision)), recall \(Self.percent(recall))"
              + (misses.isEmpty ? "" : "; wrong: \(misses.joined(separator: ", "))"))
        #expect(precision == 1 && recall == 1, "wrong: \(misses)")
    }

    static func percent(_ value: Double) -> String {
        let tenths = Int((value * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
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
