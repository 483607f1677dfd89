#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An error from the SQLite layer: a failed SQLite call (with its extended result code and
/// message), a closed database, a row that does not decode, or a schema this build cannot use.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable, Equatable {
        case sqlite
        case closed
        case decoding
        case schemaTooNew
        case invalidPath
        case storage
    }

    private let code: Code
    /// The SQLite extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`, ...), or 0 when
    /// the error does not come from SQLite.
    public let resultCode: Int32
    /// What went wrong and what to do about it.
    public let message: String
    /// The SQL being run, when there was one.
    public let sql: String?
    /// The operating system's errno behind the failure (`sqlite3_system_errno`, or a failed
    /// write to the message log), 0 when there was none.
    public let systemErrno: Int32

    private init(_ code: Code, resultCode: Int32 = 0, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The primary result code (the low byte of `resultCode`), e.g. 19 for any constraint error.
    public var primaryResultCode: Int32 { resultCode & 0xFF }

    public var description: String {
        if let sql { return "SQLite error \(resultCode): \(message) (while running: \(sql.prefix(200)))" }
        return resultCode != 0 ? "SQLite error \(resultCode): \(message)" : message
    }

    static func sqlite(_ resultCode: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) -> DatabaseError {
        DatabaseError(.sqlite, resultCode: resultCode, message: message, sql: sql, systemErrno: systemErrno)
    }

    /// A write to the store's files failed with `errno` (the message log's, or a simulated one).
    static func storage(_ path: String, errno: Int32, doing operation: String) -> DatabaseError {
        DatabaseError(.storage, message: "Cannot \(operation) \(path): \(Self.errnoDescription(errno)).", systemErrno: errno)
    }

    static var closed: DatabaseError {
        DatabaseError(.closed, message: "The database is closed; open it again before using it.")
    }

    static func decoding(column: Int, expected: String, found: String) -> DatabaseError {
        DatabaseError(.decoding, message: "Column \(column) holds \(found) where \(expected) was expected; "
            + "the database content does not match this build's schema.")
    }

    static func decoding(_ message: String) -> DatabaseError {
        DatabaseError(.decoding, message: message)
    }

    static func schemaTooNew(path: String, found: Int, supported: Int) -> DatabaseError {
        DatabaseError(.schemaTooNew, message: "The database at \(path) has schema version \(found), but this "
            + "build understands versions up to \(supported): it was written by a newer understudy. "
            + "Run a newer build, or pass a different --data path.")
    }

    static func invalidPath(_ path: String, reason: String) -> DatabaseError {
        DatabaseError(.invalidPath, message: "Cannot use \(path) for the database: \(reason).")
    }

    /// True when a newer build wrote the database (see `DatabaseMigrator`).
    public var isSchemaTooNew: Bool { code == .schemaTooNew }
    /// True when the database was already closed.
    public var isClosed: Bool { code == .closed }
    /// True for a failed row decoding.
    public var isDecodingError: Bool { code == .decoding }

    /// The errno of a failure to write the store's files (a full disk, an I/O error, a file
    /// system gone read-only), nil for other errors: SQLite's SQLITE_FULL is ENOSPC.
    public var storageErrno: Int32? {
        switch code {
        case .storage: return systemErrno
        case .sqlite:
            switch primaryResultCode {
            case 13: return systemErrno != 0 ? systemErrno : ENOSPC  // SQLITE_FULL
            case 10: return systemErrno != 0 ? systemErrno : EIO     // SQLITE_IOERR
            case 8: return systemErrno != 0 ? systemErrno : EROFS    // SQLITE_READONLY
            default: return nil
            }
        default: return nil
        }
    }

    /// True when the store's disk (or quota) is full.
    public var isOutOfSpace: Bool { storageErrno == ENOSPC || storageErrno == EDQUOT }

    /// "No space left on device (ENOSPC)".
    public static func errnoDescription(_ code: Int32) -> String {
        let names: [Int32: String] = [
            ENOSPC: "ENOSPC", EDQUOT: "EDQUOT", EIO: "EIO", EROFS: "EROFS", EACCES: "EACCES", EPERM: "EPERM",
            EFBIG: "EFBIG", ENOMEM: "ENOMEM", EMFILE: "EMFILE", ENFILE: "ENFILE", ENOENT: "ENOENT",
        ]
        return "\(String(cString: strerror(code))) (\(names[code] ?? "errno \(code)"))"
    }
}
