import Testing
@testable import UnderstudyStore

/// Read state, tags, source and the structured conditions Mailpit's search compiles to.
@Suite struct MessageConditionTests {
    static func store() throws -> (MessageStore, [String]) {
        let store = try makeStore()
        var first = sample(1, to: "alice@example.com", subject: "Your code", text: "Code 123456 for you")
        first.cc = ["carol@example.com"]
        first.tags = ["Signup"]
        var second = sample(2, to: "bob@example.com", subject: "Reset", text: "Reset link inside")
        second.envelopeTo = ["bob@example.com", "hidden@example.com"]
        second.messageID = "reset-1@example.com"
        second.attachmentsJSON = #"[{"part":"2","name":"a.pdf","inline":false}]"#
        second.source = "resend"
        second.fromName = "Reset Robot"
        var third = sample(3, to: "alice@example.com", subject: "Welcome", text: "Hello there", receivedAt: 1_800_000_000_000)
        third.attachmentsJSON = #"[{"part":"2","name":null,"inline":true}]"#
        let ids = try store.insert(batch: [first, second, third])
        return (store, ids)
    }

    static func ids(_ store: MessageStore, _ conditions: [MessageCondition], query: String? = nil) throws -> [String] {
        var filter = MessageFilter(query: query)
        filter.conditions = conditions
        let page = try store.list(filter)
        #expect(page.total == page.items.count)
        return page.items.map(\.id)
    }

    @Test func conditionsSelectTheRightMessages() throws {
        let (store, ids) = try Self.store()
        defer { store.close() }
        #expect(try Self.ids(store, [.text("123456")]) == [ids[0]])
        #expect(try Self.ids(store, [.text("ALICE")]) == [ids[2], ids[0]])
        #expect(try Self.ids(store, [.to("alice@")]) == [ids[2], ids[0]])
        #expect(try Self.ids(store, [.cc("carol")]) == [ids[0]])
        #expect(try Self.ids(store, [.bcc("hidden")]) == [ids[1]])
        #expect(try Self.ids(store, [.bcc("bob")]).isEmpty)
        #expect(try Self.ids(store, [.from("robot")]) == [ids[1]])
        #expect(try Self.ids(store, [.subject("reset")]) == [ids[1]])
        #expect(try Self.ids(store, [.messageID("reset-1")]) == [ids[1]])
        #expect(try Self.ids(store, [.tag("signup")]) == [ids[0]])
        #expect(try Self.ids(store, [.hasAttachment]) == [ids[1]])
        #expect(try Self.ids(store, [.receivedAfter(1_799_000_000_000)]) == [ids[2]])
        #expect(try Self.ids(store, [.receivedBefore(1_799_000_000_000)]) == [ids[1], ids[0]])
        #expect(try Self.ids(store, [.source("resend")]) == [ids[1]])
        #expect(try Self.ids(store, [.source("smtp")]) == [ids[2], ids[0]])
        #expect(try Self.ids(store, [.not(.to("alice"))]) == [ids[1]])
        #expect(try Self.ids(store, [.to("alice"), .not(.text("hello"))]) == [ids[0]])
        // With the full-text index driving, the conditions still narrow (and the count agrees).
        #expect(try Self.ids(store, [.not(.subject("welcome"))], query: "alice") == [ids[0]])
        // LIKE's wildcards are taken literally.
        #expect(try Self.ids(store, [.text("%")]).isEmpty)
    }

    @Test func readStateAndTags() throws {
        let (store, ids) = try Self.store()
        defer { store.close() }
        #expect(try store.unreadCount() == 3)
        #expect(try store.setRead(true, ids: [ids[0], ids[1]]) == 2)
        #expect(try store.unreadCount() == 1)
        #expect(try store.message(id: ids[0])?.summary.isRead == true)
        #expect(try Self.ids(store, [.isRead(false)]) == [ids[2]])
        #expect(try store.setRead(false, ids: nil) == 3)
        #expect(try store.unreadCount() == 3)

        #expect(try store.setTags(["B", " a ", "b", ""], ids: [ids[1], ids[2]]) == 2)
        #expect(try store.message(id: ids[1])?.summary.tags == ["B", "a"])
        #expect(try store.tagCounts().map { "\($0.tag)=\($0.count)" } == ["a=2", "B=2", "Signup=1"])
        #expect(try store.renameTag("b", to: "Beta") == 2)
        #expect(try store.message(id: ids[2])?.summary.tags == ["a", "Beta"])
        #expect(try store.renameTag("signup", to: nil) == 1)
        #expect(try store.message(id: ids[0])?.summary.tags == [])
        #expect(throws: MessageStoreError.self) { try store.setTags([String(repeating: "x", count: 300)], ids: [ids[0]]) }
        #expect(throws: MessageStoreError.self) { try store.setRead(true, ids: ["not an id!"]) }

        #expect(try store.delete(ids: [ids[0], ids[2], ids[2]]).sorted() == [ids[0], ids[2]])
        #expect(try store.count() == 1)
        #expect(try store.message(id: ids[1])?.summary.source == "resend")
        #expect(try store.message(id: ids[1])?.summary.fromName == "Reset Robot")
        try store.verifyIntegrity()
    }
}
