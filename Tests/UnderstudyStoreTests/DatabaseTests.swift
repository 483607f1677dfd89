import Dispatch
import Glibc
import Testing
@testable import UnderstudyStore

private struct Pair: RowDecodable, Equatable {
    var id: Int64
    var value: DatabaseValue
    init(row: Row) throws {
        id = try row.value(at: 0)
        value = row[1]
    }
}

@Suite struct DatabaseTests {
    @Test func bindsAndReadsEveryType() throws {
        let pool = try DatabasePool(location: .temporary)
        defer { pool.close() }
        let values: [DatabaseValue] = [.null, .integer(Int64.min), .integer(Int64.max), .double(-0.5), .text(""),
                                       .text("naïve \u{0} 验证"), .blob([]), .blob([0, 255, 0])]
        let rows = try pool.write { db in
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
            for (n, value) in values.enumerated() {
                try db.execute("INSERT INTO t (id, v) VALUES (?, ?)", arguments: [.integer(Int64(n)), value])
            }
            return try db.fetchAll(Pair.self, "SELECT id, v FROM t ORDER BY id").map(\.value)
        }
        #expect(rows == values)
        let text = try pool.read { db in try db.fetchScalar(String.self, "SELECT v FROM t WHERE id = 5") }
        #expect(text == "naïve \u{0} 验证")
        #expect(try pool.read { db in try db.fetchScalar(Int.self, "SELECT v FROM t WHERE id = 0") } == nil)
    }

    @Test func errorsCarryTheResultCodeAndDecodingFailuresAreErrors() throws {
        let pool = try DatabasePool(location: .temporary)
        defer { pool.close() }
        try pool.write { db in try db.execute("CREATE TABLE t (k TEXT UNIQUE NOT NULL)") }
        try pool.write { db in try db.execute("INSERT INTO t VALUES (?)", arguments: ["a"]) }
        let unique = #expect(throws: DatabaseError.self) {
            try pool.write { db in try db.execute("INSERT INTO t VALUES (?)", arguments: ["a"]) }
        }
        #expect(unique?.resultCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(unique?.primaryResultCode == 19)
        #expect(unique?.message.contains("UNIQUE") == true)
        let syntax = #expect(throws: DatabaseError.self) { try pool.read { db in try db.execute("SELEC 1") } }
        #expect(syntax?.primaryResultCode == 1)
        let decoding = #expect(throws: DatabaseError.self) {
            try pool.read { db in try db.fetchScalar(Int64.self, "SELECT k FROM t") }
        }
        #expect(decoding?.isDecodingError == true)
        #expect(throws: DatabaseError.self) { try pool.read { db in try db.execute("SELECT ?", arguments: []) } }
    }

    @Test func writesRollBackWhenTheBodyThrows() throws {
        struct Abort: Error {}
        let pool = try DatabasePool(location: .temporary)
        defer { pool.close() }
        try pool.write { db in try db.execute("CREATE TABLE t (x)") }
        #expect(throws: Abort.self) {
            try pool.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        #expect(try pool.read { db in try db.fetchScalar(Int.self, "SELECT count(*) FROM t") } == 0)
        let inside = try pool.write { db in db.isInsideTransaction }
        #expect(inside)
    }

    /// SQLite only rewinds the WAL when a write begins with every frame checkpointed; with a writer
    /// committing during every checkpoint that never happens and the log grows without end. The
    /// pool's checkpoint must keep it bounded while writes go on.
    @Test func theLogStaysBoundedWhileWritesGoOn() throws {
        let pool = try DatabasePool(location: .temporary, migrator: DatabaseMigrator(), walRewindFrames: 32,
                                    prepare: { _ in })
        defer { pool.close() }
        try pool.write { db in try db.execute("CREATE TABLE t (b BLOB)") }
        let transactions = 6000  // about 3 frames each: 74 MiB of log if it never rewinds
        let group = DispatchGroup()
        let failures = DispatchQueue(label: "failures")
        nonisolated(unsafe) var failure: (any Error)?
        DispatchQueue.global().async(group: group) {
            let blob = DatabaseValue.blob([UInt8](repeating: 7, count: 4000))
            do {
                for _ in 0..<transactions {
                    try pool.write { db in try db.execute("INSERT INTO t (b) VALUES (?)", arguments: [blob]) }
                }
            } catch {
                failures.sync { failure = error }
            }
        }
        var rewinds = 0
        var lastLog = 0
        while group.wait(timeout: .now() + .milliseconds(2)) == .timedOut {
            guard let result = pool.checkpoint() else { continue }
            if result.logFrames < lastLog { rewinds += 1 }
            lastLog = result.logFrames
        }
        try failures.sync { if let failure { throw failure } }
        // The log started over while the writes went on, and never came near its unbounded size
        // (how far it gets between rewinds depends on how busy the machine is).
        #expect(rewinds > 0)
        var info = stat()
        #expect(stat(pool.path + "-wal", &info) == 0)
        #expect(info.st_size < 24 << 20, "the log reached \(info.st_size) bytes")
        #expect(try pool.read { db in try db.fetchScalar(Int.self, "SELECT count(*) FROM t") } == transactions)
        pool.close()
        #expect(pool.checkpoint() == nil)  // a closed pool has nothing to checkpoint
    }

    @Test func connectionsUseWALNormalSyncAndForeignKeys() throws {
        let pool = try DatabasePool(location: .temporary)
        defer { pool.close() }
        let settings = try pool.read { db in
            [try db.fetchScalar(String.self, "PRAGMA journal_mode"),
             try db.fetchScalar(Int.self, "PRAGMA synchronous").map(String.init),
             try db.fetchScalar(Int.self, "PRAGMA foreign_keys").map(String.init),
             try db.fetchScalar(Int.self, "PRAGMA busy_timeout").map(String.init)]
        }
        #expect(settings == ["wal", "1", "1", "5000"])
        // The reader connection cannot write.
        #expect(throws: DatabaseError.self) { try pool.read { db in try db.execute("CREATE TABLE x (y)") } }
    }

    @Test func rejectsUnusablePaths() {
        #expect(throws: DatabaseError.self) { try DatabasePool(location: .file("/nonexistent-dir/x/mail.sqlite")) }
        #expect(throws: DatabaseError.self) { try DatabasePool(location: .file("")) }
    }
}
