import Testing
@testable import UnderstudyStore

/// Inserting queues messages for search; indexing happens in bulk, and searches never miss one.
@Suite struct DeferredIndexingTests {
    @Test func insertQueuesAndSearchCatchesUp() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.insert(batch: (0..<5).map { sample($0, text: "zebra number \($0)") })
        #expect(store.unindexedCount == 5)
        // A search indexes what is pending first.
        #expect(try store.list(MessageFilter(query: "zebra")).total == 5)
        #expect(store.unindexedCount == 0)
        try store.insert(sample(9, text: "zebra again"))
        #expect(try store.indexPendingSearch(limit: 10) == 1)
        #expect(try store.indexPendingSearch() == 0)
        #expect(try store.list(MessageFilter(query: "zebra")).total == 6)
    }

    @Test func indexingInChunks() throws {
        let store = try makeStore()
        defer { store.close() }
        try store.insert(batch: (0..<25).map { sample($0, text: "walrus \($0)") })
        #expect(try store.indexPendingSearch(limit: 10) == 10)
        #expect(store.unindexedCount == 15)
        #expect(try store.indexPendingSearch(limit: 10) == 10)
        #expect(try store.indexPendingSearch(limit: 10) == 5)
        #expect(store.unindexedCount == 0)
    }

    @Test func pendingCountSettlesWhenPendingMessagesAreDeleted() throws {
        // The pending count is kept, not recounted: deleting pending messages leaves it high,
        // and a chunk that comes back short or empty puts it right.
        let store = try makeStore()
        defer { store.close() }
        let ids = try store.insert(batch: (0..<20).map { sample($0, text: "heron \($0)") })
        for id in ids.suffix(10) { try store.delete(id: id) }
        #expect(store.unindexedCount == 20)
        #expect(try store.indexPendingSearch(limit: 10) == 10)
        #expect(store.unindexedCount == 10)  // still counts the deleted ten
        #expect(try store.indexPendingSearch(limit: 10) == 0)
        #expect(store.unindexedCount == 0)
        let more = try store.insert(batch: (20..<26).map { sample($0, text: "heron \($0)") })
        try store.delete(id: more[0])
        #expect(try store.indexPendingSearch(limit: 10) == 5)
        #expect(store.unindexedCount == 0)
        #expect(try store.list(MessageFilter(query: "heron")).total == 15)
        try store.verifyIntegrity()
    }

    /// Deleting a message that was never indexed must leave the index consistent, and so must
    /// deleting an indexed one; SQLite's FTS5 integrity check proves it.
    @Test func deletingIndexedAndPendingMessagesKeepsTheIndexSound() throws {
        let store = try makeStore(maxMessages: 4)
        defer { store.close() }
        let ids = try store.insert(batch: (0..<3).map { sample($0, text: "otter \($0)") })
        try store.indexPendingSearch()
        let pending = try store.insert(sample(3, text: "otter pending"))
        #expect(try store.delete(id: pending))
        #expect(try store.delete(id: ids[0]))
        // Pruning removes the oldest, pending or not.
        try store.insert(batch: (10..<16).map { sample($0, text: "otter bulk \($0)") })
        #expect(try store.count() == 4)
        #expect(try store.list(MessageFilter(query: "otter")).total == 4)
        try store.integrityCheck()
        _ = try store.deleteAll()
        #expect(store.unindexedCount == 0)
        #expect(try store.list(MessageFilter(query: "otter")).total == 0)
    }
}

extension MessageStore {
    /// FTS5's check of the index structure, and SQLite's of the whole file.
    func integrityCheck() throws {
        try pool.writeWithoutTransaction { db in
            try db.execute("INSERT INTO message_search (message_search) VALUES ('integrity-check')")
            try db.execute("PRAGMA integrity_check")
        }
    }
}
