@preconcurrency import Dispatch  // dispatch sources are thread-safe; Dispatch does not say so in Swift yet
import Synchronization

/// The Sendable door to a database file: one writer connection and one reader connection, each
/// behind its own lock, in WAL mode so a read never waits for a write (GRDB's `DatabasePool`,
/// reduced to one reader).
///
/// Every connection gets: a 5 s busy timeout, `foreign_keys = ON`, `synchronous = NORMAL` (in WAL
/// mode a committed transaction survives a crash or SIGKILL of the process; only an OS crash or
/// power loss can drop the last few commits), a bounded page cache and in-memory temp tables.
public final class DatabasePool: Sendable {
    /// Where the database lives.
    public enum Location: Sendable, Equatable {
        /// A file at this path (its directory must exist).
        case file(String)
        /// A fresh file in a new temporary directory, removed on `close()` or at process exit.
        case temporary
    }

    public let path: String
    private let writer: Mutex<Confined>
    private let reader: Mutex<Confined>
    /// A third connection that checkpoints the WAL in the background, so the fsync of a checkpoint
    /// never lands inside a writer's commit.
    private let checkpointer: Mutex<Confined>
    /// Nil when the caller drives `checkpoint()` itself (tests that need a deterministic order).
    private let checkpointTimer: DispatchSourceTimer?
    /// How often the WAL is checkpointed.
    static let checkpointInterval: DispatchTimeInterval = .milliseconds(250)
    private let temporaryDirectory: TemporaryDirectory?

    /// Opens the pool, then runs `prepare` on every connection (custom SQL functions) and
    /// `migrator` on the writer.
    public convenience init(location: Location, migrator: DatabaseMigrator = DatabaseMigrator()) throws {
        try self.init(location: location, migrator: migrator, prepare: { _ in })
    }

    init(location: Location, migrator: DatabaseMigrator, cacheKiB: Int = 8192, walRewindFrames: Int = 4096,
         checkpointsInBackground: Bool = true, prepare: (Database) throws -> Void) throws {
        self.walRewindFrames = walRewindFrames
        var temporaryDirectory: TemporaryDirectory?
        switch location {
        case .file(let path):
            guard !path.isEmpty, !path.utf8.contains(0) else {
                throw DatabaseError.invalidPath(path, reason: "the path is empty or contains a NUL byte")
            }
            self.path = path
        case .temporary:
            let directory = try TemporaryDirectory.make(prefix: "understudy-store")
            temporaryDirectory = directory
            self.path = directory.path + "/mail.sqlite"
        }
        do {
            let writer = try Database(path: path)
            do {
                try Self.configure(writer, cacheKiB: cacheKiB)
                let mode = try writer.fetchScalar(String.self, "PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError.invalidPath(path, reason: "it cannot use WAL journaling (got \(mode ?? "none")); "
                        + "use a local file system")
                }
                try prepare(writer)
                try migrator.migrate(writer)
                try writer.execute("PRAGMA wal_autocheckpoint = 0")
            } catch {
                writer.close()
                throw error
            }
            let reader = try Database(path: path, readOnly: true)
            do {
                try Self.configure(reader, cacheKiB: cacheKiB / 2)
                try prepare(reader)
            } catch {
                reader.close()
                writer.close()
                throw error
            }
            let checkpointer: Database
            do {
                checkpointer = try Database(path: path)
                try checkpointer.execute("PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL")
            } catch {
                reader.close()
                writer.close()
                throw error
            }
            self.writer = Mutex(Confined(database: writer))
            self.reader = Mutex(Confined(database: reader))
            self.checkpointer = Mutex(Confined(database: checkpointer))
        } catch {
            temporaryDirectory?.remove()
            throw error
        }
        self.temporaryDirectory = temporaryDirectory
        guard checkpointsInBackground else {
            checkpointTimer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "understudy.store.checkpoint"))
        checkpointTimer = timer
        timer.schedule(deadline: .now() + Self.checkpointInterval, repeating: Self.checkpointInterval)
        timer.setEventHandler { [weak self] in self?.checkpoint() }
        timer.resume()
    }

    /// Log size (in frames, 4 KiB each) from which a checkpoint also rewinds the log: 16 MiB.
    private let walRewindFrames: Int
    /// Frames added during a checkpoint pass below which the final pass takes the writer's lock.
    static let walCatchUpFrames = 256

    /// Copies committed WAL frames into the database file, and keeps the log from growing.
    ///
    /// The copy runs PASSIVE, beside the writer, and never holds it up. But SQLite only rewinds the
    /// log when a write transaction begins with every frame already copied, which never happens
    /// while mail keeps arriving: the writer appends during every copy. The log would then grow for
    /// as long as the load lasts (hundreds of MB in a minute), each commit landing on fresh blocks
    /// the file system must allocate and zero. So once the log is big, passive passes repeat (at
    /// most four more) until little arrives during one, then a last pass holds the writer's lock
    /// and copies that little (fsync included); the next write transaction starts the log over, on
    /// pages already cached. Returns nil once the pool is closed or on an SQLite error.
    @discardableResult
    func checkpoint() -> Database.CheckpointResult? {
        checkpointer.withLock { slot in
            guard let db = slot.database, var last = try? db.checkpointPassive() else { return nil }
            guard last.logFrames >= walRewindFrames else { return last }
            // Catch up without the lock while the writer keeps adding much during each pass, so the
            // pass under the lock (fsync included) has little left to copy.
            for _ in 0..<4 {
                guard let next = try? db.checkpointPassive() else { return nil }
                let added = next.logFrames - last.logFrames
                last = next
                if added < Self.walCatchUpFrames { break }
            }
            return writer.withLock { _ in try? db.checkpointPassive() }
        }
    }

    private static func configure(_ db: Database, cacheKiB: Int) throws {
        try db.execute("""
            PRAGMA busy_timeout = 5000;
            PRAGMA foreign_keys = ON;
            PRAGMA synchronous = NORMAL;
            PRAGMA cache_size = -\(cacheKiB);
            PRAGMA temp_store = MEMORY;
            """)
    }

    /// Runs `body` on the writer inside an IMMEDIATE transaction: committed when it returns,
    /// rolled back when it throws. Writes are serialized.
    public func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try writer.withLock { slot in
            guard let db = slot.database else { throw DatabaseError.closed }
            return try db.inTransaction(.immediate) { try body(db) }
        }
    }

    /// Runs `body` on the writer with no transaction around it (VACUUM, checkpoints, or
    /// statements that manage their own transactions).
    public func writeWithoutTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try writer.withLock { slot in
            guard let db = slot.database else { throw DatabaseError.closed }
            return try body(db)
        }
    }

    /// Runs `body` on the reader inside a read transaction, so it sees one consistent snapshot
    /// even while the writer commits. Reads are serialized among themselves only.
    public func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try reader.withLock { slot in
            guard let db = slot.database else { throw DatabaseError.closed }
            return try db.inTransaction(.deferred) { try body(db) }
        }
    }

    /// Closes both connections (the last one checkpoints the WAL into the main file) and, for a
    /// temporary store, deletes its directory. Later calls throw `DatabaseError.closed`.
    public func close() {
        checkpointTimer?.cancel()
        checkpointer.withLock { slot in
            slot.database?.close()
            slot.database = nil
        }
        reader.withLock { slot in
            slot.database?.close()
            slot.database = nil
        }
        writer.withLock { slot in
            slot.database?.close()
            slot.database = nil
        }
        temporaryDirectory?.remove()
    }

    /// A connection that only ever leaves its lock as a borrowed argument of `read`/`write`
    /// bodies, which cannot escape it: that confinement is what makes the transfer safe.
    private struct Confined: @unchecked Sendable {
        var database: Database?
    }

    /// True for a `.temporary` pool.
    public var isTemporary: Bool { temporaryDirectory != nil }
}
