import CSQLite
import CShims
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The mail sink's message store: an append-only log of raw messages (`MessageLog`), indexed by
/// SQLite in WAL mode, with one serialized writer and reads on a second connection that never
/// waits for writes.
///
/// Storing is two steps: `append` writes the raw message to the log (from then on it survives a
/// crash of the process) and gives it its id; `index` puts a run of appended messages into SQLite
/// in one transaction, together with how far into the log the index reaches. On opening, records
/// past that point are indexed again (through the `recover` function the owner supplies, which
/// decodes them as ingest would have). `insert` does both steps at once.
///
/// Ids: each message has an integer `seq` (its rowid, assigned by the writer, increasing) that
/// orders and joins everything internally, and a public 26-character id (ULID layout, see
/// `MessageIDGenerator`) that sorts in the same order. Only the public id leaves the store.
///
/// Tables: `messages` (headers, envelope, snippet, codes: small, so listing stays in a few pages),
/// `message_bodies` (text, html and links, read only for one message; the raw bytes of messages
/// stored before the log existed), `log_state` (how far the index reaches into the log),
/// `recipients` (one row per lowercase address of envelope, To and Cc, keyed (address, seq) so
/// "newest messages to X" walks one index backwards), `message_search` (contentless FTS5 over
/// subject, sender, recipients and text; see `FullTextQuery`) and `search_state` (how far the
/// index has got). Deleting a message deletes its body through the foreign key's cascade, and its
/// recipient rows through a trigger.
///
/// The schema is shaped for the commit path: a transaction writes every B-tree page it touches
/// whole, to the WAL and later to the database, and under steady mail most commits carry one or
/// two messages. So a message touches as few B-trees as it can: no AUTOINCREMENT counter, no
/// foreign key on `recipients` (and so no index on `recipients.seq`: a trigger deletes by
/// address and seq), no time index (ids encode the arrival time), and no queue table for the
/// search index (a watermark instead).
///
/// Retention: when an insert takes the count past `maxMessages`, the oldest messages are deleted
/// in the same transaction, down to `pruneSlack` below the limit, so the count never exceeds the
/// limit and the pages of deleted messages are written once for a run of them, not per insert.
public final class MessageStore: Sendable {
    /// Default number of messages kept.
    public static let defaultMaxMessages = 5000

    public let maxMessages: Int
    let pool: DatabasePool
    let log: MessageLog
    private let writerState: Mutex<WriterState>
    /// Ids are given out in log order: the generator moves only while a record is appended.
    private let appender: Mutex<MessageIDGenerator>
    /// Test seam (see `failIndexWrites`): nonzero makes every write transaction fail with it.
    private let injectedWriteErrno = Atomic<Int32>(0)

    private struct WriterState {
        var count: Int
        /// The last `seq` given out; never handed out again by this process.
        var lastSeq: Int64
        /// Every message with `seq` up to this is in the search index (`search_state`).
        var indexedThrough: Int64
        /// Messages stored but not yet in the search index (see `indexPendingSearch`).
        var unindexed: Int
        /// The end of the last log record indexed (`log_state`).
        var logIndexedThrough: Int64
        /// Messages from this seq on have their raw bytes in the log.
        var firstLoggedSeq: Int64
    }

    /// What `append` gives back: the new message's id and its place in the log, for `index`.
    public struct LoggedMessage: Sendable, Equatable {
        public let id: String
        let position: Int64
        let end: Int64
    }

    /// Decodes a log record that was never indexed, when the store is opened again.
    public typealias Recover = @Sendable (MessageLogRecord) -> NewMessage

    /// Without a decoder, a recovered message keeps its envelope and raw bytes only.
    public static let rawOnly: Recover = { record in
        NewMessage(receivedAt: record.receivedAt, raw: record.raw, envelopeFrom: record.envelopeFrom,
                   envelopeTo: record.envelopeTo)
    }

    /// Opens (creating and migrating as needed) the store at `location`, and indexes what the log
    /// holds beyond the index, decoding it with `recover`. The log lives in a directory named
    /// after the database file with `-messages` appended.
    public init(location: DatabasePool.Location, maxMessages: Int = MessageStore.defaultMaxMessages,
                logSegmentBytes: Int = 64 << 20, recover: Recover = MessageStore.rawOnly) throws {
        guard (1...100_000_000).contains(maxMessages) else {
            throw MessageStoreError.invalidConfiguration("maxMessages is \(maxMessages); use 1...100000000")
        }
        self.maxMessages = maxMessages
        pool = try DatabasePool(location: location, migrator: Self.migrator, prepare: Self.registerFunctions)
        var openedLog: MessageLog?
        do {
            let (state, newestID) = try pool.writeWithoutTransaction { db in
                let indexedThrough = try db.fetchScalar(Int64.self, "SELECT indexed_through FROM search_state") ?? 0
                // A seq at or below the watermark would be taken for indexed: never reuse one.
                let lastSeq = max(try db.fetchScalar(Int64.self, "SELECT max(seq) FROM messages") ?? 0, indexedThrough)
                return (WriterState(
                    count: try db.fetchScalar(Int.self, "SELECT count(*) FROM messages") ?? 0,
                    lastSeq: lastSeq, indexedThrough: indexedThrough,
                    unindexed: try db.fetchScalar(Int.self, "SELECT count(*) FROM messages WHERE seq > ?",
                                                  arguments: [.integer(indexedThrough)]) ?? 0,
                    logIndexedThrough: try db.fetchScalar(Int64.self, "SELECT indexed_through FROM log_state") ?? 0,
                    firstLoggedSeq: try db.fetchScalar(Int64.self, "SELECT first_logged_seq FROM log_state") ?? 1),
                        try db.fetchScalar(String.self, "SELECT max(id) FROM messages"))
            }
            let log = try MessageLog.open(directory: pool.path + "-messages", segmentBytes: logSegmentBytes,
                                          from: state.logIndexedThrough)
            openedLog = log
            self.log = log
            appender = Mutex(MessageIDGenerator(after: newestID))
            writerState = Mutex(state)
            // Index what the log holds past the index, a run at a time; those records carry the
            // newest ids, and new ids must follow them.
            var newest = newestID
            try log.forEachRecord(from: state.logIndexedThrough) { records in
                try index(records.map { record in
                    var message = recover(record)
                    message.raw = record.raw
                    return (message, LoggedMessage(id: record.id, position: record.position, end: record.end))
                })
                newest = max(newest ?? "", records.last!.id)
            }
            if newest != newestID { appender.withLock { $0 = MessageIDGenerator(after: newest) } }
        } catch {
            openedLog?.close()
            pool.close()
            throw error
        }
    }

    /// The database file.
    public var path: String { pool.path }

    /// Closes the connections; a temporary store also deletes its files. Later calls throw.
    public func close() {
        log.close()
        pool.close()
    }

    // MARK: Writing

    /// Test seam for a full or failing disk, deterministic where a real one is not: from now on
    /// every append to the log fails as `pwrite` would with `errno`; 0 ends it.
    package func failLogWrites(errno: Int32) {
        log.injectedWriteErrno.store(errno, ordering: .relaxed)
    }

    /// The same for every SQLite write (indexing, search indexing, deleting), failing as SQLite
    /// reports it: SQLITE_FULL for ENOSPC, SQLITE_IOERR_WRITE otherwise. 0 ends it.
    package func failIndexWrites(errno: Int32) {
        injectedWriteErrno.store(errno, ordering: .relaxed)
    }

    /// `pool.write`, through the test seam.
    private func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        let injected = injectedWriteErrno.load(ordering: .relaxed)
        if injected == ENOSPC {
            throw DatabaseError.sqlite(13, message: "database or disk is full", systemErrno: injected)
        } else if injected != 0 {
            throw DatabaseError.sqlite(778, message: "disk I/O error", systemErrno: injected)
        }
        return try pool.write(body)
    }

    /// Stores one message in one transaction and returns its id.
    @discardableResult
    public func insert(_ message: NewMessage) throws -> String {
        try insert(batch: [message])[0]
    }

    /// Stores several messages and returns their ids in order: appends each to the log, then
    /// indexes them in one transaction. If the batch alone exceeds `maxMessages`, its oldest
    /// messages are pruned at once.
    @discardableResult
    public func insert(batch messages: [NewMessage]) throws -> [String] {
        for message in messages { try message.validate() }  // all or none appended
        let logged = try messages.map { try appendValidated($0) }
        try index(Array(zip(messages, logged)))
        return logged.map(\.id)
    }

    /// Writes the raw message to the log and gives it its id: from here on it is stored, and
    /// survives the process. It is not visible to reads until `index` has run on it. Callers that
    /// append from several threads must pass the results to `index` in the order this returned
    /// them (hold a lock across both the call and queueing the result).
    public func append(_ message: NewMessage) throws -> LoggedMessage {
        try message.validate()
        return try appendValidated(message)
    }

    private func appendValidated(_ message: NewMessage) throws -> LoggedMessage {
        try appender.withLock { generator in
            var next = generator
            let id = next.next(nowMilliseconds: message.receivedAt)
            let (position, end) = try log.append(id: id, receivedAt: message.receivedAt, envelopeFrom: message.envelopeFrom,
                                                 envelopeTo: message.envelopeTo, raw: message.raw)
            generator = next
            return LoggedMessage(id: id, position: position, end: end)
        }
    }

    /// Indexes appended messages, in log order, in one transaction (all or none). Much faster per
    /// message than one transaction each when messages arrive together.
    public func index(_ batch: [(message: NewMessage, logged: LoggedMessage)]) throws {
        guard let last = batch.last else { return }
        let maxMessages = maxMessages
        try writerState.withLock { state in
            precondition(batch.first!.logged.position >= state.logIndexedThrough, "messages must be indexed in log order")
            var seq = state.lastSeq
            let (count, pruned) = try write { db in
                for (message, logged) in batch {
                    seq += 1
                    try Self.insert(message, seq: seq, logged: logged, into: db)
                }
                try db.execute("UPDATE log_state SET indexed_through = ?", arguments: [.integer(last.logged.end)])
                let count = try Self.prune(db, count: state.count + batch.count, keeping: maxMessages)
                return (count, count < state.count + batch.count)
            }
            state.lastSeq = seq
            state.count = count
            state.unindexed += batch.count
            state.logIndexedThrough = last.logged.end
            if pruned { removeUnusedSegments(state) }
        }
    }

    /// Deletes the log segments that hold no stored message and nothing left to index.
    private func removeUnusedSegments(_ state: WriterState) {
        let oldest = try? pool.read { db in
            try db.fetchScalar(Int64.self, "SELECT log_position FROM messages WHERE seq >= ? ORDER BY seq LIMIT 1",
                               arguments: [.integer(state.firstLoggedSeq)])
        }
        log.removeSegments(before: min(oldest.flatMap { $0 } ?? state.logIndexedThrough, state.logIndexedThrough))
    }

    /// Messages stored but not yet searchable. Inserting leaves the search index to this call, so a
    /// message's commit never pays for full-text indexing; indexing many messages in one
    /// transaction is also much cheaper per message. `list` with a query
    /// indexes whatever is pending first, so searches always see every stored message.
    public var unindexedCount: Int { writerState.withLock { $0.unindexed } }

    /// Adds up to `limit` pending messages, oldest first, to the search index in one transaction;
    /// returns how many were indexed.
    @discardableResult
    public func indexPendingSearch(limit: Int = 2000) throws -> Int {
        try writerState.withLock { state in
            guard state.unindexed > 0 else { return 0 }
            let from = state.indexedThrough
            let (indexed, upTo, remaining) = try write { db -> (Int, Int64, Int) in
                guard let upTo = try db.fetchScalar(Int64.self, """
                    SELECT max(seq) FROM (SELECT seq FROM messages WHERE seq > ? ORDER BY seq LIMIT ?)
                    """, arguments: [.integer(from), .integer(Int64(max(1, limit)))]) else { return (0, from, 0) }
                try db.execute("""
                    INSERT INTO message_search (rowid, subject, sender, recipients, body)
                    SELECT m.seq, \(Self.searchFields("m")), understudy_index_text(b.text)
                    FROM messages m JOIN message_bodies b ON b.seq = m.seq
                    WHERE m.seq > ? AND m.seq <= ?
                    """, arguments: [.integer(from), .integer(upTo)])
                let indexed = db.changedRowCount
                try db.execute("UPDATE search_state SET indexed_through = ?", arguments: [.integer(upTo)])
                // Not a count of the rows left (a walk over the table): a short chunk took them
                // all; otherwise the running count, which only ever overestimates (deleting a
                // pending message does not lower it) and so is put right by an empty chunk.
                return (indexed, upTo, indexed < max(1, limit) ? 0 : max(0, state.unindexed - indexed))
            }
            state.indexedThrough = upTo
            state.unindexed = remaining
            return indexed
        }
    }

    private static func insert(_ message: NewMessage, seq: Int64, logged: LoggedMessage, into db: Database) throws {
        let recipientKeys = message.recipientKeys
        try db.execute("""
            INSERT INTO messages (seq, id, received_at, size, envelope_from, envelope_to, header_from, header_to,
                                  header_cc, subject, message_id, date, snippet, codes, attachments, recipient_keys,
                                  log_position, tags, source, from_name)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                .integer(seq), .text(logged.id), .integer(message.receivedAt), .integer(Int64(message.raw.count)),
                .text(message.envelopeFrom), .text(StringListCoding.encode(message.envelopeTo)),
                DatabaseValue(message.from), .text(StringListCoding.encode(message.to)),
                .text(StringListCoding.encode(message.cc)), DatabaseValue(message.subject),
                DatabaseValue(message.messageID), DatabaseValue(message.date), .text(message.snippet),
                .text(StringListCoding.encode(message.codes)), .text(message.attachmentsJSON),
                .text(StringListCoding.encode(recipientKeys)), .integer(logged.position),
                .text(StringListCoding.encode(message.tags)), DatabaseValue(message.source), DatabaseValue(message.fromName),
            ])
        for address in recipientKeys {
            try db.execute("INSERT OR IGNORE INTO recipients (address, seq) VALUES (?, ?)",
                           arguments: [.text(address), .integer(seq)])
        }
        try db.execute("INSERT INTO message_bodies (seq, text, html, links, raw) VALUES (?, ?, ?, ?, ?)",
                       arguments: [.integer(seq), DatabaseValue(message.text), DatabaseValue(message.html),
                                   .text(message.linksJSON), .blob([])])
    }

    /// How far below `limit` pruning goes once the count passes it: 1%, at most 256. Deleting a run
    /// of old messages rewrites their pages once; deleting one per insert rewrote them every commit.
    static func pruneSlack(limit: Int) -> Int { min(limit / 100, 256) }

    /// Once `count` exceeds `limit`, deletes the oldest messages, in chunks, down to `pruneSlack`
    /// below it; returns the new count.
    private static func prune(_ db: Database, count: Int, keeping limit: Int) throws -> Int {
        var count = count
        guard count > limit else { return count }
        let target = limit - pruneSlack(limit: limit)
        while count > target {
            let chunk = min(count - target, 500)
            try db.execute("DELETE FROM messages WHERE seq IN (SELECT seq FROM messages ORDER BY seq LIMIT ?)",
                           arguments: [.integer(Int64(chunk))])
            let deleted = db.changedRowCount
            count -= deleted
            if deleted == 0 {  // the cached count was wrong: recount rather than loop
                count = try db.fetchScalar(Int.self, "SELECT count(*) FROM messages") ?? 0
                break
            }
        }
        return count
    }

    /// Deletes one message; false when there was none with that id.
    @discardableResult
    public func delete(id: String) throws -> Bool {
        guard let id = MessageIDGenerator.normalize(id) else { throw MessageStoreError.invalidID(id) }
        return try writerState.withLock { state in
            let deleted = try write { db in
                try db.execute("DELETE FROM messages WHERE id = ?", arguments: [.text(id)])
                return db.changedRowCount
            }
            state.count -= deleted
            if deleted > 0 { removeUnusedSegments(state) }
            return deleted > 0
        }
    }

    /// Deletes every message; returns how many there were.
    @discardableResult
    public func deleteAll() throws -> Int {
        try writerState.withLock { state in
            let deleted = try write { db in
                // Empty the index in one step; with no bodies left the unindex trigger does nothing.
                try db.execute("INSERT INTO message_search (message_search) VALUES ('delete-all')")
                try db.execute("DELETE FROM message_bodies")
                try db.execute("DELETE FROM recipients")
                try db.execute("DELETE FROM messages")
                return db.changedRowCount
            }
            state.count = 0
            state.unindexed = 0
            removeUnusedSegments(state)
            return deleted
        }
    }

    /// Deletes the messages with these ids; returns the ids that were there.
    @discardableResult
    public func delete(ids: [String]) throws -> [String] {
        let normalized = try Self.normalize(ids)
        guard !normalized.isEmpty else { return [] }
        return try writerState.withLock { state in
            let deleted = try write { db -> [String] in
                var deleted: [String] = []
                for chunk in Self.chunks(normalized) {
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    let found = try db.fetchColumn(String.self, "SELECT id FROM messages WHERE id IN (\(marks))",
                                                   arguments: chunk.map { .text($0) })
                    try db.execute("DELETE FROM messages WHERE id IN (\(marks))", arguments: chunk.map { .text($0) })
                    deleted += found
                }
                return deleted
            }
            state.count -= deleted.count
            if !deleted.isEmpty { removeUnusedSegments(state) }
            return deleted
        }
    }

    /// Marks the messages with these ids (every message when nil) read or unread; returns how
    /// many messages exist among them.
    @discardableResult
    public func setRead(_ read: Bool, ids: [String]?) throws -> Int {
        guard let ids else {
            return try writerState.withLock { _ in
                try write { db in
                    try db.execute("UPDATE messages SET is_read = ? WHERE is_read <> ?", arguments: [.integer(read ? 1 : 0), .integer(read ? 1 : 0)])
                    return try db.fetchScalar(Int.self, "SELECT count(*) FROM messages") ?? 0
                }
            }
        }
        let normalized = try Self.normalize(ids)
        return try writerState.withLock { _ in
            try write { db in
                var found = 0
                for chunk in Self.chunks(normalized) {
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    try db.execute("UPDATE messages SET is_read = ? WHERE id IN (\(marks))",
                                   arguments: [.integer(read ? 1 : 0)] + chunk.map { .text($0) })
                    found += db.changedRowCount
                }
                return found
            }
        }
    }

    /// Replaces the tags of the messages with these ids (an empty list removes them); returns
    /// how many messages exist among them.
    @discardableResult
    public func setTags(_ tags: [String], ids: [String]) throws -> Int {
        let tags = NewMessage.normalizeTags(tags)
        try NewMessage.validate(tags: tags)
        let normalized = try Self.normalize(ids)
        let encoded = StringListCoding.encode(tags)
        return try writerState.withLock { _ in
            try write { db in
                var found = 0
                for chunk in Self.chunks(normalized) {
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                    try db.execute("UPDATE messages SET tags = ? WHERE id IN (\(marks))",
                                   arguments: [.text(encoded)] + chunk.map { .text($0) })
                    found += db.changedRowCount
                }
                return found
            }
        }
    }

    /// Renames a tag on every message that has it (ignoring case); returns how many changed.
    @discardableResult
    public func renameTag(_ old: String, to new: String?) throws -> Int {
        if let new { try NewMessage.validate(tags: [new]) }
        return try writerState.withLock { _ in
            try write { db in
                let rows = try db.fetchAll(TagRow.self, """
                    SELECT m.seq, m.tags FROM messages m
                    WHERE EXISTS (SELECT 1 FROM json_each(m.tags) t WHERE lower(t.value) = lower(?))
                    """, arguments: [.text(old)])
                for row in rows {
                    var tags = row.tags.filter { $0.lowercased() != old.lowercased() }
                    if let new { tags.append(new) }
                    try db.execute("UPDATE messages SET tags = ? WHERE seq = ?",
                                   arguments: [.text(StringListCoding.encode(NewMessage.normalizeTags(tags))), .integer(row.seq)])
                }
                return rows.count
            }
        }
    }

    private struct TagRow: RowDecodable {
        var seq: Int64
        var tags: [String]
        init(row: Row) throws {
            seq = try row.value(at: 0)
            tags = try StringListCoding.decode(row.value(at: 1))
        }
    }

    /// Every tag in use with the number of messages carrying it, sorted by name (ignoring case).
    public func tagCounts() throws -> [(tag: String, count: Int)] {
        try pool.read { db in
            try db.fetchAll(TagCount.self, """
                SELECT min(t.value), count(*) FROM messages m, json_each(m.tags) t
                GROUP BY lower(t.value) ORDER BY lower(t.value)
                """).map { (tag: $0.tag, count: $0.count) }
        }
    }

    private struct TagCount: RowDecodable {
        var tag: String
        var count: Int
        init(row: Row) throws {
            tag = try row.value(at: 0)
            count = try row.value(at: 1)
        }
    }

    /// Number of messages not marked read.
    public func unreadCount() throws -> Int {
        try pool.read { db in try db.fetchScalar(Int.self, "SELECT count(*) FROM messages WHERE is_read = 0") ?? 0 }
    }

    /// Ids checked and normalized; at most `MessageFilter.maximumLimit * 10` at once.
    private static func normalize(_ ids: [String]) throws -> [String] {
        guard ids.count <= MessageFilter.maximumLimit * 10 else {
            throw MessageStoreError.invalidFilter("\(ids.count) ids at once; the limit is \(MessageFilter.maximumLimit * 10)")
        }
        return try ids.map { id in
            guard let normalized = MessageIDGenerator.normalize(id) else { throw MessageStoreError.invalidID(id) }
            return normalized
        }
    }

    /// Runs of at most 500 (SQLite's bound-parameter limit is far above).
    private static func chunks(_ ids: [String]) -> [ArraySlice<String>] {
        stride(from: 0, to: ids.count, by: 500).map { ids[$0..<min($0 + 500, ids.count)] }
    }

    // MARK: Reading

    /// Number of stored messages.
    public func count() throws -> Int {
        try pool.read { db in try db.fetchScalar(Int.self, "SELECT count(*) FROM messages") ?? 0 }
    }

    /// The message with this id, or nil.
    public func message(id: String) throws -> StoredMessage? {
        guard let id = MessageIDGenerator.normalize(id) else { throw MessageStoreError.invalidID(id) }
        return try pool.read { db in
            try db.fetchOne(StoredMessage.self, """
                SELECT \(StoredMessage.columns) FROM messages m JOIN message_bodies b ON b.seq = m.seq
                WHERE m.id = ?
                """, arguments: [.text(id)])
        }
    }

    /// The message's original bytes, or nil.
    public func raw(id: String) throws -> [UInt8]? {
        guard let found = try rawLocation(id: id) else { return nil }
        if let position = found.position {
            // Nil only when the message's segment was removed since: it was just deleted.
            return try log.read(at: position)?.raw
        }
        return found.raw
    }

    /// Where a message's raw bytes are, or nil when there is no such message.
    func rawLocation(id: String) throws -> RawLocation? {
        guard let id = MessageIDGenerator.normalize(id) else { throw MessageStoreError.invalidID(id) }
        return try pool.read { db in
            try db.fetchOne(RawLocation.self, """
                SELECT m.log_position, CASE WHEN m.log_position IS NULL THEN b.raw END
                FROM messages m JOIN message_bodies b ON b.seq = m.seq WHERE m.id = ?
                """, arguments: [.text(id)])
        }
    }

    /// Where a message's raw bytes are: in the log, or (stored before the log) in its body row.
    struct RawLocation: RowDecodable {
        var position: Int64?
        var raw: [UInt8]?
        init(row: Row) throws {
            position = try row.value(at: 0)
            raw = try row.value(at: 1)
        }
    }

    /// Matching messages, newest first, one page at a time, with the total number of matches.
    public func list(_ filter: MessageFilter = MessageFilter()) throws -> MessagePage {
        let plan = try QueryPlan(filter)
        if filter.query != nil {
            while try indexPendingSearch() > 0 {}
        }
        return try pool.read { db in
            let total = try db.fetchScalar(Int.self, "SELECT count(*) \(plan.countBody)", arguments: plan.arguments) ?? 0
            let items = try db.fetchAll(StoredMessageSummary.self, """
                SELECT \(StoredMessageSummary.columns) \(plan.body) ORDER BY \(plan.order) DESC LIMIT ? OFFSET ?
                """, arguments: plan.arguments + [.integer(Int64(filter.limit)), .integer(Int64(filter.offset))])
            return MessagePage(total: total, items: items)
        }
    }

    /// The newest message to `to` (any recipient when nil) that arrived after `after`, optionally
    /// only among messages with a code: what a test waiting for a one-time code wants.
    public func latest(to: String?, after: MessageCursor? = nil, requireCode: Bool = false) throws -> StoredMessage? {
        let plan = try QueryPlan(MessageFilter(to: to, after: after, requireCode: requireCode, limit: 1),
                                 joiningBodies: true)
        return try pool.read { db in
            try db.fetchOne(StoredMessage.self, """
                SELECT \(StoredMessage.columns) \(plan.body) ORDER BY \(plan.order) DESC LIMIT 1
                """, arguments: plan.arguments)
        }
    }

    /// Runs SQLite's integrity check, the full-text index's own check, and a check that every message has
    /// its body and recipient rows and nothing else does; throws on any problem.
    /// (For tests and a future `understudy doctor`.)
    func verifyIntegrity() throws {
        try pool.writeWithoutTransaction { db in
            let result = try db.fetchColumn(String.self, "PRAGMA integrity_check")
            guard result == ["ok"] else {
                throw DatabaseError.decoding("integrity check failed: \(result.prefix(5).joined(separator: "; "))")
            }
            try db.execute("INSERT INTO message_search (message_search, rank) VALUES ('integrity-check', 0)")
            // What the cascade and the trigger keep: every message has its body and exactly its
            // recipient rows.
            let problems = try db.fetchScalar(Int.self, """
                SELECT (SELECT count(*) FROM message_bodies b WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.seq = b.seq))
                     + (SELECT count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM message_bodies b WHERE b.seq = m.seq))
                     + (SELECT count(*) FROM recipients r WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.seq = r.seq))
                     + abs((SELECT count(*) FROM recipients)
                           - (SELECT coalesce(sum(json_array_length(recipient_keys)), 0) FROM messages))
                     + (SELECT count(*) FROM messages m, json_each(m.recipient_keys) k
                        WHERE NOT EXISTS (SELECT 1 FROM recipients r WHERE r.address = k.value AND r.seq = m.seq))
                """) ?? 0
            guard problems == 0 else {
                throw DatabaseError.decoding("integrity check failed: \(problems) orphaned or missing body and recipient rows")
            }
        }
    }

    // MARK: SQL for filters


    /// FROM/WHERE text and arguments for a filter, choosing the index that drives the scan: the
    /// recipient index for `to`, the full-text index for `query`, else the messages table.
    private struct QueryPlan {
        var body: String
        /// The same rows without the join to `messages` when no condition needs it, so counting
        /// "all mail to X" or "all matches of a word" reads one index only.
        var countBody: String
        var order: String
        var arguments: [DatabaseValue] = []

        init(_ filter: MessageFilter, joiningBodies: Bool = false) throws {
            guard (1...MessageFilter.maximumLimit).contains(filter.limit) else {
                throw MessageStoreError.invalidFilter("limit is \(filter.limit); use 1...\(MessageFilter.maximumLimit)")
            }
            guard (0...MessageFilter.maximumOffset).contains(filter.offset) else {
                throw MessageStoreError.invalidFilter("offset is \(filter.offset); use 0...\(MessageFilter.maximumOffset)")
            }
            for (name, value) in [("to", filter.to), ("from", filter.from), ("subject", filter.subject)] {
                if let value, value.utf8.count > MessageFilter.maximumTextLength {
                    throw MessageStoreError.invalidFilter("\(name) is \(value.utf8.count) bytes; the limit is "
                        + "\(MessageFilter.maximumTextLength)")
                }
            }
            var conditions: [String] = []
            let search = try filter.query.flatMap { query -> FullTextQuery? in
                query.allSatisfy(\.isWhitespace) ? nil : try FullTextQuery(query)
            }
            let driver: String
            if let search {
                // Drive by the full-text index. With a recipient too, the index first narrows to
                // messages with the address's local part in the `recipients` column (every stored
                // address is indexed there; the local part is far rarer than "example" or "com"),
                // then the recipient table confirms the exact address.
                driver = "message_search s"
                body = "FROM message_search s CROSS JOIN messages m ON m.seq = s.rowid"
                order = "s.rowid"
                conditions.append("message_search MATCH ?")
                var expression = search.expression
                if let to = filter.to {
                    let address = MessageFilter.normalizeAddress(to)
                    let localPart = address.split(separator: "@", omittingEmptySubsequences: false).first ?? ""
                    if let phrase = FullTextQuery.phrase(String(localPart), prefix: false)
                        ?? FullTextQuery.phrase(address, prefix: false)
                    {
                        expression = "recipients : \(phrase) AND (\(expression))"
                    }
                    conditions.append("EXISTS (SELECT 1 FROM recipients r WHERE r.address = ? AND r.seq = s.rowid)")
                    arguments += [.text(expression), .text(address)]
                } else {
                    arguments.append(.text(expression))
                }
            } else if let to = filter.to {
                driver = "recipients r"
                body = "FROM recipients r CROSS JOIN messages m ON m.seq = r.seq"
                order = "r.seq"
                conditions.append("r.address = ?")
                arguments.append(.text(MessageFilter.normalizeAddress(to)))
            } else {
                driver = "messages m"
                body = "FROM messages m"
                // Ids sort like seqs; with `after`, the id index gives the range, the order and
                // the count (without reading rows).
                order = filter.after == nil ? "m.seq" : "m.id"
            }
            // `after` is a bound on ids. By time, it is the time in the id: the arrival time,
            // unless the clock stepped back, when it keeps the order messages really came in
            // (see MessageIDGenerator.firstID).
            let afterBound: (comparison: String, id: String)?
            switch filter.after {
            case .id(let id)?:
                guard let id = MessageIDGenerator.normalize(id) else { throw MessageStoreError.invalidID(id) }
                afterBound = (">", id)
            case .time(let milliseconds)?:
                afterBound = (">=", MessageIDGenerator.firstID(atOrAfter: milliseconds == .max ? .max : milliseconds + 1))
            case nil:
                afterBound = nil
            }
            if let (comparison, id) = afterBound {
                if order == "m.id" {
                    conditions.append("m.id \(comparison) ?")
                } else {
                    // A bound on the driving index's seq (seq and id orders agree), found with
                    // one probe of the id index: the recipient or search index gives a range.
                    conditions.append("\(order) >= coalesce((SELECT seq FROM messages WHERE id \(comparison) ? "
                        + "ORDER BY id LIMIT 1), \(Int64.max))")
                }
                arguments.append(.text(id))
            }
            let driverConditionCount = conditions.count
            if let from = filter.from {
                conditions.append(#"(m.header_from LIKE ? ESCAPE '\' OR m.envelope_from LIKE ? ESCAPE '\')"#)
                let pattern = MessageStore.likePattern(from)
                arguments += [.text(pattern), .text(pattern)]
            }
            if let subject = filter.subject {
                conditions.append(#"m.subject LIKE ? ESCAPE '\'"#)
                arguments.append(.text(MessageStore.likePattern(subject)))
            }
            if filter.requireCode { conditions.append("m.codes <> '[]'") }
            guard filter.conditions.count <= MessageCondition.maximumCount else {
                throw MessageStoreError.invalidFilter("it has \(filter.conditions.count) conditions; the limit is \(MessageCondition.maximumCount)")
            }
            for condition in filter.conditions {
                let (text, values) = condition.sql()
                conditions.append(text)
                arguments += values
            }
            // Counting needs the bodies only when a condition reads the text.
            let conditionsReadBody = filter.conditions.contains { $0.readsBody }
            if conditionsReadBody { body += " JOIN message_bodies b ON b.seq = m.seq" }
            countBody = conditions.count == driverConditionCount ? "FROM " + driver : body
            if joiningBodies && !conditionsReadBody { body += " JOIN message_bodies b ON b.seq = m.seq" }
            if !conditions.isEmpty {
                let clause = " WHERE " + conditions.joined(separator: " AND ")
                body += clause
                countBody += clause
            }
        }
    }

    /// `%text%` with LIKE's wildcards in the text escaped.
    static func likePattern(_ text: String) -> String {
        var pattern = "%"
        for character in text {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    // MARK: Schema

    /// The schema, one migration per version. Never edit a released migration: add one.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("messages, bodies, recipients") { db in
            try db.execute("""
                CREATE TABLE messages (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    received_at INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    envelope_from TEXT NOT NULL,
                    envelope_to TEXT NOT NULL,
                    header_from TEXT,
                    header_to TEXT NOT NULL,
                    header_cc TEXT NOT NULL,
                    subject TEXT,
                    message_id TEXT,
                    date TEXT,
                    snippet TEXT NOT NULL,
                    codes TEXT NOT NULL,
                    attachments TEXT NOT NULL
                );
                CREATE INDEX messages_received_at ON messages (received_at);
                CREATE TABLE message_bodies (
                    seq INTEGER PRIMARY KEY REFERENCES messages (seq) ON DELETE CASCADE,
                    text TEXT,
                    html TEXT,
                    links TEXT NOT NULL,
                    raw BLOB NOT NULL
                );
                CREATE TABLE recipients (
                    address TEXT NOT NULL,
                    seq INTEGER NOT NULL REFERENCES messages (seq) ON DELETE CASCADE,
                    PRIMARY KEY (address, seq)
                ) WITHOUT ROWID;
                CREATE INDEX recipients_seq ON recipients (seq);
                """)
        }
        migrator.registerMigration("full-text search") { db in
            let fields = searchFields
            try db.execute("""
                CREATE VIRTUAL TABLE message_search USING fts5 (
                    subject, sender, recipients, body,
                    content = '', tokenize = 'unicode61 remove_diacritics 2'
                );
                CREATE TRIGGER message_bodies_index AFTER INSERT ON message_bodies BEGIN
                    INSERT INTO message_search (rowid, subject, sender, recipients, body)
                    SELECT new.seq, \(fields("m")), understudy_index_text(new.text)
                    FROM messages m WHERE m.seq = new.seq;
                END;
                CREATE TRIGGER messages_unindex BEFORE DELETE ON messages BEGIN
                    INSERT INTO message_search (message_search, rowid, subject, sender, recipients, body)
                    SELECT 'delete', old.seq, \(fields("old")),
                           understudy_index_text(b.text)
                    FROM message_bodies b WHERE b.seq = old.seq;
                END;
                INSERT INTO message_search (rowid, subject, sender, recipients, body)
                SELECT m.seq, \(fields("m")), understudy_index_text(b.text)
                FROM messages m JOIN message_bodies b ON b.seq = m.seq;
                """)
        }
        migrator.registerMigration("deferred full-text indexing") { db in
            // Inserts only queue the message; indexPendingSearch indexes in bulk. A message still
            // queued is not in the index, so deleting it must not remove it from the index.
            try db.execute("""
                DROP TRIGGER message_bodies_index;
                DROP TRIGGER messages_unindex;
                CREATE TABLE search_pending (seq INTEGER PRIMARY KEY);
                CREATE TRIGGER message_bodies_queue AFTER INSERT ON message_bodies BEGIN
                    INSERT INTO search_pending (seq) VALUES (new.seq);
                END;
                CREATE TRIGGER messages_unindex BEFORE DELETE ON messages
                WHEN NOT EXISTS (SELECT 1 FROM search_pending WHERE seq = old.seq) BEGIN
                    INSERT INTO message_search (message_search, rowid, subject, sender, recipients, body)
                    SELECT 'delete', old.seq, \(searchFields("old")), understudy_index_text(b.text)
                    FROM message_bodies b WHERE b.seq = old.seq;
                END;
                CREATE TRIGGER messages_unqueue AFTER DELETE ON messages BEGIN
                    DELETE FROM search_pending WHERE seq = old.seq;
                END;
                """)
        }
        migrator.registerMigration("lean commit path", withoutForeignKeys: true) { db in
            // `messages` and `recipients` are rebuilt with the same rows and seqs (the search
            // index keys on seq and stays as is); recipient rows without a message are left out.
            // `message_bodies` (nearly all the bytes) stays: with foreign keys off, dropping the
            // old `messages` does not cascade into it, and its reference then names the new
            // table, with the same seqs, so deleting a message still cascades to its body.
            // Pending messages are exactly those above the lowest queued seq (indexing takes the
            // queue in order, and inserts only ever append), so that becomes the watermark.
            try db.execute("""
                DROP TRIGGER message_bodies_queue;
                DROP TRIGGER messages_unindex;
                DROP TRIGGER messages_unqueue;
                CREATE TABLE search_state (
                    only INTEGER PRIMARY KEY CHECK (only = 1),
                    indexed_through INTEGER NOT NULL
                );
                INSERT INTO search_state (only, indexed_through) VALUES (1, coalesce(
                    (SELECT min(seq) - 1 FROM search_pending),
                    (SELECT seq FROM sqlite_sequence WHERE name = 'messages'),
                    (SELECT max(seq) FROM messages),
                    0));
                CREATE TABLE messages_new (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    received_at INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    envelope_from TEXT NOT NULL,
                    envelope_to TEXT NOT NULL,
                    header_from TEXT,
                    header_to TEXT NOT NULL,
                    header_cc TEXT NOT NULL,
                    subject TEXT,
                    message_id TEXT,
                    date TEXT,
                    snippet TEXT NOT NULL,
                    codes TEXT NOT NULL,
                    attachments TEXT NOT NULL,
                    recipient_keys TEXT NOT NULL
                );
                INSERT INTO messages_new
                SELECT m.seq, m.id, m.received_at, m.size, m.envelope_from, m.envelope_to, m.header_from,
                       m.header_to, m.header_cc, m.subject, m.message_id, m.date, m.snippet, m.codes,
                       m.attachments,
                       coalesce((SELECT json_group_array(r.address) FROM recipients r WHERE r.seq = m.seq), '[]')
                FROM messages m ORDER BY m.seq;
                CREATE TABLE recipients_new (
                    address TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    PRIMARY KEY (address, seq)
                ) WITHOUT ROWID;
                INSERT INTO recipients_new SELECT address, seq FROM recipients WHERE seq IN (SELECT seq FROM messages);
                DROP TABLE search_pending;
                DROP TABLE recipients;
                DROP TABLE messages;
                ALTER TABLE messages_new RENAME TO messages;
                ALTER TABLE recipients_new RENAME TO recipients;
                CREATE TRIGGER messages_unindex BEFORE DELETE ON messages
                WHEN old.seq <= (SELECT indexed_through FROM search_state) BEGIN
                    INSERT INTO message_search (message_search, rowid, subject, sender, recipients, body)
                    SELECT 'delete', old.seq, \(searchFields("old")), understudy_index_text(b.text)
                    FROM message_bodies b WHERE b.seq = old.seq;
                END;
                CREATE TRIGGER messages_delete_recipients AFTER DELETE ON messages BEGIN
                    DELETE FROM recipients
                    WHERE seq = old.seq AND address IN (SELECT value FROM json_each(old.recipient_keys));
                END;
                """)
        }
        migrator.registerMigration("message log") { db in
            // Raw bytes of new messages go to the log; older messages keep theirs in
            // message_bodies.raw. Every message from first_logged_seq on has a log position.
            try db.execute("""
                ALTER TABLE messages ADD COLUMN log_position INTEGER;
                CREATE TABLE log_state (
                    only INTEGER PRIMARY KEY CHECK (only = 1),
                    indexed_through INTEGER NOT NULL,
                    first_logged_seq INTEGER NOT NULL
                );
                INSERT INTO log_state (only, indexed_through, first_logged_seq) VALUES (1, 0, 1 + max(
                    coalesce((SELECT max(seq) FROM messages), 0),
                    coalesce((SELECT indexed_through FROM search_state), 0)));
                """)
        }
        migrator.registerMigration("read state, tags, source") { db in
            // Added columns with defaults: SQLite rewrites no row, and older messages read as
            // unread, untagged, from SMTP, without a sender name.
            try db.execute("""
                ALTER TABLE messages ADD COLUMN is_read INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE messages ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
                ALTER TABLE messages ADD COLUMN source TEXT;
                ALTER TABLE messages ADD COLUMN from_name TEXT;
                """)
        }
        return migrator
    }()

    /// The indexed columns of a message row, as the search index stores them.
    static func searchFields(_ table: String) -> String {
        """
        understudy_index_text(\(table).subject),
        understudy_index_text(coalesce(\(table).header_from, '') || ' ' || \(table).envelope_from),
        understudy_index_text(\(table).header_to || ' ' || \(table).header_cc || ' ' || \(table).envelope_to)
        """
    }

    /// `understudy_index_text(text)`: `FullTextQuery.indexText` as an SQL function for the triggers.
    static func registerFunctions(_ db: Database) throws {
        let handle = try db.handle()
        let rc = sqlite3_create_function_v2(handle, "understudy_index_text", 1,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                            nil, indexTextFunction, nil, nil, nil)
        guard rc == SQLITE_OK else {
            throw DatabaseError.sqlite(rc, message: "cannot register understudy_index_text: "
                + String(cString: sqlite3_errmsg(handle)))
        }
    }
}

private let indexTextFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, values in
    guard count == 1, let value = values?[0], sqlite3_value_type(value) != SQLITE_NULL else {
        sqlite3_result_null(context)
        return
    }
    let text = sqlite3_value_text(value)
    let length = Int(sqlite3_value_bytes(value))
    guard let text, length > 0 else {
        sqlite3_result_value(context, value)
        return
    }
    let bytes = UnsafeBufferPointer(start: text, count: length)
    // CJK characters start at U+2E80, whose UTF-8 lead byte is 0xE2: text without such bytes
    // (all ASCII and Latin mail) goes to the index untouched.
    guard mayContainCJK(UnsafeRawBufferPointer(bytes)) else {
        sqlite3_result_value(context, value)
        return
    }
    var prepared = FullTextQuery.indexText(String(decoding: bytes, as: UTF8.self))
    let transient = unsafeBitCast(CShims_sqlite_transient(), to: sqlite3_destructor_type.self)
    prepared.withUTF8 { utf8 in
        utf8.withMemoryRebound(to: CChar.self) { chars in
            sqlite3_result_text64(context, chars.baseAddress, UInt64(chars.count), transient, UInt8(SQLITE_UTF8))
        }
    }
}

/// True when some byte is 0xE2 or above. Reads eight bytes at a time and looks closer only at
/// words with a non-ASCII byte: this runs over every indexed text, so it must stay cheap.
private func mayContainCJK(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    let count = bytes.count
    var offset = 0
    while offset + 8 <= count {
        let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        if word & 0x8080_8080_8080_8080 != 0 {
            for index in offset..<(offset + 8) where base.load(fromByteOffset: index, as: UInt8.self) >= 0xE2 {
                return true
            }
        }
        offset += 8
    }
    while offset < count {
        if base.load(fromByteOffset: offset, as: UInt8.self) >= 0xE2 { return true }
        offset += 1
    }
    return false
}
