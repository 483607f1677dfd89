/// A request or command with `{{token}}`, `{{nonce}}`, `{{rawNonce}}`, `{{aud}}` and `{{email}}` in it.
struct AuditTemplate {
    static let placeholders = ["token", "nonce", "rawNonce", "aud", "email"]

    /// Replaces each known placeholder with its value (an empty string when the token has none);
    /// an unknown `{{name}}` is a usage error, found before anything is sent.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        var out = text
        for name in placeholders { out = replaceAll(out, "{{\(name)}}", values[name] ?? "") }
        return out
    }

    static func replaceAll(_ text: String, _ target: String, _ replacement: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    /// The `{{...}}` names in `text` that are not placeholders.
    static func unknownPlaceholders(in text: String) -> [String] {
        var unknown: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else { break }
            let name = String(after[..<close.lowerBound])
            if !placeholders.contains(name) { unknown.append(name) }
            rest = after[close.upperBound...]
        }
        return unknown
    }
}

extension Substring {
    func range(of needle: String) -> Range<Substring.Index>? {
        guard !needle.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
