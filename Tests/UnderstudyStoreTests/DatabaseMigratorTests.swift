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

    @Test func upgradesAVersion3StoreWithIndexedPendingAndDeletedMessages() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/v3.sqlite"
        let db = try Database(path: path)
        try MessageStore.registerFunctions(db)
        #expect(try MessageStore.migrator.migrate(db, upTo: 3) == 3)
        try db.execute("PRAGMA foreign_keys = ON")  // as the store's connections had it
        // Version 3 as a running build left it: 1-3 indexed, 4 deleted after indexing, 5-6 queued,
        // 7 (the newest) deleted while queued, so the AUTOINCREMENT counter is above every row.
        for seq in 1...7 {
            try db.execute("""
                INSERT INTO messages (seq, id, received_at, size, envelope_from, envelope_to, header_from, header_to,
                                      header_cc, subject, message_id, date, snippet, codes, attachments)
                VALUES (?, ?, ?, 3, 'a@example.com', '["v3@example.com"]', NULL, '["Other <o@example.com>"]',
                        '[]', ?, NULL, NULL, '', '[]', '[]')
                """, arguments: [.integer(Int64(seq)), .text("01JDZZZZZZZZZZZZZZZZZZZZ0\(seq)"),
                                 .integer(1_733_000_000_000 + Int64(seq)), .text("subject\(seq) legacy")])
            try db.execute("INSERT INTO recipients (address, seq) VALUES ('v3@example.com', ?), ('o@example.com', ?)",
                           arguments: [.integer(Int64(seq)), .integer(Int64(seq))])
            try db.execute("INSERT INTO message_bodies (seq, text, html, links, raw) VALUES (?, 'body', NULL, '[]', x'41')",
                           arguments: [.integer(Int64(seq))])
            if seq == 4 {  // what indexPendingSearch did in version 3
                try db.execute("""
                    INSERT INTO message_search (rowid, subject, sender, recipients, body)
                    SELECT m.seq, \(MessageStore.searchFields("m")), understudy_index_text(b.text)
                    FROM search_pending p JOIN messages m ON m.seq = p.seq JOIN message_bodies b ON b.seq = p.seq;
                    DELETE FROM search_pending;
                    """)
            }
        }
        try db.execute("DELETE FROM messages WHERE seq IN (4, 7)")
        #expect(try db.fetchColumn(Int64.self, "SELECT seq FROM search_pending ORDER BY seq") == [5, 6])
        db.close()

        let store = try MessageStore(location: .file(path))
        defer { store.close() }
        let check = try Database(path: path)
        #expect(try DatabaseMigrator.version(of: check) == MessageStore.migrator.latestVersion)
        #expect(try check.fetchScalar(Int64.self, "SELECT indexed_through FROM search_state") == 4)
        #expect(try check.fetchColumn(String.self, """
            SELECT name FROM sqlite_master WHERE name IN ('search_pending', 'messages_received_at', 'recipients_seq')
            """).isEmpty)
        check.close()
        #expect(store.unindexedCount == 2)
        #expect(try store.count() == 5)
        #expect(try store.message(id: "01JDZZZZZZZZZZZZZZZZZZZZ05")?.text == "body")  // bodies kept in place
        let newer = try store.insert(sample(8, to: "v3@example.com", subject: "subject8 legacy"))
        #expect(try store.raw(id: "01JDZZZZZZZZZZZZZZZZZZZZ05") == [0x41])  // from before the log: in its body row
        #expect(try store.raw(id: newer) == sample(8, to: "v3@example.com", subject: "subject8 legacy").raw)  // from the log
        #expect(try store.list(MessageFilter(query: "legacy")).total == 6)  // 5 and 6 caught up
        #expect(try store.list(MessageFilter(query: "subject4")).total == 0)
        #expect(try store.list(MessageFilter(query: "subject7")).total == 0)
        #expect(try store.list(MessageFilter(to: "o@example.com")).total == 5)
        #expect(try store.delete(id: "01JDZZZZZZZZZZZZZZZZZZZZ02"))  // indexed before the upgrade
        #expect(try store.list(MessageFilter(query: "subject2")).total == 0)
        #expect(try store.list(MessageFilter(to: "v3@example.com")).items.first?.id == newer)
        try store.verifyIntegrity()
    }

    @Test func upgradesAVersion5StoreToReadStateAndTags() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/v5.sqlite"
        let db = try Database(path: path)
        try MessageStore.registerFunctions(db)
        #expect(try MessageStore.migrator.migrate(db, upTo: 5) == 5)
        try db.execute("""
            INSERT INTO messages (seq, id, received_at, size, envelope_from, envelope_to, header_from, header_to,
                                  header_cc, subject, message_id, date, snippet, codes, attachments, recipient_keys)
            VALUES (1, '01JDZZZZZZZZZZZZZZZZZZZZZZ', 1733000000000, 1, 'a@example.com', '["v5@example.com"]',
                    NULL, '[]', '[]', 'Before tags', NULL, NULL, '', '[]', '[]', '["v5@example.com"]');
            INSERT INTO recipients (address, seq) VALUES ('v5@example.com', 1);
            INSERT INTO message_bodies (seq, text, html, links, raw) VALUES (1, 'old', NULL, '[]', x'41');
            """)
        db.close()

        let store = try MessageStore(location: .file(path))
        defer { store.close() }
        let old = try #require(try store.message(id: "01JDZZZZZZZZZZZZZZZZZZZZZZ"))
        #expect(old.summary.isRead == false && old.summary.tags.isEmpty && old.summary.source == nil)
        #expect(try store.setTags(["kept"], ids: [old.id]) == 1)
        #expect(try store.setRead(true, ids: [old.id]) == 1)
        #expect(try store.message(id: old.id)?.summary.tags == ["kept"])
        #expect(try store.unreadCount() == 0)
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

    @Test func aMigrationWithoutForeignKeysRebuildsAParentAndKeepsItsChildren() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("parent and child") { db in
            try db.execute("""
                CREATE TABLE parent (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
                CREATE TABLE child (id INTEGER PRIMARY KEY REFERENCES parent (id) ON DELETE CASCADE, data TEXT);
                INSERT INTO parent (id, name) VALUES (1, 'a'), (2, 'b');
                INSERT INTO child (id, data) VALUES (1, 'kept'), (2, 'kept too');
                """)
        }
        let rebuild = """
            CREATE TABLE parent_new (id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO parent_new SELECT id, name FROM parent;
            DROP TABLE parent;
            ALTER TABLE parent_new RENAME TO parent;
            """
        migrator.registerMigration("rebuild the parent", withoutForeignKeys: true) { db in try db.execute(rebuild) }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let db = try Database(path: scratch.path + "/fk.sqlite")
        defer { db.close() }
        try db.execute("PRAGMA foreign_keys = ON")
        #expect(try migrator.migrate(db) == 2)
        #expect(try db.fetchScalar(Int.self, "SELECT count(*) FROM child") == 2)
        #expect(try db.fetchScalar(Int.self, "PRAGMA foreign_keys") == 1)  // back on
        try db.execute("DELETE FROM parent WHERE id = 1")  // the reference names the new table
        #expect(try db.fetchColumn(String.self, "SELECT data FROM child") == ["kept too"])

        // The same rebuild with foreign keys on empties the child through the cascade.
        var plain = DatabaseMigrator()
        plain.registerMigration("parent and child", migrator.migrations[0].apply)
        plain.registerMigration("rebuild the parent") { db in try db.execute(rebuild) }
        let other = try Database(path: scratch.path + "/cascade.sqlite")
        defer { other.close() }
        try other.execute("PRAGMA foreign_keys = ON")
        #expect(try plain.migrate(other) == 2)
        #expect(try other.fetchScalar(Int.self, "SELECT count(*) FROM child") == 0)
    }

    @Test func foreignKeysComeBackOnWhenAMigrationWithoutThemFails() throws {
        struct Broken: Error {}
        var migrator = DatabaseMigrator()
        migrator.registerMigration("one", withoutForeignKeys: true) { db in
            #expect(try db.fetchScalar(Int.self, "PRAGMA foreign_keys") == 0)
            try db.execute("CREATE TABLE a (x)")
            throw Broken()
        }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let db = try Database(path: scratch.path + "/fkfail.sqlite")
        defer { db.close() }
        try db.execute("PRAGMA foreign_keys = ON")
        #expect(throws: Broken.self) { try migrator.migrate(db) }
        #expect(try DatabaseMigrator.version(of: db) == 0)
        #expect(try db.fetchScalar(Int.self, "PRAGMA foreign_keys") == 1)
        // A connection that had them off keeps them off.
        try db.execute("PRAGMA foreign_keys = OFF")
        #expect(throws: Broken.self) { try migrator.migrate(db) }
        #expect(try db.fetchScalar(Int.self, "PRAGMA foreign_keys") == 0)
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
