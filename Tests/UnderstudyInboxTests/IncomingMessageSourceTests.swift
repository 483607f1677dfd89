import Testing
@testable import UnderstudyStore
@testable import UnderstudyInbox

/// What an HTTP API message keeps besides its bytes: its source, its tags, its sender's name,
/// also when it is recovered from the log after the process stopped before indexing it.
@Suite struct IncomingMessageSourceTests {
    static let raw = Array("From: \"Robot\" <robot@acme.dev>\r\nTo: a@example.com\r\nX-Tags: one, Two ,one\r\nX-Understudy-Source: resend\r\nSubject: S\r\n\r\nBody\r\n".utf8)

    @Test func digestKeepsTagsNameAndTheSourceGiven() {
        let m = IncomingMessage.digest(raw: Self.raw, envelopeFrom: "robot@acme.dev", envelopeTo: ["a@example.com"], receivedAt: 1, source: "resend")
        #expect(m.tags == ["one", "Two"] && m.fromName == "Robot" && m.source == "resend")
        // Arriving by SMTP, the header does not make it API mail.
        #expect(IncomingMessage.digest(raw: Self.raw, envelopeFrom: "", envelopeTo: ["a@example.com"], receivedAt: 1).source == nil)
    }

    @Test func aRecoveredMessageKeepsItsSource() throws {
        let directory = try TemporaryDirectory.make(prefix: "understudy-inbox-source")
        defer { directory.remove() }
        let path = directory.path + "/store.sqlite"
        let store = try MessageStore(location: .file(path))
        let message = IncomingMessage.digest(raw: Self.raw, envelopeFrom: "robot@acme.dev", envelopeTo: ["a@example.com"],
                                             receivedAt: 1_796_256_000_000, source: "resend")
        let logged = try store.append(message)  // stored, never indexed: as if killed before the commit
        store.close()
        let reopened = try MessageStore(location: .file(path), recover: IncomingMessage.recover)
        defer { reopened.close() }
        let summary = try #require(try reopened.message(id: logged.id)?.summary)
        #expect(summary.source == "resend" && summary.tags == ["one", "Two"] && summary.fromName == "Robot")
    }
}
