import Testing
import UnderstudyExtract

/// Deterministic random messages assembled from fragments that exercise every scanner: the
/// extractor must never crash and its output must keep its promises.
@Suite struct ExtractorInvariantTests {
    /// SplitMix64, so every run sees the same messages.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let fragments = [
        "<a href=\"", "https://x.test/verify?token=", "\">", "</a>", "<b>", "</b>", "<style>", "</style>", "<!--",
        "-->", "&#", "&amp;", "&nbsp;", "&#x", ";", "123456", "641-028", "D2KQ-7XHP", "2026", "12:30", "$1,299.00",
        "+1 555 123 4567", "code", "verification", "验证码", "認証コード", "인증번호", "Order #", "\n", " ", "é",
        "<td>", "</tr>", "http://", "<", ">", "\"", "'", "(", ")", "mailto:a@b.c", "unsubscribe", "\u{200B}",
        "５８３９２０", "<img src=\"https://x.test/p.gif\">", "<script>", "</script>", "<br/>", "#123456",
    ]

    @Test func randomMessagesKeepTheOutputContract() {
        var generator = Generator(state: 42)
        for _ in 0..<400 {
            var message = ""
            for _ in 0..<Int.random(in: 1...60, using: &generator) {
                message += Self.fragments.randomElement(using: &generator)!
            }
            let extraction = Extractor.extract(subject: String(message.prefix(80)), text: message, html: message)
            for code in extraction.codes {
                #expect((4...10).contains(code.value.unicodeScalars.count), "\(code)")
                #expect(code.value.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("A"..."Z").contains($0) })
                #expect((0...1).contains(code.confidence))
            }
            #expect(zip(extraction.codes, extraction.codes.dropFirst()).allSatisfy { $0.score >= $1.score })
            #expect(Set(extraction.links.map(\.url)).count == extraction.links.count)
            for link in extraction.links {
                let lower = link.url.lowercased()
                #expect(lower.hasPrefix("http://") || lower.hasPrefix("https://"))
                #expect(!lower.prefix { $0 != "?" && $0 != "#" }.hasSuffix(".gif"))
            }
        }
    }
}
