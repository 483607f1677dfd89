import Foundation
import UnderstudyExtract

/// One message of `Corpus/`, with the expectations written in its header block (see Corpus/README.md).
struct CorpusMessage: CustomStringConvertible, Sendable {
    var name: String
    var subject: String?
    var text: String?
    var html: String?
    /// nil means "no code may be found".
    var expectedCode: String?
    var expectedRaw: String?
    var expectedLinks: [(purpose: String, url: String)] = []
    var expectedLinkCount: Int?

    var description: String { name }

    static var directory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Corpus")
    }

    static func all() -> [CorpusMessage] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".eml.txt") }.sorted().map { name in
            let contents = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
            return CorpusMessage(name: name, contents: contents)
        }
    }

    init(name: String, contents: String) {
        self.name = name
        var section = "header"
        var parts: [String: [Substring]] = [:]
        for line in contents.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("===== ") {
                section = String(line.dropFirst(6))
                continue
            }
            if section == "header" {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let key = line[..<colon]
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                switch key {
                case "Subject": subject = value
                case "Expect-Code": expectedCode = value == "none" ? nil : value
                case "Expect-Raw": expectedRaw = value
                case "Expect-Link-Count": expectedLinkCount = Int(value)
                case "Expect-Link":
                    let pieces = value.split(separator: " ", maxSplits: 1)
                    expectedLinks.append((String(pieces[0]), String(pieces[1])))
                default: break
                }
            } else {
                parts[section, default: []].append(line)
            }
        }
        text = parts["text"].map { $0.joined(separator: "\n") }
        html = parts["html"].map { $0.joined(separator: "\n") }
    }

    func extract() -> Extraction {
        Extractor.extract(subject: subject, text: text, html: html)
    }
}
