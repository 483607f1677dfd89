/// Versioned schema migrations kept in `PRAGMA user_version` (GRDB's `DatabaseMigrator`, with
/// the version number as the record of what ran).
///
/// Migration N (1-based, in registration order) brings the schema from version N-1 to N. Each
/// runs in its own IMMEDIATE transaction together with the `user_version` bump, so a crash leaves
/// the database at a version boundary. A database whose version is above the last registered
/// migration was written by a newer build, and opening it fails with a clear error rather than
/// running against a schema this code does not know.
///
/// A migration that rebuilds a table others reference can ask for foreign keys to be off while
/// it runs (SQLite's own procedure for such changes: the pragma is a no-op inside a
/// transaction, so the migrator sets it around one); otherwise dropping the old parent table
/// would cascade into its children.
public struct DatabaseMigrator: Sendable {
    public struct Migration: Sendable {
        public let name: String
        /// Foreign key enforcement is switched off around this migration, and not re-checked.
        let withoutForeignKeys: Bool
        let apply: @Sendable (Database) throws -> Void
    }

    public private(set) var migrations: [Migration] = []

    public init() {}

    /// Appends the migration to version `migrations.count + 1`.
    public mutating func registerMigration(_ name: String, withoutForeignKeys: Bool = false,
                                           _ apply: @escaping @Sendable (Database) throws -> Void) {
        migrations.append(Migration(name: name, withoutForeignKeys: withoutForeignKeys, apply: apply))
    }

    /// The highest version this migrator knows.
    public var latestVersion: Int { migrations.count }

    /// The schema version stored in the database.
    public static func version(of db: Database) throws -> Int {
        try db.fetchScalar(Int.self, "PRAGMA user_version") ?? 0
    }

    /// Applies every pending migration up to `target` (default: all). Returns the final version.
    @discardableResult
    public func migrate(_ db: Database, upTo target: Int? = nil) throws -> Int {
        let target = min(target ?? latestVersion, latestVersion)
        let current = try Self.version(of: db)
        if current > latestVersion {
            throw DatabaseError.schemaTooNew(path: db.path, found: current, supported: latestVersion)
        }
        guard current < target else { return current }
        for version in (current + 1)...target {
            let migration = migrations[version - 1]
            // Switched off only if on, and back on afterwards, also when the migration fails.
            let restoreForeignKeys = try migration.withoutForeignKeys
                && db.fetchScalar(Int.self, "PRAGMA foreign_keys") == 1
            if restoreForeignKeys { try db.execute("PRAGMA foreign_keys = OFF") }
            defer { if restoreForeignKeys { try? db.execute("PRAGMA foreign_keys = ON") } }
            try db.inTransaction(.immediate) {
                // Re-read inside the write lock: another process may have migrated meanwhile.
                guard try Self.version(of: db) == version - 1 else { return }
                try migration.apply(db)
                try db.execute("PRAGMA user_version = \(version)")
            }
        }
        return try Self.version(of: db)
    }
}
