import Testing
@testable import UnderstudyStore

@Suite struct MessageStoreTests {
    @Test func roundTripsEveryFieldIncludingRawBytes() throws {
        let store = try makeStore()
        defer { store.close() }
        var raw: [UInt8] = Array("Subject: x\r\n\r\n".utf8)
        raw += [0x00, 0xFF, 0xFE, 0xC3, 0x28, 0x00, 0x80, 0x0D, 0x0A, 0x00]
        let message = NewMessage(
            receivedAt: 1_733_000_000_123, raw: raw, envelopeFrom: "bounce+x@example.org",
            envelopeTo: ["Alice@Example.com", "bob@example.com"], from: "Zoë \"Q\" <zoe@example.org>",
            to: ["alice@example.com"], cc: ["Carol <carol@example.net>", "back\\slash\"quote\n"],
            subject: "Re: café ☕ 验证码 \u{0} nul", messageID: "<abc@example.org>",
            date: "Mon, 2 Dec 2024 10:00:00 +0000", text: "Your code is 123456\n", html: "<p>Your code is <b>123456</b></p>",
            snippet: "Your code is 123456", codes: ["123456", "999"],
            linksJSON: #"[{"url":"https://example.com/a?b=1"}]"#, attachmentsJSON: #"[{"name":"a.pdf","size":3}]"#)
        let id = try store.insert(message)
        #expect(id.count == 26)

        let stored = try #require(try store.message(id: id))
        let summary = stored.summary
        #expect(summary.id == id)
        #expect(summary.receivedAt == message.receivedAt)
        #expect(summary.size == raw.count)
        #expect(summary.envelopeFrom == message.envelopeFrom)
        #expect(summary.envelopeTo == message.envelopeTo)
        #expect(summary.from == message.from)
        #expect(summary.to == message.to)
        #expect(summary.cc == message.cc)
        #expect(summary.subject == message.subject)
        #expect(summary.messageID == message.messageID)
        #expect(summary.date == message.date)
        #expect(summary.snippet == message.snippet)
        #expect(summary.codes == message.codes)
        #expect(summary.attachmentsJSON == message.attachmentsJSON)
        #expect(stored.text == message.text)
        #expect(stored.html == message.html)
        #expect(stored.linksJSON == message.linksJSON)
        #expect(try store.raw(id: id) == raw)
        // Ids are accepted in any case.
        #expect(try store.raw(id: id.lowercased()) == raw)
    }

    @Test func absentOptionalFieldsStayNilAndEmptyRawStaysEmpty() throws {
        let store = try makeStore()
        defer { store.close() }
        let id = try store.insert(NewMessage(receivedAt: 1, raw: []))
        let stored = try #require(try store.message(id: id))
        #expect(stored.summary.from == nil)
        #expect(stored.summary.subject == nil)
        #expect(stored.text == nil)
        #expect(stored.html == nil)
        #expect(stored.summary.to.isEmpty)
        #expect(try store.raw(id: id) == [])
    }

    @Test func unknownAndMalformedIDs() throws {
        let store = try makeStore()
        defer { store.close() }
        #expect(try store.message(id: "01ARZ3NDEKTSV4RRFFQ69G5FAV") == nil)
        #expect(try store.raw(id: "01ARZ3NDEKTSV4RRFFQ69G5FAV") == nil)
        #expect(try store.delete(id: "01ARZ3NDEKTSV4RRFFQ69G5FAV") == false)
        for bad in ["", "latest", "01ARZ3NDEKTSV4RRFFQ69G5FA!", "81ARZ3NDEKTSV4RRFFQ69G5FAV", "'; DROP TABLE messages; --"] {
            let error = #expect(throws: MessageStoreError.self) { try store.message(id: bad) }
            #expect(error?.isInvalidID == true)
        }
    }

    @Test func listsNewestFirstWithPaginationAndTotal() throws {
        let store = try makeStore()
        defer { store.close() }
        let ids = try store.insert(batch: (0..<25).map { sample($0) })
        #expect(ids == ids.sorted())  // ids sort in arrival order

        let first = try store.list(MessageFilter(limit: 10))
        #expect(first.total == 25)
        #expect(first.items.map(\.id) == Array(ids.reversed()[0..<10]))
        let last = try store.list(MessageFilter(limit: 10, offset: 20))
        #expect(last.total == 25)
        #expect(last.items.map(\.id) == Array(ids.reversed()[20..<25]))
        let beyond = try store.list(MessageFilter(limit: 10, offset: 30))
        #expect(beyond.total == 25 && beyond.items.isEmpty)
    }

    @Test func rejectsOutOfRangePaging() throws {
        let store = try makeStore()
        defer { store.close() }
        for filter in [MessageFilter(limit: 0), MessageFilter(limit: 1001), MessageFilter(offset: -1),
                       MessageFilter(to: String(repeating: "a", count: 2000))] {
            let error = #expect(throws: MessageStoreError.self) { try store.list(filter) }
            #expect(error?.isInvalidFilter == true)
        }
    }

    @Test func filtersByRecipientSenderSubjectAndTime() throws {
        let store = try makeStore()
        defer { store.close() }
        var a = sample(1, to: "alice@example.com", subject: "Welcome 100% free_stuff")
        a.cc = ["Carol@Example.NET"]
        let idA = try store.insert(a)
        var b = sample(2, to: "bob@example.com", subject: "Your invoice")
        b.envelopeTo = ["bob@example.com", "<Alice@Example.com>"]
        b.from = "Billing <billing@shop.example>"
        let idB = try store.insert(b)
        let idC = try store.insert(sample(3, to: "bob@example.com", subject: "Password reset", receivedAt: 1_800_000_000_000))

        func ids(_ filter: MessageFilter) throws -> [String] { try store.list(filter).items.map(\.id) }
        #expect(try ids(MessageFilter(to: "ALICE@example.com")) == [idB, idA])  // To + envelope, any case
        #expect(try ids(MessageFilter(to: " <carol@example.net> ")) == [idA])  // Cc
        #expect(try ids(MessageFilter(to: "nobody@example.com")).isEmpty)
        #expect(try ids(MessageFilter(from: "BILLING@shop")) == [idB])
        #expect(try ids(MessageFilter(from: "bounce@")) == [idC, idB, idA])  // envelope sender
        #expect(try ids(MessageFilter(subject: "100%")) == [idA])
        #expect(try ids(MessageFilter(subject: "%")) == [idA])  // LIKE wildcards are literal
        #expect(try ids(MessageFilter(subject: "W_lcome")).isEmpty)  // "_" is no wildcard
        #expect(try ids(MessageFilter(subject: "free_stuff")) == [idA])
        #expect(try ids(MessageFilter(to: "bob@example.com", subject: "reset")) == [idC])
        #expect(try ids(MessageFilter(after: .id(idA))) == [idC, idB])
        #expect(try ids(MessageFilter(after: .time(1_700_000_000_002))) == [idC])
        let page = try store.list(MessageFilter(to: "bob@example.com", limit: 1))
        #expect(page.total == 2 && page.items.map(\.id) == [idC])
    }

    @Test func afterAnIDStillWorksOnceThatMessageIsDeleted() throws {
        let store = try makeStore()
        defer { store.close() }
        let first = try store.insert(sample(1))
        let second = try store.insert(sample(2))
        try store.delete(id: first)
        #expect(try store.list(MessageFilter(after: .id(first))).items.map(\.id) == [second])
    }

    @Test func latestToAnAddressAfterAPointWithACode() throws {
        let store = try makeStore()
        defer { store.close() }
        let old = try store.insert(sample(1, to: "u@example.com", codes: ["111111"]))
        let marker = try store.insert(sample(2, to: "other@example.com", codes: ["222222"]))
        #expect(try store.latest(to: "u@example.com", after: .id(marker), requireCode: true) == nil)
        #expect(try store.latest(to: "U@example.com")?.id == old)

        let noCode = try store.insert(sample(3, to: "u@example.com"))
        #expect(try store.latest(to: "u@example.com", after: .id(marker), requireCode: true) == nil)
        #expect(try store.latest(to: "u@example.com", after: .id(marker), requireCode: false)?.id == noCode)

        let withCode = try store.insert(sample(4, to: "u@example.com", text: "code 333333", codes: ["333333"]))
        _ = try store.insert(sample(5, to: "u@example.com"))
        let found = try #require(try store.latest(to: "u@example.com", after: .id(marker), requireCode: true))
        #expect(found.id == withCode)
        #expect(found.summary.codes == ["333333"])
        #expect(found.text == "code 333333")
        #expect(try store.latest(to: nil, requireCode: true)?.id == withCode)
    }

    @Test func deleteAndDeleteAllKeepSearchConsistent() throws {
        let store = try makeStore()
        defer { store.close() }
        let keep = try store.insert(sample(1, subject: "alpha report"))
        let gone = try store.insert(sample(2, subject: "alpha invoice"))
        #expect(try store.delete(id: gone))
        #expect(try store.delete(id: gone) == false)
        #expect(try store.message(id: gone) == nil)
        #expect(try store.count() == 1)
        #expect(try store.list(MessageFilter(query: "alpha")).items.map(\.id) == [keep])
        #expect(try store.list(MessageFilter(query: "invoice")).total == 0)
        #expect(try store.list(MessageFilter(to: "user@example.com")).total == 1)
        try store.verifyIntegrity()

        #expect(try store.deleteAll() == 1)
        #expect(try store.count() == 0)
        #expect(try store.list(MessageFilter(query: "alpha")).total == 0)
        #expect(try store.list(MessageFilter(to: "user@example.com")).total == 0)
        try store.verifyIntegrity()
        let again = try store.insert(sample(3, subject: "alpha again"))
        #expect(again > gone)  // ids keep increasing after deleteAll
        #expect(try store.list(MessageFilter(query: "alpha")).items.map(\.id) == [again])
    }

    @Test func retentionPrunesOldestFirst() throws {
        let store = try makeStore(maxMessages: 10)
        defer { store.close() }
        var ids: [String] = []
        for n in 0..<15 { ids.append(try store.insert(sample(n, subject: "retained \(n)"))) }
        ids += try store.insert(batch: (15..<40).map { sample($0, subject: "retained \($0)") })
        #expect(try store.count() == 10)
        let page = try store.list(MessageFilter(limit: 100))
        #expect(page.items.map(\.id) == Array(ids.suffix(10).reversed()))
        #expect(try store.message(id: ids[0]) == nil)
        #expect(try store.list(MessageFilter(query: "retained")).total == 10)
        #expect(try store.list(MessageFilter(to: "user@example.com")).total == 10)
        try store.verifyIntegrity()
    }

    @Test func retentionPrunesARunOfOldMessagesOncePastTheLimit() throws {
        // 1% of the limit goes at once, so the pages of old messages are rewritten once per run.
        #expect(MessageStore.pruneSlack(limit: 10) == 0)
        #expect(MessageStore.pruneSlack(limit: 5000) == 50)
        #expect(MessageStore.pruneSlack(limit: 1_000_000) == 256)
        let store = try makeStore(maxMessages: 300)
        defer { store.close() }
        var ids = try store.insert(batch: (0..<300).map { sample($0, subject: "kept \($0)") })
        #expect(try store.count() == 300)
        _ = try store.indexPendingSearch(limit: 100)  // some indexed, some pending when pruned
        ids.append(try store.insert(sample(300, subject: "kept 300")))
        #expect(try store.count() == 297)
        #expect(try store.message(id: ids[3]) == nil && store.message(id: ids[4]) != nil)
        for n in 301..<304 {
            ids.append(try store.insert(sample(n, subject: "kept \(n)")))
            #expect(try store.count() == 297 + n - 300)  // never above the limit
        }
        ids.append(try store.insert(sample(304, subject: "kept 304")))
        #expect(try store.count() == 297)
        let listed = try store.list(MessageFilter(limit: 500)).items.map(\.id)
        #expect(listed == Array(ids.suffix(297).reversed()))
        #expect(try store.list(MessageFilter(query: "kept")).total == 297)
        #expect(try store.list(MessageFilter(to: "user@example.com")).total == 297)
        try store.verifyIntegrity()
    }

    @Test func afterATimeFollowsArrivalOrderWhenTheClockStepsBack() throws {
        let store = try makeStore()
        defer { store.close() }
        let early = try store.insert(sample(1, receivedAt: 1_700_000_002_000))
        // The clock stepped back a second: this message still came after `early`, and its id
        // keeps that order (its receivedAt shows the clock as it was).
        let stepped = try store.insert(sample(2, receivedAt: 1_700_000_001_000))
        let later = try store.insert(sample(3, receivedAt: 1_700_000_003_000))
        #expect(stepped > early)
        #expect(try store.message(id: stepped)?.summary.receivedAt == 1_700_000_001_000)
        func ids(after ms: Int64) throws -> [String] { try store.list(MessageFilter(after: .time(ms))).items.map(\.id) }
        #expect(try ids(after: 1_700_000_000_999) == [later, stepped, early])
        #expect(try ids(after: 1_700_000_001_999) == [later, stepped, early])
        #expect(try ids(after: 1_700_000_002_000) == [later])  // stepped came no later than early
        #expect(try ids(after: 1_700_000_002_999) == [later])
        #expect(try ids(after: 1_700_000_003_000).isEmpty)
        #expect(try ids(after: -5) == [later, stepped, early])
        #expect(try store.list(MessageFilter(after: .time(1_700_000_002_000))).total == 1)
        #expect(try store.latest(to: "user@example.com", after: .time(1_700_000_001_500))?.id == later)
    }

    @Test func afterBoundsEveryDrivingIndexTheSameWay() throws {
        // `after` is a range of the id index when messages drive the scan, and a seq bound when
        // the recipient or search index does: the pages and totals must agree.
        let store = try makeStore()
        defer { store.close() }
        var ids: [String] = []
        for n in 0..<12 {
            ids.append(try store.insert(sample(n, to: n % 2 == 0 ? "even@example.com" : "odd@example.com",
                                               subject: "walrus \(n)", receivedAt: 1_700_000_000_000 + Int64(n) * 1000)))
        }
        try store.delete(id: ids[5])  // a cursor that no longer exists still works
        func check(_ after: MessageCursor, _ expected: [Int]) throws {
            let want = expected.reversed().map { ids[$0] }
            for filter in [MessageFilter(after: after, limit: 100), MessageFilter(query: "walrus", after: after, limit: 100)] {
                let page = try store.list(filter)
                #expect(page.items.map(\.id) == want)
                #expect(page.total == want.count)
            }
            let evens = expected.filter { $0 % 2 == 0 }
            let page = try store.list(MessageFilter(to: "even@example.com", query: nil, after: after, limit: 100))
            #expect(page.items.map(\.id) == evens.reversed().map { ids[$0] })
            #expect(page.total == evens.count)
            let searched = try store.list(MessageFilter(to: "even@example.com", query: "walrus", after: after, limit: 100))
            #expect(searched.items.map(\.id) == evens.reversed().map { ids[$0] })
            #expect(try store.latest(to: "even@example.com", after: after)?.id == evens.last.map { ids[$0] })
        }
        try check(.id(ids[5]), [6, 7, 8, 9, 10, 11])
        try check(.id(ids[4]), [6, 7, 8, 9, 10, 11])
        try check(.id(ids[11]), [])
        try check(.time(1_700_000_007_000), [8, 9, 10, 11])
        try check(.time(1_700_000_006_999), [7, 8, 9, 10, 11])
        try check(.time(1_700_000_011_000), [])
        try check(.time(0), [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11])
        try check(.id("00000000000000000000000000"), [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11])
        #expect(try store.list(MessageFilter(after: .id(ids[8]), limit: 2, offset: 1)).items.map(\.id) == [ids[10], ids[9]])
    }

    @Test func aDeletedNewestMessageLeavesNoTraceForTheNextOne() throws {
        // Seqs key the search index: one deleted after indexing must never be handed out again,
        // or the next message would inherit its words. Also across a restart.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/reuse.sqlite"
        do {
            let store = try MessageStore(location: .file(path))
            _ = try store.insert(sample(1, subject: "first"))
            let newest = try store.insert(sample(2, subject: "zebra"))
            #expect(try store.list(MessageFilter(query: "zebra")).total == 1)  // indexes both
            #expect(try store.delete(id: newest))
            store.close()
        }
        let store = try MessageStore(location: .file(path))
        defer { store.close() }
        let next = try store.insert(sample(3, subject: "okapi"))
        #expect(try store.list(MessageFilter(query: "zebra")).total == 0)
        #expect(try store.list(MessageFilter(query: "okapi")).items.map(\.id) == [next])
        try store.verifyIntegrity()
    }

    @Test func rejectsMessagesBeyondLimits() throws {
        let store = try makeStore()
        defer { store.close() }
        var tooMany = sample(1)
        tooMany.envelopeTo = (0...NewMessage.maximumAddresses).map { "u\($0)@example.com" }
        let error = #expect(throws: MessageStoreError.self) { try store.insert(tooMany) }
        #expect(error?.isInvalidMessage == true)
        // A bad message in a batch stores nothing.
        #expect(throws: MessageStoreError.self) { try store.insert(batch: [sample(2), tooMany]) }
        #expect(try store.count() == 0)
        #expect(throws: MessageStoreError.self) { try MessageStore(location: .temporary, maxMessages: 0) }
    }

    @Test func closedStoreThrowsAndTemporaryFilesAreRemoved() throws {
        let store = try makeStore()
        let path = store.path
        try store.insert(sample(1))
        #expect(fileExists(path))
        store.close()
        #expect(!fileExists(path))
        #expect(!fileExists(path + "-wal"))
        #expect(!fileExists(String(path.dropLast("/mail.sqlite".count))))
        let error = #expect(throws: DatabaseError.self) { try store.count() }
        #expect(error?.isClosed == true)
        store.close()  // twice is fine
    }

    @Test func reopeningAFileStoreKeepsMessagesAndIDOrder() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/mail.sqlite"
        let store = try MessageStore(location: .file(path))
        let first = try store.insert(sample(1, subject: "persisted 验证码"))
        store.close()

        let reopened = try MessageStore(location: .file(path))
        defer { reopened.close() }
        #expect(try reopened.count() == 1)
        #expect(try reopened.message(id: first)?.summary.subject == "persisted 验证码")
        #expect(try reopened.list(MessageFilter(query: "验证码")).total == 1)
        // Even with a receive time in the past, a new id sorts after the stored ones.
        let second = try reopened.insert(sample(2, receivedAt: 5))
        #expect(second > first)
        #expect(fileExists(path))  // a file store is never deleted
    }

    @Test func committedMessagesSurviveAKilledProcess() throws {
        // Copy the files while the store is open: that is exactly what a SIGKILL leaves on disk
        // (no close, no checkpoint; the OS keeps what was written). Committed rows must be there.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/live.sqlite"
        let store = try MessageStore(location: .file(path))
        defer { store.close() }
        let ids = try store.insert(batch: (0..<20).map { sample($0, subject: "durable \($0)") })
        #expect(fileSize(path + "-wal") > 0)  // the rows are in the WAL, not yet in the main file

        let crashed = scratch.path + "/crashed.sqlite"
        try copyStoreAsKilled(path, to: crashed)
        let recovered = try MessageStore(location: .file(crashed))
        defer { recovered.close() }
        #expect(try recovered.count() == 20)
        #expect(try recovered.message(id: ids[19])?.summary.subject == "durable 19")
        #expect(try recovered.list(MessageFilter(query: "durable")).total == 20)
        try recovered.verifyIntegrity()
    }

    @Test func readsRunWhileAnotherThreadWrites() async throws {
        let store = try makeStore()
        defer { store.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for n in 0..<200 { try store.insert(sample(n)) }
            }
            group.addTask {
                for _ in 0..<200 {
                    let page = try store.list(MessageFilter(limit: 5))
                    #expect(page.items.count == min(5, page.total))
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.count() == 200)
    }
}

@Suite struct RecipientSearchTests {
    @Test func recipientAndWordsTogetherMatchTheExactAddressOnly() throws {
        let store = try makeStore()
        defer { store.close() }
        let mine = try store.insert(sample(1, to: "Dev@Example.com", subject: "deploy finished"))
        _ = try store.insert(sample(2, to: "dev@example.com.evil.test", subject: "deploy finished"))
        _ = try store.insert(sample(3, to: "ops@example.com", subject: "deploy finished"))
        _ = try store.insert(sample(4, to: "dev@example.com", subject: "lunch"))
        var cc = sample(5, to: "boss@example.com", subject: "deploy report")
        cc.cc = ["<dev@example.com>"]
        let copied = try store.insert(cc)
        let page = try store.list(MessageFilter(to: "dev@example.com", query: "deploy"))
        #expect(page.total == 2)
        #expect(page.items.map(\.id) == [copied, mine])
        #expect(try store.list(MessageFilter(to: "dev@example.com", query: "deploy -report")).items.map(\.id) == [mine])
        #expect(try store.list(MessageFilter(to: "---", query: "deploy")).total == 0)
    }

    @Test func localPartNarrowingKeepsDomainsApart() throws {
        // Same local part at several domains, different volumes: only the exact address counts.
        let store = try makeStore(maxMessages: 10_000)
        defer { store.close() }
        let many = 300
        try store.insert(batch: (0..<many).map { sample($0, to: "busy@example.com", subject: $0 % 3 == 0 ? "alpha" : "beta") })
        try store.insert(batch: (0..<30).map { sample($0, to: "busy@example.org", subject: $0 % 3 == 0 ? "alpha" : "beta") })
        let busy = try store.list(MessageFilter(to: "busy@example.com", query: "alpha", limit: 5))
        #expect(busy.total == (many + 2) / 3)
        #expect(busy.items.allSatisfy { $0.subject == "alpha" && $0.to == ["busy@example.com"] })
        let quiet = try store.list(MessageFilter(to: "busy@example.org", query: "alpha", limit: 5))
        #expect(quiet.total == 10)
        #expect(quiet.items.allSatisfy { $0.subject == "alpha" && $0.to == ["busy@example.org"] })
        #expect(quiet.items.map(\.id) == quiet.items.map(\.id).sorted(by: >))
    }
}
