import CSQLite
import CShims

/// Owns a `sqlite3_stmt*`.
final class PreparedStatement {
    let pointer: OpaquePointer
    let sql: String
    private let connection: OpaquePointer
    var isInUse = false

    init(connection: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw DatabaseError.sqlite(sqlite3_extended_errcode(connection),
                                       message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.pointer = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(pointer) }

    func bind(_ arguments: [DatabaseValue]) throws {
        let expected = Int(sqlite3_bind_parameter_count(pointer))
        guard expected == arguments.count else {
            throw DatabaseError.sqlite(SQLITE_RANGE, message: "the statement takes \(expected) arguments but "
                + "\(arguments.count) were given", sql: sql)
        }
        let transient = unsafeBitCast(CShims_sqlite_transient(), to: sqlite3_destructor_type.self)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch argument {
            case .null:
                rc = sqlite3_bind_null(pointer, index)
            case .integer(let value):
                rc = sqlite3_bind_int64(pointer, index, value)
            case .double(let value):
                rc = sqlite3_bind_double(pointer, index, value)
            case .text(var value):
                rc = value.withUTF8 { bytes in
                    // An empty buffer may have no base address, which would bind NULL.
                    guard let base = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_text(pointer, index, "", 0, transient)
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text64(pointer, index, $0, UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let value):
                rc = value.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_zeroblob(pointer, index, 0)
                    }
                    return sqlite3_bind_blob64(pointer, index, base, UInt64(bytes.count), transient)
                }
            }
            guard rc == SQLITE_OK else {
                throw DatabaseError.sqlite(rc, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
            }
        }
    }

    /// Advances to the next row: true when there is one, false when done.
    func step() throws -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError.sqlite(sqlite3_extended_errcode(connection),
                                       message: String(cString: sqlite3_errmsg(connection)), sql: sql,
                                       systemErrno: sqlite3_system_errno(connection))
        }
    }

    /// Resets the statement for its next use and releases bound values.
    func finish() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
        isInUse = false
    }
}
