/// Finds one-time codes and links in a decoded message.
///
/// Pure and allocation-light: each part is read once into a `TextDocument` (capped at
/// `TextDocument.maximumScalars`), then scanned linearly; keyword lists are only consulted in
/// small windows around number-like tokens.
public enum Extractor {
    /// Extracts codes (best first) and links (HTML links in document order, then links only in the
    /// text part). Any argument may be nil or empty.
    public static func extract(subject: String?, text: String?, html: String?) -> Extraction {
        var codes: [String: ExtractedCode] = [:]
        var sources: [String: Set<CodeSource>] = [:]
        var order: [String: Int] = [:]
        var links = LinkList()

        func add(_ candidates: [CodeScanner.Candidate], from source: CodeSource) {
            for candidate in candidates {
                sources[candidate.value, default: []].insert(source)
                if order[candidate.value] == nil { order[candidate.value] = order.count }
                if let existing = codes[candidate.value], existing.score >= candidate.score { continue }
                codes[candidate.value] = ExtractedCode(
                    value: candidate.value, raw: candidate.raw, score: candidate.score, source: source)
            }
        }

        var subjectAnnounces = false
        if let subject, !subject.isEmpty {
            let document = TextDocument(plainText: subject)
            let found = CodeScanner(document).scan()
            add(found, from: .subject)
            subjectAnnounces = found.isEmpty && CodeScanner.announces(document)
        }
        if let html, !html.isEmpty {
            let parsed = HTMLTextExtractor.extract(html)
            add(CodeScanner(parsed.document, subjectAnnounces: subjectAnnounces).scan(), from: .html)
            var found: [(position: Int, url: String, text: String?)] = parsed.anchors.map { ($0.position, $0.href, $0.text) }
            for bare in URLScanner.scan(parsed.document, skippingAnchors: true) {
                found.append((bare.position, bare.url, nil))
            }
            found.sort { $0.position < $1.position }
            for link in found {
                links.add(url: link.url, text: link.text) { context(parsed.document, before: link.position) }
            }
        }
        if let text, !text.isEmpty {
            let document = TextDocument(plainText: text)
            add(CodeScanner(document, subjectAnnounces: subjectAnnounces).scan(), from: .text)
            for bare in URLScanner.scan(document, skippingAnchors: false) {
                links.add(url: bare.url, text: nil) { context(document, before: bare.position) }
            }
        }

        // A code repeated in several parts (subject and body, text and HTML) is more likely the one.
        var ranked = Array(codes.values)
        for index in ranked.indices {
            let extra = (sources[ranked[index].value]?.count ?? 1) - 1
            ranked[index].score += 5 * extra
        }
        ranked.sort { lhs, rhs in
            if lhs.score != rhs.score { return lhs.score > rhs.score }
            return order[lhs.value, default: 0] < order[rhs.value, default: 0]
        }
        return Extraction(codes: ranked, links: links.links)
    }

    /// The code-shaped runs of a message that `extract` did not take, each once with the reason
    /// (at most 64 per part), so a person can see what the extractor considered. Slower than
    /// `extract`: meant for showing one message, not for ingest.
    public static func rejectedCandidates(subject: String?, text: String?, html: String?) -> [RejectedCode] {
        var rejected: [RejectedCode] = []
        var seen: Set<String> = []
        func add(_ rejections: [CodeScanner.Rejection], _ source: CodeSource) {
            for r in rejections where seen.insert(r.raw + "\u{0}" + r.reason).inserted {
                rejected.append(RejectedCode(raw: r.raw, reason: r.reason, source: source))
            }
        }
        var subjectAnnounces = false
        if let subject, !subject.isEmpty {
            let document = TextDocument(plainText: subject)
            let found = CodeScanner(document).diagnose()
            add(found.rejections, .subject)
            subjectAnnounces = found.candidates.isEmpty && CodeScanner.announces(document)
        }
        if let html, !html.isEmpty {
            let parsed = HTMLTextExtractor.extract(html)
            add(CodeScanner(parsed.document, subjectAnnounces: subjectAnnounces).diagnose().rejections, .html)
        }
        if let text, !text.isEmpty {
            add(CodeScanner(TextDocument(plainText: text), subjectAnnounces: subjectAnnounces).diagnose().rejections, .text)
        }
        return rejected
    }

    /// The text on the link's line before it and on the line above, at most 160 scalars.
    private static func context(_ document: TextDocument, before position: Int) -> [Unicode.Scalar] {
        let lineStart = document.lineStart(position)
        let previousStart = lineStart > 0 ? document.lineStart(lineStart - 1) : lineStart
        let start = max(previousStart, position - 160)
        return Array(document.folded[start..<position])
    }
}

/// Links in order of first appearance, one per URL; a later copy with anchor text fills in the
/// text, and a later copy with a clearer purpose replaces `other`.
private struct LinkList {
    private(set) var links: [ExtractedLink] = []
    private var index: [String: Int] = [:]
    static let maximumLinks = 500

    mutating func add(url rawURL: String, text: String?, context: () -> [Unicode.Scalar]) {
        guard let url = Self.acceptable(rawURL) else { return }
        if let existing = index[url] {
            if links[existing].text == nil, let text { links[existing].text = text }
            if links[existing].purpose == .other {
                links[existing].purpose = LinkClassifier.classify(url: url, text: text, context: context)
            }
            return
        }
        guard links.count < Self.maximumLinks else { return }
        index[url] = links.count
        links.append(ExtractedLink(url: url, text: text, purpose: LinkClassifier.classify(url: url, text: text, context: context)))
    }

    private static let resourceExtensions: [[UInt8]] = [
        "png", "gif", "jpg", "jpeg", "webp", "svg", "ico", "bmp", "css", "js", "woff", "woff2", "ttf",
    ].map { Array($0.utf8) }

    /// http(s) URLs only, without images, stylesheets and other page resources.
    private static func acceptable(_ url: String) -> String? {
        let bytes = Array(url.utf8.prefix(URLScanner.maximumLength + 1))
        guard bytes.count > 8, bytes.count <= URLScanner.maximumLength else { return nil }
        func lower(_ i: Int) -> UInt8 { (0x41...0x5A).contains(bytes[i]) ? bytes[i] | 0x20 : bytes[i] }
        let https = Array("https://".utf8), http = Array("http://".utf8)
        let isHTTPS = (0..<8).allSatisfy { lower($0) == https[$0] }
        let isHTTP = (0..<7).allSatisfy { lower($0) == http[$0] }
        guard isHTTPS || isHTTP else { return nil }
        // The extension of the last path segment, before any query or fragment.
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var dot = end - 1
        while dot > 0, bytes[dot] != UInt8(ascii: "."), bytes[dot] != UInt8(ascii: "/"), end - dot <= 6 { dot -= 1 }
        if dot > 0, bytes[dot] == UInt8(ascii: "."), end - dot - 1 >= 2 {
            let ext = (dot + 1..<end).map(lower)
            if resourceExtensions.contains(ext) { return nil }
        }
        return url
    }
}
