import Dispatch
import Glibc
import Synchronization
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
    /// committing during every checkpoint that never happens and the log grows without end. Once the
    /// log passes its rewind size, the pool's checkpoint must copy every frame (its last pass holds
    /// the writer's lock), so that the next write starts the log over. Driven step by step here, so
    /// the outcome does not depend on how the threads are scheduled.
    @Test func aCheckpointPastTheRewindSizeMakesTheNextWriteStartTheLogOver() throws {
        let pool = try DatabasePool(location: .temporary, migrator: DatabaseMigrator(), walRewindFrames: 32,
                                    checkpointsInBackground: false, prepare: { _ in })
        defer { pool.close() }
        try pool.write { db in try db.execute("CREATE TABLE t (b BLOB)") }
        let blob = DatabaseValue.blob([UInt8](repeating: 7, count: 4000))
        func insert(_ count: Int) throws {
            for _ in 0..<count {
                try pool.write { db in try db.execute("INSERT INTO t (b) VALUES (?)", arguments: [blob]) }
            }
        }
        let rounds = 40
        let perRound = 20  // about 3 frames each: 2,400 frames (9.8 MB) of log if it never rewinds
        var restarts = try #require(WALHeader(path: pool.path + "-wal")).restarts
        for round in 0..<rounds {
            try insert(perRound)
            let result = try #require(pool.checkpoint())
            #expect(result.logFrames >= 32, "round \(round): the log should have passed its rewind size")
            #expect(result.checkpointedFrames == result.logFrames, "round \(round): frames left uncopied")
            try insert(1)
            let header = try #require(WALHeader(path: pool.path + "-wal"))
            #expect(header.restarts == restarts &+ 1, "round \(round): the write did not start the log over")
            restarts = header.restarts
        }
        // A checkpoint below the rewind size copies without forcing anything.
        let small = try #require(pool.checkpoint())
        #expect(small.logFrames < 32)
        var info = stat()
        #expect(stat(pool.path + "-wal", &info) == 0)
        #expect(info.st_size < 1 << 20, "the log reached \(info.st_size) bytes")
        #expect(try pool.read { db in try db.fetchScalar(Int.self, "SELECT count(*) FROM t") } == rounds * (perRound + 1))
        pool.close()
        #expect(pool.checkpoint() == nil)  // a closed pool has nothing to checkpoint
    }

    /// The same with a writer committing on another thread during every checkpoint: each
    /// checkpoint past the rewind size still leads to a restart of the log. Rewinds are counted from
    /// the WAL header (SQLite bumps its checkpoint sequence number at each restart), not inferred
    /// from sizes reached under timing; the writer stops after three, or after a bounded count.
    @Test func theLogStartsOverWhileWritesGoOnConcurrently() throws {
        let pool = try DatabasePool(location: .temporary, migrator: DatabaseMigrator(), walRewindFrames: 32,
                                    checkpointsInBackground: false, prepare: { _ in })
        defer { pool.close() }
        try pool.write { db in try db.execute("CREATE TABLE t (b BLOB)") }
        let first = try #require(WALHeader(path: pool.path + "-wal")).restarts
        let stop = Atomic<Bool>(false)
        let written = Atomic<Int>(0)
        let maximum = 30_000
        let group = DispatchGroup()
        let failures = DispatchQueue(label: "failures")
        nonisolated(unsafe) var failure: (any Error)?
        DispatchQueue.global().async(group: group) {
            let blob = DatabaseValue.blob([UInt8](repeating: 7, count: 4000))
            do {
                while !stop.load(ordering: .acquiring), written.load(ordering: .relaxed) < maximum {
                    try pool.write { db in try db.execute("INSERT INTO t (b) VALUES (?)", arguments: [blob]) }
                    written.add(1, ordering: .relaxed)
                }
            } catch {
                failures.sync { failure = error }
            }
        }
        var rewinds = 0
        while group.wait(timeout: .now() + .milliseconds(1)) == .timedOut {
            pool.checkpoint()
            if let header = WALHeader(path: pool.path + "-wal") { rewinds = Int(header.restarts &- first) }
            if rewinds >= 3 { stop.store(true, ordering: .releasing) }
        }
        try failures.sync { if let failure { throw failure } }
        #expect(rewinds >= 3, "\(written.load(ordering: .relaxed)) writes, \(rewinds) restarts of the log")
        #expect(try pool.read { db in try db.fetchScalar(Int.self, "SELECT count(*) FROM t") } == written.load(ordering: .relaxed))
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

/// The fields of a WAL file's 32-byte header that tell whether the log started over.
private struct WALHeader {
    /// SQLite's checkpoint sequence number: one more each time a write starts the log over.
    var restarts: UInt32

    init?(path: String) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard pread(fd, &bytes, 32, 0) == 32 else { return nil }
        restarts = bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
