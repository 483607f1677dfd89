/// A request the mail store refuses: a malformed id, a search it cannot run, a message or filter
/// beyond the store's limits. (Failures of SQLite itself surface as `DatabaseError`.)
public struct MessageStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: Sendable, Equatable {
        case invalidQuery
        case invalidID
        case invalidMessage
        case invalidFilter
        case invalidConfiguration
    }

    private let code: Code
    /// What was wrong and what to do.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func invalidQuery(_ reason: String) -> MessageStoreError {
        MessageStoreError(.invalidQuery, "Invalid search: \(reason).")
    }

    static func invalidID(_ id: String) -> MessageStoreError {
        let shown = id.count > 40 ? String(id.prefix(40)) + "..." : id
        return MessageStoreError(.invalidID, "\"\(shown)\" is not a message id: ids are 26 characters of "
            + "Crockford base32, as returned when the message was stored.")
    }

    static func invalidMessage(_ reason: String) -> MessageStoreError {
        MessageStoreError(.invalidMessage, "Cannot store the message: \(reason).")
    }

    static func invalidFilter(_ reason: String) -> MessageStoreError {
        MessageStoreError(.invalidFilter, "Invalid message filter: \(reason).")
    }

    static func invalidConfiguration(_ reason: String) -> MessageStoreError {
        MessageStoreError(.invalidConfiguration, "Invalid store configuration: \(reason).")
    }

    public var isInvalidQuery: Bool { code == .invalidQuery }
    public var isInvalidID: Bool { code == .invalidID }
    public var isInvalidMessage: Bool { code == .invalidMessage }
    public var isInvalidFilter: Bool { code == .invalidFilter }
}
