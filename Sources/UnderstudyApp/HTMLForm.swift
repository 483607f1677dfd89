/// The first form of an HTML page as a browser would submit it: its action and hidden inputs.
/// Reads only what Understudy's own pages write (double-quoted attributes, escaped values).
struct HTMLForm {
    var action: String?
    var fields: [(name: String, value: String)]

    init(html: String) {
        action = nil
        fields = []
        if let formStart = html.firstRange("<form ") {
            let tag = html[formStart.upperBound...].prefix { $0 != ">" }
            action = Self.attribute("action", in: tag)
        }
        for piece in html.split(separator: "<input type=\"hidden\" ").dropFirst() {
            let tag = piece.prefix { $0 != ">" }
            if let name = Self.attribute("name", in: tag), let value = Self.attribute("value", in: tag) {
                fields.append((name, value))
            }
        }
    }

    func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.firstRange(name + "=\"") else { return nil }
        let rest = tag[start.upperBound...]
        return unescape(String(rest.prefix { $0 != "\"" }))
    }

    static func unescape(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var rest = Substring(s)
        let entities = [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
        outer: while let c = rest.first {
            if c == "&" {
                for (e, r) in entities where rest.hasPrefix(e) {
                    out += r
                    rest = rest.dropFirst(e.count)
                    continue outer
                }
            }
            out.append(c)
            rest = rest.dropFirst()
        }
        return out
    }
}

extension StringProtocol {
    /// The first range of `needle` (no Foundation here).
    func firstRange(_ needle: String) -> Range<Index>? {
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
