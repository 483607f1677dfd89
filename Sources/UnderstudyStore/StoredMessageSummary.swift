/// A stored message without its bodies or raw bytes, as lists show it.
public struct StoredMessageSummary: Sendable, Equatable, RowDecodable {
    /// 26-character time-ordered id (ULID layout); string order is arrival order.
    public var id: String
    public var receivedAt: Int64
    /// Size of the raw message in bytes.
    public var size: Int
    public var envelopeFrom: String
    public var envelopeTo: [String]
    public var from: String?
    public var to: [String]
    public var cc: [String]
    public var subject: String?
    public var messageID: String?
    public var date: String?
    public var snippet: String
    public var codes: [String]
    public var attachmentsJSON: String
    /// Read state and tags (Mailpit's), and the way it came in (see `NewMessage.source`).
    public var isRead: Bool
    public var tags: [String]
    public var source: String?
    public var fromName: String?

    /// Columns in the order `init(row:)` reads them; `m` is the messages table.
    static let columns = """
        m.id, m.received_at, m.size, m.envelope_from, m.envelope_to, m.header_from, m.header_to, \
        m.header_cc, m.subject, m.message_id, m.date, m.snippet, m.codes, m.attachments, \
        m.is_read, m.tags, m.source, m.from_name
        """
    static let columnCount = 18

    public init(row: Row) throws {
        id = try row.value(at: 0)
        receivedAt = try row.value(at: 1)
        size = try row.value(at: 2)
        envelopeFrom = try row.value(at: 3)
        envelopeTo = try StringListCoding.decode(row.value(at: 4))
        from = try row.value(at: 5)
        to = try StringListCoding.decode(row.value(at: 6))
        cc = try StringListCoding.decode(row.value(at: 7))
        subject = try row.value(at: 8)
        messageID = try row.value(at: 9)
        date = try row.value(at: 10)
        snippet = try row.value(at: 11)
        codes = try StringListCoding.decode(row.value(at: 12))
        attachmentsJSON = try row.value(at: 13)
        isRead = try row.value(at: 14)
        tags = try StringListCoding.decode(row.value(at: 15))
        source = try row.value(at: 16)
        fromName = try row.value(at: 17)
    }
}
