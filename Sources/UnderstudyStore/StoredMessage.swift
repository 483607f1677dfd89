/// A stored message with its decoded bodies. The raw bytes are read separately
/// (`MessageStore.raw(id:)`) so showing a message never loads a large original.
public struct StoredMessage: Sendable, Equatable, RowDecodable {
    public var summary: StoredMessageSummary
    public var text: String?
    public var html: String?
    public var linksJSON: String

    public var id: String { summary.id }

    static let columns = StoredMessageSummary.columns + ", b.text, b.html, b.links"

    public init(row: Row) throws {
        summary = try StoredMessageSummary(row: row)
        let base = StoredMessageSummary.columnCount
        text = try row.value(at: base)
        html = try row.value(at: base + 1)
        linksJSON = try row.value(at: base + 2)
    }
}
