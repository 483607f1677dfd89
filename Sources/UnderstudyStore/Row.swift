import CSQLite

/// A type built from one result row (GRDB's `FetchableRecord`, reduced to its core).
public protocol RowDecodable {
    init(row: Row) throws
}

/// The current row of a running statement. Valid only inside the `init(row:)` or closure it is
/// handed to: the statement moves on afterwards, so never keep a `Row`.
public struct Row {
    private let statement: OpaquePointer

    init(statement: OpaquePointer) {
        self.statement = statement
    }

    /// Number of columns.
    public var count: Int { Int(sqlite3_column_count(statement)) }

    /// The value of the column at `index` (0-based).
    public subscript(index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            return .double(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer = sqlite3_column_text(statement, column), count > 0 else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer = sqlite3_column_blob(statement, column), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default:
            return .null
        }
    }

    /// The column at `index` decoded as `Value`; throws when its type does not fit (NULL in a
    /// non-optional, text in an integer).
    public func value<Value: DatabaseValueConvertible>(at index: Int, as type: Value.Type = Value.self) throws
        -> Value
    {
        let raw = self[index]
        guard let value = Value(databaseValue: raw) else {
            throw DatabaseError.decoding(column: index, expected: "\(Value.self)", found: raw.typeName)
        }
        return value
    }
}

@available(*, unavailable)
extension Row: Sendable {}
