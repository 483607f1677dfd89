#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import UnderstudyStore

/// The store's two steps, appending to the log and indexing, and what happens between them.
@Suite struct MessageStoreLogTests {
    @Test func rawBytesComeFromTheLogAndTheDatabaseKeepsNoCopy() throws {
        let store = try makeStore()
        defer { store.close() }
        let message = sample(1, text: String(repeating: "payload ", count: 500))
        let id = try store.insert(message)
        #expect(try store.raw(id: id) == message.raw)
        let blob = try store.pool.read { db in try db.fetchScalar(Int.self, "SELECT sum(length(raw)) FROM message_bodies") }
        #expect(blob == 0)
    }

    @Test func appendedMessagesAreInvisibleUntilIndexedAndKeepTheirIds() throws {
        let store = try makeStore()
        defer { store.close() }
        let messages = (0..<3).map { sample($0) }
        let logged = try messages.map { try store.append($0) }
        #expect(logged.map(\.id) == logged.map(\.id).sorted())
        #expect(try store.count() == 0)
        #expect(try store.message(id: logged[0].id) == nil)
        try store.index(Array(zip(messages, logged)))
        #expect(try store.count() == 3)
        #expect(try store.list().items.map(\.id) == logged.map(\.id).reversed())
        #expect(try store.raw(id: logged[2].id) == messages[2].raw)
    }

    @Test func messagesAppendedButNeverIndexedAreIndexedWhenTheStoreOpensAgain() throws {
        // What a SIGKILL between the SMTP 250 and the index's commit leaves: records in the log
        // past the position the database holds. Copying the files while the store is open gives
        // exactly that state on disk.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/live.sqlite"
        let store = try MessageStore(location: .file(path))
        defer { store.close() }
        let indexed = try store.insert(batch: (0..<4).map { sample($0, subject: "indexed \($0)") })
        let pending = try (4..<7).map { try store.append(sample($0, to: "late@example.com", subject: "pending \($0)")) }
        #expect(try store.count() == 4)

        let crashed = scratch.path + "/crashed.sqlite"
        try copyStoreAsKilled(path, to: crashed)
        let recovered = try MessageStore(location: .file(crashed), recover: { record in
            var message = MessageStore.rawOnly(record)
            message.subject = "recovered from \(record.envelopeTo.joined())"
            return message
        })
        defer { recovered.close() }
        #expect(try recovered.count() == 7)
        #expect(try recovered.message(id: indexed[3])?.summary.subject == "indexed 3")
        for logged in pending {
            let message = try #require(try recovered.message(id: logged.id))
            #expect(message.summary.subject == "recovered from late@example.com")
            #expect(try recovered.raw(id: logged.id) == sample(4, to: "late@example.com", subject: "pending 4").raw
                    || logged.id != pending[0].id)
        }
        #expect(try recovered.list(MessageFilter(to: "late@example.com")).total == 3)
        // New ids follow the recovered ones; opening once more recovers nothing twice.
        let newer = try recovered.insert(sample(9))
        #expect(newer > pending[2].id)
        try recovered.verifyIntegrity()
        recovered.close()
        let again = try MessageStore(location: .file(crashed))
        defer { again.close() }
        #expect(try again.count() == 8)
    }

    @Test func aLongLogPastTheIndexIsIndexedInRunsOnOpening() throws {
        // The database lost (deleted, or copied without its log's progress): everything in the
        // log is indexed again, a run at a time, with retention applied as it goes.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/lost.sqlite"
        let store = try MessageStore(location: .file(path), maxMessages: 500)
        let logged = try (0..<700).map { try store.append(sample($0)) }
        store.close()
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        let reopened = try MessageStore(location: .file(path), maxMessages: 500)
        defer { reopened.close() }
        #expect(try reopened.count() <= 500)
        #expect(try reopened.list(MessageFilter(limit: 1)).items.first?.id == logged[699].id)
        #expect(try reopened.raw(id: logged[699].id) == sample(699).raw)
        #expect(try reopened.insert(sample(700)) > logged[699].id)
        try reopened.verifyIntegrity()
    }

    @Test func segmentsGoOnceRetentionOrDeletionEmptiesThem() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/small.sqlite"
        let store = try MessageStore(location: .file(path), maxMessages: 100, logSegmentBytes: 8192)
        defer { store.close() }
        let body = String(repeating: "x", count: 3000)
        for n in 0..<60 { try store.insert(sample(n, text: body)) }
        let segmentsBefore = try MessageLog.listSegments(path + "-messages")
        #expect(segmentsBefore.count >= 20)
        // Past the limit, the oldest messages go, and with them the segments that held only them.
        for n in 60..<200 { try store.insert(sample(n, text: body)) }
        #expect(try store.count() <= 100)
        let kept = try MessageLog.listSegments(path + "-messages")
        #expect(kept.first! > segmentsBefore.first!)
        #expect(kept.count <= 100 / 2 + 2)
        let oldest = try #require(try store.list(MessageFilter(limit: 200)).items.last)
        #expect(try store.raw(id: oldest.id)?.isEmpty == false)
        // Deleting everything leaves only the segment being appended to.
        try store.deleteAll()
        #expect(try MessageLog.listSegments(path + "-messages").count == 1)
        let after = try store.insert(sample(300))
        #expect(try store.raw(id: after) == sample(300).raw)
    }

    @Test func aStoreInUseByAnotherProcessIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/shared.sqlite"
        let first = try MessageStore(location: .file(path))
        // Another open file description of the lock stands in for another process.
        let error = #expect(throws: DatabaseError.self) { try MessageStore(location: .file(path)) }
        #expect(error?.message.contains("another process is using this store") == true)
        first.close()
        let again = try MessageStore(location: .file(path))  // released on close
        again.close()
    }

    @Test func aTemporaryStoreRemovesItsLogWithIt() throws {
        let store = try makeStore()
        let directory = store.path + "-messages"
        try store.insert(sample(1))
        #expect(fileExists(directory))
        store.close()
        #expect(!fileExists(directory))
        #expect(!fileExists(store.path))
    }
}

/// Reading a stored message a piece at a time, as the HTTP API streams it.
@Suite struct RawMessageReaderTests {
    func readAll(_ reader: RawMessageReader, piece: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let bytes = try reader.read(upTo: piece)
            if bytes.isEmpty { return out }
            #expect(bytes.count <= piece)
            out += bytes
        }
    }

    @Test func readsTheLoggedRawMessageByteForByteInPieces() throws {
        let store = try makeStore()
        defer { store.close() }
        var message = sample(1, text: String(repeating: "0123456789abcdef", count: 40_000))   // 640 KB
        message.envelopeTo = ["a@example.com", "b@example.com", "c@example.com"]
        _ = try store.insert(sample(0))
        let id = try store.insert(message)
        for piece in [1000, 65536, 1 << 20] {
            let reader = try #require(try store.rawReader(id: id))
            #expect(reader.count == message.raw.count)
            let exact = try readAll(reader, piece: piece) == message.raw
            #expect(exact, "piece \(piece)")
            #expect(try reader.read(upTo: piece).isEmpty)   // closed at the end
        }
        #expect(try store.rawReader(id: "01JZZZZZZZZZZZZZZZZZZZZZZZ") == nil)
    }

    @Test func anOpenReaderStillReadsAfterTheMessageIsDeleted() throws {
        let store = try makeStore()
        defer { store.close() }
        let message = sample(2, text: String(repeating: "x", count: 100_000))
        let id = try store.insert(message)
        let reader = try #require(try store.rawReader(id: id))
        defer { reader.close() }
        let first = try reader.read(upTo: 10)
        #expect(try store.delete(id: id))   // its segment may be removed: the descriptor keeps it
        let exact = try first + readAll(reader, piece: 4096) == message.raw
        #expect(exact)
    }
}
