import Testing
@testable import UnderstudyStore

@Suite struct DatabaseMigratorTests {
    @Test func upgradesAVersion1StoreAndIndexesItsMessages() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/v1.sqlite"
        // Build a version-1 database the way an older build would have left it.
        let db = try Database(path: path)
        try MessageStore.registerFunctions(db)
        #expect(try MessageStore.migrator.migrate(db, upTo: 1) == 1)
        try db.execute("""
            INSERT INTO messages (seq, id, received_at, size, envelope_from, envelope_to, header_from, header_to,
                                  header_cc, subject, message_id, date, snippet, codes, attachments)
            VALUES (1, '01JDZZZZZZZZZZZZZZZZZZZZZZ', 1733000000000, 3, 'a@example.com', '["v1@example.com"]',
                    NULL, '[]', '[]', 'Legacy 验证码 message', NULL, NULL, '', '["424242"]', '[]');
            INSERT INTO recipients (address, seq) VALUES ('v1@example.com', 1);
            INSERT INTO message_bodies (seq, text, html, links, raw) VALUES (1, 'old body', NULL, '[]', x'414243');
            """)
        db.close()

        let store = try MessageStore(location: .file(path))
        defer { store.close() }
        let version = try Database(path: path)
        #expect(try DatabaseMigrator.version(of: version) == MessageStore.migrator.latestVersion)
        version.close()
        #expect(try store.list(MessageFilter(query: "legacy 验证码")).items.map(\.id) == ["01JDZZZZZZZZZZZZZZZZZZZZZZ"])
        #expect(try store.latest(to: "v1@example.com", requireCode: true)?.summary.codes == ["424242"])
        #expect(try store.raw(id: "01JDZZZZZZZZZZZZZZZZZZZZZZ") == Array("ABC".utf8))
        let newer = try store.insert(sample(1))
        #expect(newer > "01JDZZZZZZZZZZZZZZZZZZZZZZ")
        try store.verifyIntegrity()
    }

    @Test func refusesADatabaseFromANewerBuild() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/future.sqlite"
        let db = try Database(path: path)
        try db.execute("PRAGMA user_version = 99")
        db.close()
        let error = #expect(throws: DatabaseError.self) { try MessageStore(location: .file(path)) }
        #expect(error?.isSchemaTooNew == true)
        #expect(error?.message.contains("version 99") == true)
        #expect(error?.message.contains("newer") == true)
    }

    @Test func aFailingMigrationLeavesThePreviousVersion() throws {
        struct Broken: Error {}
        var migrator = DatabaseMigrator()
        migrator.registerMigration("one") { db in try db.execute("CREATE TABLE a (x)") }
        migrator.registerMigration("two") { db in
            try db.execute("CREATE TABLE b (x)")
            throw Broken()
        }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let db = try Database(path: scratch.path + "/m.sqlite")
        defer { db.close() }
        #expect(throws: Broken.self) { try migrator.migrate(db) }
        #expect(try DatabaseMigrator.version(of: db) == 1)
        #expect(try db.fetchScalar(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
        #expect(try migrator.migrate(db, upTo: 1) == 1)  // already there: nothing to do
    }
}
