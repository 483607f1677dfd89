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

/// Which HTTP statuses mean the verifier accepted the token: `2xx`, `200`, `200,201`, `200-204`.
struct AcceptStatus {
    let ranges: [ClosedRange<Int>]

    init(_ text: String) throws(UsageError) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",").map({ String($0).trimmingSpaces() }) {
            if part.count == 3, part.hasSuffix("xx"), let d = Int(part.prefix(1)), (1...5).contains(d) {
                ranges.append(d * 100...d * 100 + 99)
            } else if let dash = part.firstIndex(of: "-"), let a = Int(part[..<dash]), let b = Int(part[part.index(after: dash)...]), a <= b {
                ranges.append(a...b)
            } else if let n = Int(part), (100...599).contains(n) {
                ranges.append(n...n)
            } else {
                throw UsageError("--accept-status takes statuses like 2xx, 200, 200,201 or 200-204; got '\(text)'")
            }
        }
        guard !ranges.isEmpty else { throw UsageError("--accept-status needs at least one status, e.g. 2xx") }
        self.ranges = ranges
    }

    func accepts(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }
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
