import UnderstudyInbox
import UnderstudyStore

/// Mailpit's search syntax, compiled to store conditions: words and "quoted phrases" match
/// anywhere (subject, addresses, text); `to:` `from:` `cc:` `bcc:` `subject:` `message-id:`
/// `tag:` match a field; `is:read` `is:unread` `is:tagged` `has:attachment` test a state;
/// `before:` / `after:` take a date (`2026-12-03`) or an RFC 3339 time; a leading `-` or `!`
/// negates any term. Terms are ANDed; the search ignores ASCII case. Understudy adds
/// `source:` (`smtp`, `resend`, `sendgrid`, `postmark`, `mailgun`, `ses`, `mailpit`).
public struct MailpitSearch: Sendable, Equatable {
    public var conditions: [MessageCondition]

    /// Longest query accepted, in UTF-8 bytes.
    public static let maximumLength = 4096

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(_ query: String) throws(ParseError) {
        guard query.utf8.count <= Self.maximumLength else {
            throw ParseError(description: "the query is \(query.utf8.count) bytes; the limit is \(Self.maximumLength)")
        }
        var conditions: [MessageCondition] = []
        for token in Self.tokens(query) {
            var term = Substring(token.text)
            var negated = false
            if !token.quotedWhole, let first = term.first, first == "-" || first == "!", term.count > 1 {
                negated = true
                term = term.dropFirst()
            }
            guard let condition = try Self.condition(term, quotedWhole: token.quotedWhole) else { continue }
            conditions.append(negated ? .not(condition) : condition)
        }
        guard conditions.count <= MessageCondition.maximumCount else {
            throw ParseError(description: "the query has \(conditions.count) terms; the limit is \(MessageCondition.maximumCount)")
        }
        self.conditions = conditions
    }

    struct Token: Equatable {
        var text: String
        /// The whole token was one quoted phrase (so a leading `-` is text, `a:b` is not a field).
        var quotedWhole: Bool
    }

    /// Splits on white space outside double quotes; quotes are removed.
    static func tokens(_ query: String) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var inQuotes = false
        var started = false
        var quotedFromStart = false
        var sawOutsideQuote = false
        func flush() {
            if started, !current.isEmpty { tokens.append(Token(text: current, quotedWhole: quotedFromStart && !sawOutsideQuote)) }
            current = ""
            started = false
            quotedFromStart = false
            sawOutsideQuote = false
        }
        for character in query {
            if character == "\"" {
                if !started { quotedFromStart = true }
                started = true
                inQuotes.toggle()
            } else if !inQuotes && character.isWhitespace {
                flush()
            } else {
                if !started { started = true }
                if !inQuotes { sawOutsideQuote = true }
                current.append(character)
            }
        }
        flush()
        return tokens
    }

    static func condition(_ term: Substring, quotedWhole: Bool) throws(ParseError) -> MessageCondition? {
        guard !quotedWhole, let colon = term.firstIndex(of: ":") else { return .text(String(term)) }
        let field = term[..<colon].lowercased()
        let value = String(term[term.index(after: colon)...])
        switch field {
        case "to": return value.isEmpty ? nil : .to(value)
        case "from": return value.isEmpty ? nil : .from(value)
        case "cc": return value.isEmpty ? nil : .cc(value)
        case "bcc": return value.isEmpty ? nil : .bcc(value)
        case "subject": return value.isEmpty ? nil : .subject(value)
        case "message-id":
            let id = value.filter { $0 != "<" && $0 != ">" }
            return id.isEmpty ? nil : .messageID(id)
        case "tag": return value.isEmpty ? nil : .tag(value)
        case "source": return value.isEmpty ? nil : .source(value)
        case "is":
            switch value.lowercased() {
            case "read": return .isRead(true)
            case "unread": return .isRead(false)
            case "tagged": return .isTagged
            default: throw ParseError(description: "is:\(value) is not a state Understudy knows; use is:read, is:unread or is:tagged")
            }
        case "has":
            switch value.lowercased() {
            case "attachment", "attachments": return .hasAttachment
            default: throw ParseError(description: "has:\(value) is not known; use has:attachment")
            }
        case "before", "after":
            guard let ms = date(value) else {
                throw ParseError(description: "\(field):\(value) needs a date like 2026-12-03 or a time like 2026-12-03T10:00:00Z")
            }
            return field == "before" ? .receivedBefore(ms) : .receivedAfter(ms)
        default:
            return .text(String(term))
        }
    }

    /// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 time, in milliseconds since the epoch.
    static func date(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        if bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") {
            return Timestamp.parse(text + "T00:00:00Z")
        }
        return Timestamp.parse(text)
    }
}
