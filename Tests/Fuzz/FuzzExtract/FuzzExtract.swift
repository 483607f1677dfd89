import FuzzSupport
import UnderstudyExtract

/// libFuzzer target for `Extractor.extract`: code and link extraction from a decoded message.
///
/// An input in the extraction corpus's format (`Subject:` header lines, then `===== text` and
/// `===== html` sections; see Tests/UnderstudyExtractTests/Corpus/README.md) is read as such, so
/// the corpus seeds mean what they say. Any input is also extracted whole as text and as HTML, and
/// cut where it says into a text part and an HTML part. The output must keep the contract the
/// invariant tests check: codes of 4-10 digits or capitals, best first, confidence in 0...1,
/// http(s) links only (no images), each once.
enum FuzzExtract {
    static func run(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let sections = CorpusSections(text)
        check(Extractor.extract(subject: sections.subject, text: sections.text, html: sections.html))
        check(Extractor.extract(subject: nil, text: text, html: nil))
        check(Extractor.extract(subject: nil, text: nil, html: text))
        let halves = input.halves.map { String(decoding: $0, as: UTF8.self) }
        let subject = halves[0].split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        check(Extractor.extract(subject: subject, text: halves[0], html: halves[1]))
    }

    static func check(_ extraction: Extraction) {
        for code in extraction.codes {
            FuzzCheck.expect((4...10).contains(code.value.unicodeScalars.count), "code \(code) is not 4-10 characters")
            FuzzCheck.expect(code.value.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("A"..."Z").contains($0) },
                             "code \(code) has a character other than a digit or capital")
            FuzzCheck.expect((0...1).contains(code.confidence), "code \(code) has confidence outside 0...1")
        }
        FuzzCheck.expect(zip(extraction.codes, extraction.codes.dropFirst()).allSatisfy { $0.score >= $1.score },
                         "codes are not best first: \(extraction.codes)")
        FuzzCheck.expect(Set(extraction.links.map(\.url)).count == extraction.links.count,
                         "a link is listed twice: \(extraction.links.map(\.url))")
        for link in extraction.links {
            let lower = link.url.lowercased()
            FuzzCheck.expect(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "link \(link.url) is not http(s)")
            // An image is a path ending in .gif; `/verify?token.gif` is a page with a query.
            let path = lower.prefix { $0 != "?" && $0 != "#" }
            FuzzCheck.expect(!path.hasSuffix(".gif"), "link \(link.url) is an image")
        }
        _ = extraction.bestCode
        for purpose in LinkPurpose.allCases { _ = extraction.firstLink(purpose) }
    }
}

/// The parts of an input written as an extraction corpus file; all nil for other input.
struct CorpusSections {
    var subject: String?
    var text: String?
    var html: String?

    init(_ contents: String) {
        var section = "header"
        var parts: [String: [Substring]] = [:]
        for line in contents.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("===== ") {
                section = String(line.dropFirst(6))
                continue
            }
            if section == "header" {
                if line.hasPrefix("Subject:") { subject = String(line.dropFirst(8).drop { $0 == " " }) }
            } else {
                parts[section, default: []].append(line)
            }
        }
        text = parts["text"].map { $0.joined(separator: "\n") }
        html = parts["html"].map { $0.joined(separator: "\n") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzExtract.run(FuzzInput(data, size).bytes)
    return 0
}

#if !FUZZING
/// Without libFuzzer (a plain `swift build`) the target replays the files it is given; see `FuzzReplay`.
@main enum FuzzExtractReplay {
    static func main() { FuzzReplay.main(FuzzExtract.run) }
}
#endif
