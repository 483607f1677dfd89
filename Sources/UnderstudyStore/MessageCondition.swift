/// One condition of a structured search (what Mailpit's search syntax compiles to): every
/// condition in `MessageFilter.conditions` must hold. Text conditions match a part of the field,
/// ignoring ASCII case; they scan the messages (as Mailpit's own search does), where `query`
/// uses the full-text index.
public indirect enum MessageCondition: Sendable, Equatable {
    /// Part of the subject, the sender, a recipient or the text.
    case text(String)
    /// Part of a To or envelope recipient.
    case to(String)
    /// Part of the From header or the envelope sender.
    case from(String)
    case cc(String)
    /// Part of an envelope recipient that is in neither To nor Cc (blind copies).
    case bcc(String)
    case subject(String)
    /// Part of the Message-ID (without angle brackets).
    case messageID(String)
    /// Carries this tag, ignoring case.
    case tag(String)
    case isRead(Bool)
    /// Has at least one tag.
    case isTagged
    /// Has an attachment that is not an inline part.
    case hasAttachment
    /// Arrived before / at or after this time, in milliseconds since the epoch.
    case receivedBefore(Int64)
    case receivedAfter(Int64)
    /// Came in through this source (`NewMessage.source`; "smtp" matches those without one).
    case source(String)
    case not(MessageCondition)

    /// Most conditions in one filter.
    public static let maximumCount = 64

    /// Whether the SQL reads the message's text (a join to the bodies).
    var readsBody: Bool {
        switch self {
        case .text: return true
        case .not(let inner): return inner.readsBody
        default: return false
        }
    }

    /// The SQL (over `m`, and `b` when `readsBody`) and its arguments.
    func sql() -> (String, [DatabaseValue]) {
        func like(_ columns: [String], _ value: String) -> (String, [DatabaseValue]) {
            let pattern = DatabaseValue.text(MessageStore.likePattern(value))
            return ("(" + columns.map { "coalesce(\($0), '') LIKE ? ESCAPE '\\'" }.joined(separator: " OR ") + ")",
                    Array(repeating: pattern, count: columns.count))
        }
        switch self {
        case .text(let value):
            return like(["m.subject", "m.header_from", "m.from_name", "m.envelope_from", "m.header_to", "m.header_cc",
                         "m.envelope_to", "b.text"], value)
        case .to(let value): return like(["m.header_to", "m.envelope_to"], value)
        case .from(let value): return like(["m.header_from", "m.from_name", "m.envelope_from"], value)
        case .cc(let value): return like(["m.header_cc"], value)
        case .bcc(let value):
            let pattern = DatabaseValue.text(MessageStore.likePattern(value))
            return (#"(m.envelope_to LIKE ? ESCAPE '\' AND m.header_to NOT LIKE ? ESCAPE '\' AND m.header_cc NOT LIKE ? ESCAPE '\')"#,
                    [pattern, pattern, pattern])
        case .subject(let value): return like(["m.subject"], value)
        case .messageID(let value): return like(["m.message_id"], value)
        case .tag(let value):
            return ("EXISTS (SELECT 1 FROM json_each(m.tags) t WHERE lower(t.value) = lower(?))", [.text(value)])
        case .isRead(let read): return ("m.is_read = ?", [.integer(read ? 1 : 0)])
        case .isTagged: return ("m.tags <> '[]'", [])
        case .hasAttachment:
            return ("EXISTS (SELECT 1 FROM json_each(m.attachments) a WHERE json_extract(a.value, '$.inline') = 0)", [])
        case .receivedBefore(let ms): return ("m.received_at < ?", [.integer(ms)])
        case .receivedAfter(let ms): return ("m.received_at >= ?", [.integer(ms)])
        case .source(let value):
            return value.lowercased() == "smtp" ? ("m.source IS NULL", []) : ("lower(coalesce(m.source, '')) = lower(?)", [.text(value)])
        case .not(let inner):
            let (text, arguments) = inner.sql()
            return ("NOT \(text)", arguments)
        }
    }
}
