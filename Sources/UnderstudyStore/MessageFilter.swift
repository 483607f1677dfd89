/// Which messages `MessageStore.list` returns. All given conditions must hold.
public struct MessageFilter: Sendable, Equatable {
    /// A recipient (envelope, To or Cc), matched exactly, ignoring case.
    public var to: String?
    /// Part of the From header or envelope sender, ignoring ASCII case.
    public var from: String?
    /// Part of the subject, ignoring ASCII case.
    public var subject: String?
    /// Full-text search over subject, sender, recipients and text (see `FullTextQuery`).
    public var query: String?
    /// Only messages that arrived after this point.
    public var after: MessageCursor?
    /// Only messages with at least one extracted code.
    public var requireCode: Bool
    /// Structured conditions, all of which must hold (see `MessageCondition`).
    public var conditions: [MessageCondition] = []
    /// Page size (1...`maximumLimit`) and number of matches to skip, newest first.
    public var limit: Int
    public var offset: Int

    public static let maximumLimit = 1000
    public static let maximumOffset = 10_000_000
    /// Longest `to`, `from` or `subject` value, in UTF-8 bytes.
    public static let maximumTextLength = 1024

    public init(to: String? = nil, from: String? = nil, subject: String? = nil, query: String? = nil,
                after: MessageCursor? = nil, requireCode: Bool = false, limit: Int = 50, offset: Int = 0) {
        self.to = to
        self.from = from
        self.subject = subject
        self.query = query
        self.after = after
        self.requireCode = requireCode
        self.limit = limit
        self.offset = offset
    }

    /// The key the recipient index uses for an address: trimmed, without angle brackets, lowercase.
    public static func normalizeAddress(_ address: String) -> String {
        var trimmed = Substring(address)
        while let first = trimmed.first, first.isWhitespace || first == "<" { trimmed.removeFirst() }
        while let last = trimmed.last, last.isWhitespace || last == ">" { trimmed.removeLast() }
        return trimmed.lowercased()
    }
}

/// A point in the arrival order: after the message with this id (which may since have been
/// deleted), or after a time in milliseconds since the epoch.
public enum MessageCursor: Sendable, Equatable {
    case id(String)
    case time(Int64)
}

/// One page of a listing and how many messages match in all.
public struct MessagePage: Sendable, Equatable {
    public var total: Int
    public var items: [StoredMessageSummary]
}
