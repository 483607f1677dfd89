import CSQLite
import CShims

/// One SQLite connection (GRDB's `Database`). Not Sendable: reach it only through
/// `DatabasePool.read { }` / `write { }`, which serialize access.
///
/// Statements are prepared once per SQL text and cached. `close()` closes the connection
/// explicitly; the owning handle also closes it on deinit as a safety net (it is a C object,
/// not a descriptor the caller tracks).
public final class Database {
    /// Where the connection's file lives.
    public let path: String
    private var connection: ConnectionHandle?
    private var statements: [String: PreparedStatement] = [:]
    /// Bound on the statement cache; the store uses a few dozen distinct statements.
    private static let statementCacheLimit = 64

    /// Opens (creating if needed) the database file at `path`.
    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw DatabaseError.sqlite(rc, message: "cannot open \(path): \(message)")
        }
        connection = ConnectionHandle(takingOwnershipOf: handle)
        sqlite3_extended_result_codes(handle, 1)
        if readOnly { try execute("PRAGMA query_only = ON") }
    }

    /// The C handle, for the module's own function registration. Throws once closed.
    func handle() throws -> OpaquePointer {
        guard let connection else { throw DatabaseError.closed }
        return connection.pointer
    }

    /// Finalizes cached statements and closes the connection. Safe to call twice.
    public func close() {
        statements.removeAll()
        connection?.close()
        connection = nil
    }

    public var isClosed: Bool { connection == nil }

    // MARK: Running SQL

    /// What one WAL checkpoint did: frames in the log, and how many of them are now in the
    /// database file.
    struct CheckpointResult: Equatable {
        var logFrames: Int
        var checkpointedFrames: Int
    }

    /// Copies committed WAL frames into the database file without waiting for anyone (a PASSIVE
    /// checkpoint: it stops at frames a reader still needs or a writer is adding).
    func checkpointPassive() throws -> CheckpointResult {
        let db = try handle()
        var logFrames: Int32 = 0
        var checkpointed: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &checkpointed)
        guard rc == SQLITE_OK || rc == SQLITE_BUSY else {
            throw DatabaseError.sqlite(rc, message: String(cString: sqlite3_errmsg(db)), sql: "wal_checkpoint")
        }
        return CheckpointResult(logFrames: Int(max(0, logFrames)), checkpointedFrames: Int(max(0, checkpointed)))
    }

    /// Runs one or more statements without arguments (schema changes, pragmas).
    public func execute(_ sql: String) throws {
        let db = try handle()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw DatabaseError.sqlite(sqlite3_extended_errcode(db), message: message, sql: sql, systemErrno: sqlite3_system_errno(db))
        }
    }

    /// Runs one statement with arguments, discarding any rows.
    public func execute(_ sql: String, arguments: [DatabaseValue]) throws {
        try withStatement(sql, arguments: arguments) { statement in
            while try statement.step() {}
        }
    }

    /// Every row of the result, decoded.
    public func fetchAll<Record: RowDecodable>(_ type: Record.Type, _ sql: String,
                                               arguments: [DatabaseValue] = []) throws -> [Record] {
        try withStatement(sql, arguments: arguments) { statement in
            var records: [Record] = []
            while try statement.step() {
                records.append(try Record(row: Row(statement: statement.pointer)))
            }
            return records
        }
    }

    /// The first row of the result, decoded, or nil when there is none.
    public func fetchOne<Record: RowDecodable>(_ type: Record.Type, _ sql: String,
                                               arguments: [DatabaseValue] = []) throws -> Record? {
        try withStatement(sql, arguments: arguments) { statement in
            guard try statement.step() else { return nil }
            return try Record(row: Row(statement: statement.pointer))
        }
    }

    /// The first column of every row.
    public func fetchColumn<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String,
                                                             arguments: [DatabaseValue] = []) throws -> [Value] {
        try withStatement(sql, arguments: arguments) { statement in
            var values: [Value] = []
            while try statement.step() {
                values.append(try Row(statement: statement.pointer).value(at: 0))
            }
            return values
        }
    }

    /// The first column of the first row, or nil when there is no row (or the value is NULL).
    public func fetchScalar<Value: DatabaseValueConvertible>(_ type: Value.Type, _ sql: String,
                                                             arguments: [DatabaseValue] = []) throws -> Value? {
        try withStatement(sql, arguments: arguments) { statement in
            guard try statement.step() else { return nil }
            return try Row(statement: statement.pointer).value(at: 0, as: Value?.self)
        }
    }

    /// Rowid of the last successful INSERT on this connection.
    public var lastInsertedRowID: Int64 {
        guard let connection else { return 0 }
        return sqlite3_last_insert_rowid(connection.pointer)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changedRowCount: Int {
        guard let connection else { return 0 }
        return Int(sqlite3_changes(connection.pointer))
    }

    // MARK: Transactions

    public enum TransactionKind: String, Sendable {
        /// Takes the write lock at the first write (reads).
        case deferred = "DEFERRED"
        /// Takes the write lock at once (writes: no SQLITE_BUSY upgrade deadlocks).
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func inTransaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue)")
        let value: T
        do {
            value = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        return value
    }

    /// True between BEGIN and COMMIT/ROLLBACK.
    public var isInsideTransaction: Bool {
        guard let connection else { return false }
        return sqlite3_get_autocommit(connection.pointer) == 0
    }

    // MARK: Statement cache

    private func withStatement<T>(_ sql: String, arguments: [DatabaseValue],
                                  _ body: (PreparedStatement) throws -> T) throws -> T {
        let db = try handle()
        let statement: PreparedStatement
        if let cached = statements[sql], !cached.isInUse {
            statement = cached
        } else {
            statement = try PreparedStatement(connection: db, sql: sql)
            if statements[sql] == nil {
                if statements.count >= Self.statementCacheLimit { statements.removeAll() }
                statements[sql] = statement
            }
        }
        statement.isInUse = true
        defer { statement.finish() }
        try statement.bind(arguments)
        return try body(statement)
    }
}

@available(*, unavailable)
extension Database: Sendable {}

/// Owns a `sqlite3*`.
private final class ConnectionHandle {
    private(set) var pointer: OpaquePointer
    private var isOpen = true

    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        // close_v2 defers the close until stray statements are finalized, so it never fails
        // with SQLITE_BUSY; the last connection to a WAL database checkpoints it here.
        sqlite3_close_v2(pointer)
    }

    deinit { close() }
}
