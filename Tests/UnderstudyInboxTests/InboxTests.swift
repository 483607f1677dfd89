import Dispatch
import Synchronization
import Testing
import UnderstudyJSON
@testable import UnderstudyStore
@testable import UnderstudyInbox

func mail(to: String = "alice@example.com", subject: String, body: String, html: String? = nil) -> [UInt8] {
    var text = "From: Example <noreply@example.com>\r\nTo: \(to)\r\nSubject: \(subject)\r\nMessage-ID: <\(UInt64.random(in: 0...UInt64.max))@example.com>\r\n"
    if let html {
        text += "MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n\(body)\r\n--b\r\nContent-Type: text/html\r\n\r\n\(html)\r\n--b--\r\n"
    } else {
        text += "\r\n\(body)\r\n"
    }
    return Array(text.utf8)
}

/// Collects one callback's value and lets a test wait for it.
final class Outcome<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let called = Atomic<Int>(0)
    func set(_ v: T) { value.withLock { $0 = v }; called.add(1, ordering: .sequentiallyConsistent) }
    var calls: Int { called.load(ordering: .sequentiallyConsistent) }
    func wait(seconds: Double = 10) -> T? {
        var waited = 0.0
        while calls == 0 && waited < seconds {
            usleep(2000)
            waited += 0.002
        }
        return value.withLock { $0 }
    }
}

#if canImport(Glibc)
import Glibc
#endif

@Suite struct InboxTests {
    static func inbox() throws -> Inbox {
        Inbox(store: try MessageStore(location: .temporary), clock: { 1_796_230_014_000 })
    }

    @Test func digestDecodesExtractsAndSnippets() {
        let m = IncomingMessage.digest(raw: mail(subject: "=?UTF-8?B?6aqM6K+B56CB?=", body: "Your code:   641-028\n\nThanks",
                                                 html: "<p>Your code is <b>641028</b></p><a href=\"https://app.example.com/verify?token=abc\">Verify email</a>"),
                                       envelopeFrom: "bounce@example.com", envelopeTo: ["alice@example.com"], receivedAt: 5)
        #expect(m.subject == "验证码")
        #expect(m.from == "noreply@example.com")
        #expect(m.to == ["alice@example.com"])
        #expect(m.codes.first == "641028")
        #expect(m.snippet == "Your code: 641-028 Thanks")
        let links = (try? JSONValue.parse(m.linksJSON))?.arrayValue ?? []
        #expect(links.first?["url"] == "https://app.example.com/verify?token=abc")
        #expect(links.first?["purpose"] == "verify-email")
    }

    @Test func snippetIsBounded() {
        let s = IncomingMessage.snippet(String(repeating: "word ", count: 1000))
        #expect(s.count <= IncomingMessage.snippetLength + 1)
        #expect(s.count >= IncomingMessage.snippetLength - 4)
        #expect(s.hasSuffix("…"))
        #expect(IncomingMessage.snippet("  \n\t 验证码\u{3000}\u{3000}６４１０２８\r\n  Ünï  ") == "验证码 ６４１０２８ Ünï")
        #expect(IncomingMessage.snippet("") == "")
        let wide = IncomingMessage.snippet(String(repeating: "验", count: 300))
        #expect(wide.unicodeScalars.count == IncomingMessage.snippetLength + 1)
        #expect(wide.hasSuffix("验…"))
    }

    @Test func acceptStoresAndAnswersAfterCommit() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let raw = mail(subject: "Hi", body: "Your verification code is 123456")
        let id = try inbox.acceptAndWait(raw: raw, envelopeFrom: "a@x", envelopeTo: ["alice@example.com"])
        let stored = try #require(try inbox.store.message(id: id))
        #expect(stored.summary.codes == ["123456"])
        #expect(stored.summary.envelopeTo == ["alice@example.com"])
        #expect(try inbox.store.raw(id: id) == raw)
    }

    /// When the store cannot take a message, the caller hears so (the SMTP session answers 451).
    @Test func storeFailureReachesTheCaller() throws {
        let inbox = try Self.inbox()
        inbox.store.close()
        do {
            _ = try inbox.acceptAndWait(raw: mail(subject: "x", body: "y"), envelopeFrom: "a@x", envelopeTo: ["b@example.com"])
            Issue.record("a closed store accepted a message")
        } catch {
            #expect(error.description.hasPrefix("the message could not be stored"))
        }
    }

    @Test func manyConcurrentAcceptsAreAllStored() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let done = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        for i in 0..<500 {
            inbox.accept(raw: mail(subject: "m\(i)", body: "code \(100000 + i)"), envelopeFrom: "a@x", envelopeTo: ["bulk@example.com"]) { r in
                if case .failure = r { failures.add(1, ordering: .relaxed) }
                done.add(1, ordering: .relaxed)
            }
        }
        var waited = 0
        while done.load(ordering: .relaxed) < 500 && waited < 5000 { usleep(2000); waited += 2 }
        #expect(done.load(ordering: .relaxed) == 500)
        #expect(failures.load(ordering: .relaxed) == 0)
        // Answered once appended to the log; the index catches up, and a read behind the barrier sees all.
        Self.afterPendingCommits(inbox)
        #expect(try inbox.store.count() == 500)
    }

    /// The backlog bound, by count and by bytes, each set to two messages.
    enum BacklogBound: CaseIterable { case messages, bytes }

    @Test(arguments: BacklogBound.allCases)
    func answersOnceAppendedUntilTheBacklogIsFullThenOnceIndexed(_ bound: BacklogBound) throws {
        let raws = (0..<4).map { mail(subject: "m\($0)", body: "code \(100000 + $0)") }
        let inbox = Inbox(store: try MessageStore(location: .temporary), clock: { 1_796_230_014_000 },
                          ackBacklog: bound == .messages ? 2 : Inbox.defaultAckBacklog,
                          ackBacklogBytes: bound == .bytes ? raws[0].count + raws[1].count : Inbox.defaultAckBacklogBytes)
        defer { inbox.store.close() }
        // Hold the index's writer connection, as a long transaction would.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? inbox.store.pool.writeWithoutTransaction { _ in holding.signal(); release.wait() }
            finished.signal()
        }
        holding.wait()
        let answered = Mutex<[Int]>([])
        for i in 0..<4 {
            inbox.accept(raw: raws[i], envelopeFrom: "a@x", envelopeTo: ["lag@example.com"]) { r in
                if case .success = r { answered.withLock { $0.append(i) } }
            }
        }
        usleep(100_000)
        // Two answered from the log at once; the others wait for the index.
        #expect(answered.withLock { $0 } == [0, 1])
        #expect(inbox.hasPendingCommits)
        let read = Mutex<Int?>(nil)
        #expect(inbox.afterPendingCommits { _ in read.withLock { $0 = try? inbox.store.count() } })
        usleep(50_000)
        #expect(read.withLock { $0 } == nil)
        release.signal()
        finished.wait()
        var waited = 0
        while read.withLock({ $0 }) == nil && waited < 5000 { usleep(2000); waited += 2 }
        #expect(answered.withLock { $0.sorted() } == [0, 1, 2, 3])
        #expect(read.withLock { $0 } == 4)  // the read saw every message answered before it asked
        #expect(!inbox.hasPendingCommits)
        #expect(!inbox.afterPendingCommits { _ in Issue.record("nothing was pending") })
    }

    @Test func steadyMailIsIndexedInTransactionsSpacedApart() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<60 {
            inbox.accept(raw: mail(subject: "m\(i)", body: "code \(100000 + i)"), envelopeFrom: "a@x",
                         envelopeTo: ["steady@example.com"]) { _ in }
            usleep(300)
        }
        Self.afterPendingCommits(inbox)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        // At most one transaction per spacing, plus the first (indexed at once) and the last. The
        // bound grows with the time the sends took, so a slow machine does not fail it; fewer
        // transactions than messages is not asserted, since a sender slower than the spacing
        // (a loaded machine) rightly gets one each.
        let bound = Int(elapsed / (Double(Inbox.commitSpacingNanoseconds) / 1e6)) + 2
        #expect(inbox.indexTransactions <= bound, "\(inbox.indexTransactions) transactions in \(elapsed) ms")
        #expect(try inbox.store.count() == 60)
    }

    /// Accepts `count` messages while the index's writer is held, so all are answered from the
    /// log before the first index transaction runs; `thenHold` runs before the writer is released.
    static func acceptWhileIndexHeld(_ inbox: Inbox, count: Int, to address: String, thenHold: () throws -> Void) throws -> Int {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? inbox.store.pool.writeWithoutTransaction { _ in holding.signal(); release.wait() }
            finished.signal()
        }
        holding.wait()
        let answered = Atomic<Int>(0)
        for i in 0..<count {
            inbox.accept(raw: mail(to: address, subject: "m\(i)", body: "code \(200000 + i)"), envelopeFrom: "a@x",
                         envelopeTo: [address]) { r in
                if case .success = r { answered.add(1, ordering: .relaxed) }
            }
        }
        try thenHold()
        release.signal()
        finished.wait()
        return answered.load(ordering: .relaxed)
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<5000 {
            if try condition() { return true }
            usleep(2000)
        }
        return try condition()
    }

    @Test func aFailedIndexTransactionIsRetriedAndLosesNothing() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        // A trigger that fails every insert while a switch row exists: a failure that is not the disk.
        try inbox.store.pool.writeWithoutTransaction { db in
            try db.execute("""
                CREATE TEMP TABLE fail_switch (on_ INTEGER);
                INSERT INTO fail_switch VALUES (1);
                CREATE TEMP TRIGGER fail_inserts BEFORE INSERT ON messages
                WHEN EXISTS (SELECT 1 FROM fail_switch) BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
                """)
        }
        let answered = try Self.acceptWhileIndexHeld(inbox, count: 3, to: "retry@example.com") {}
        #expect(answered == 3)  // stored in the log: answered
        #expect(Self.eventually { inbox.indexFailure != nil })
        #expect(inbox.hasPendingCommits)  // but not indexed: the transaction keeps failing
        #expect(try inbox.store.count() == 0)
        #expect(inbox.indexFailure?.errorCode == "index_unavailable")
        // A reader is told at once, and only once.
        let outcomes = Mutex<[InboxError?]>([])
        #expect(inbox.afterPendingCommits(timeout: .seconds(60)) { e in outcomes.withLock { $0.append(e) } })
        #expect(Self.eventually { !outcomes.withLock { $0 }.isEmpty })
        #expect(outcomes.withLock { $0.first??.isStorageUnavailable } == true)
        try inbox.store.pool.writeWithoutTransaction { db in try db.execute("DELETE FROM fail_switch") }
        Self.afterPendingCommits(inbox)  // the retry gets through
        #expect(try inbox.store.count() == 3)
        #expect(try inbox.store.list(MessageFilter(to: "retry@example.com")).items.map(\.subject) == ["m2", "m1", "m0"])
        #expect(outcomes.withLock { $0.count } == 1)  // not run again when the index caught up
        #expect(inbox.indexFailure == nil)
    }

    @Test func aFullDiskRefusesNewMailAndKeepsWhatWasAccepted() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let answered = try Self.acceptWhileIndexHeld(inbox, count: 5, to: "full@example.com") {
            inbox.store.failIndexWrites(errno: ENOSPC)
        }
        #expect(answered == 5)
        #expect(Self.eventually { inbox.indexFailure != nil })
        let failure = try #require(inbox.indexFailure)
        #expect(failure.isOutOfSpace && failure.errorCode == "storage_unavailable")
        #expect(failure.description.contains(inbox.store.path) && failure.description.contains("No space left on device (ENOSPC)"))
        // New mail is refused rather than answered and left unindexable.
        let refused = Outcome<Result<String, InboxError>>()
        inbox.accept(raw: mail(to: "full@example.com", subject: "late", body: "x"), envelopeFrom: "a@x",
                     envelopeTo: ["full@example.com"]) { refused.set($0) }
        guard case .failure(let error)? = refused.wait() else { Issue.record("accepted on a full disk"); return }
        #expect(error.isOutOfSpace)
        // A read that would miss the five is told why, at once, instead of answering without them.
        let told = Outcome<InboxError?>()
        #expect(inbox.afterPendingCommits(timeout: .seconds(60)) { told.set($0) })
        #expect(told.wait()??.isOutOfSpace == true)
        // The fault clears: the retry indexes all five, and mail is accepted again.
        inbox.store.failIndexWrites(errno: 0)
        Self.afterPendingCommits(inbox)
        #expect(try inbox.store.count() == 5)
        #expect(inbox.indexFailure == nil)
        _ = try inbox.acceptAndWait(raw: mail(to: "full@example.com", subject: "after", body: "y"), envelopeFrom: "a@x",
                                    envelopeTo: ["full@example.com"])
        #expect(try inbox.store.count() == 6)
    }

    @Test(arguments: [(ENOSPC, true), (EIO, false)])
    func aFailedLogAppendRefusesTheMessage(code: Int32, outOfSpace: Bool) throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        inbox.store.failLogWrites(errno: code)
        let result = Outcome<Result<String, InboxError>>()
        inbox.accept(raw: mail(subject: "s", body: "b"), envelopeFrom: "a@x", envelopeTo: ["log@example.com"]) { result.set($0) }
        guard case .failure(let error)? = result.wait() else { Issue.record("accepted though the log write failed"); return }
        #expect(error.isOutOfSpace == outOfSpace)
        #expect(error.description.contains(DatabaseError.errnoDescription(code)))
        #expect(!inbox.hasPendingCommits)
        inbox.store.failLogWrites(errno: 0)
        _ = try inbox.acceptAndWait(raw: mail(subject: "s", body: "b"), envelopeFrom: "a@x", envelopeTo: ["log@example.com"])
        #expect(try inbox.store.count() == 1)
    }

    @Test func closingIndexesWhatIsPendingFirst() throws {
        let scratch = try TemporaryDirectory.make(prefix: "understudy-inbox-test")
        defer { scratch.remove() }
        let path = scratch.path + "/inbox.sqlite"
        let inbox = Inbox(store: try MessageStore(location: .file(path)), clock: { 1_796_230_014_000 })
        for i in 0..<20 {
            inbox.accept(raw: mail(subject: "m\(i)", body: "code \(300000 + i)"), envelopeFrom: "a@x",
                         envelopeTo: ["close@example.com"]) { _ in }
        }
        inbox.close()
        let reopened = try MessageStore(location: .file(path))
        defer { reopened.close() }
        #expect(try reopened.count() == 20)
        // Nothing was left in the log for the next open to index.
        #expect(try reopened.pool.read { db in try db.fetchScalar(Int64.self, "SELECT indexed_through FROM log_state") }
                == reopened.log.tail)
    }

    /// Blocks until every message appended so far is indexed (while the index fails, until it recovers).
    static func afterPendingCommits(_ inbox: Inbox) {
        for _ in 0..<1000 {
            let done = DispatchSemaphore(value: 0)
            let failed = Atomic<Bool>(false)
            guard inbox.afterPendingCommits({ e in failed.store(e != nil, ordering: .relaxed); done.signal() }) else { return }
            done.wait()
            if !failed.load(ordering: .relaxed) { return }
            usleep(10_000)
        }
    }

    @Test func waiterIsAnsweredByTheNextMatchingMessage() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let outcome = Outcome<JSONValue?>()
        inbox.wait(for: "Alice@Example.com", timeout: .seconds(10), existing: { nil },
                   match: { d in d.message.codes.first.map { .string($0) } }) { outcome.set($0) }
        #expect(inbox.waiterCount == 1)
        // Another address, and a message without a code, do not answer it.
        _ = try inbox.acceptAndWait(raw: mail(to: "bob@example.com", subject: "x", body: "code 111111"), envelopeFrom: "a@x", envelopeTo: ["bob@example.com"])
        _ = try inbox.acceptAndWait(raw: mail(subject: "Welcome", body: "Hello there"), envelopeFrom: "a@x", envelopeTo: ["alice@example.com"])
        #expect(outcome.calls == 0)
        _ = try inbox.acceptAndWait(raw: mail(subject: "Code", body: "Your code is 424242"), envelopeFrom: "a@x", envelopeTo: ["alice@example.com"])
        #expect(outcome.wait() == .some("424242"))
        #expect(inbox.waiterCount == 0)
        #expect(outcome.calls == 1)
    }

    @Test func waiterTimesOutWithNil() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let outcome = Outcome<JSONValue?>()
        inbox.wait(for: "x@example.com", timeout: .milliseconds(50), existing: { nil }, match: { _ in "no" }) { outcome.set($0) }
        #expect(outcome.wait() == .some(nil))
        #expect(inbox.waiterCount == 0)
    }

    @Test func existingAnswerWinsAndCancelRemoves() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let outcome = Outcome<JSONValue?>()
        inbox.wait(for: "x@example.com", timeout: .seconds(10), existing: { "there" }, match: { _ in nil }) { outcome.set($0) }
        #expect(outcome.wait() == .some("there"))
        let never = Outcome<JSONValue?>()
        let cancel = inbox.wait(for: "y@example.com", timeout: .seconds(10), existing: { nil }, match: { _ in "x" }) { never.set($0) }
        #expect(inbox.waiterCount == 1)
        cancel()
        #expect(inbox.waiterCount == 0)
        _ = try inbox.acceptAndWait(raw: mail(to: "y@example.com", subject: "s", body: "b"), envelopeFrom: "a@x", envelopeTo: ["y@example.com"])
        #expect(never.calls == 0)
    }

    @Test func subscribersSeeCreatedAndDeleted() throws {
        let inbox = try Self.inbox()
        defer { inbox.store.close() }
        let events = Mutex<[String]>([])
        let unsubscribe = inbox.subscribe { e in
            let name: String
            switch e {
            case .created(let d): name = "created \(d.message.subject ?? "")"
            case .deleted: name = "deleted"
            case .cleared: name = "cleared"
            }
            events.withLock { $0.append(name) }
        }
        let id = try inbox.acceptAndWait(raw: mail(subject: "one", body: "b"), envelopeFrom: "a@x", envelopeTo: ["z@example.com"])
        #expect(try inbox.delete(id: id))
        #expect(try !inbox.delete(id: id))
        _ = try inbox.deleteAll()
        unsubscribe()
        _ = try inbox.acceptAndWait(raw: mail(subject: "two", body: "b"), envelopeFrom: "a@x", envelopeTo: ["z@example.com"])
        #expect(events.withLock { $0 } == ["created one", "deleted", "cleared"])
    }
}
