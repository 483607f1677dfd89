import Testing
@testable import UnderstudySMTP

/// SMTP smuggling (CVE-2023-51764 and its kin): only CRLF "." CRLF ends DATA. A "." line next to a
/// bare LF is text, so a message cannot carry a second envelope in its body.
@Suite struct SMTPSmugglingTests {
    /// The three end-of-data look-alikes the 2023 fixes in Postfix, Exim and Sendmail stopped accepting.
    static let lookAlikes: [(name: String, bytes: String)] = [("LF.LF", "\n.\n"), ("CRLF.LF", "\r\n.\n"), ("LF.CRLF", "\n.\r\n")]

    static let prologue = "EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nDATA\r\n"
    static let smuggled = "MAIL FROM:<evil@x.test>\r\nRCPT TO:<victim@y.test>\r\nDATA\r\nsmuggled\r\n"

    static func wire(_ lookAlike: String) -> [UInt8] {
        bytes(prologue + "Subject: s\r\n\r\nhello" + lookAlike + smuggled + ".\r\nQUIT\r\n")
    }

    /// Every look-alike becomes an empty line (its dot removed like any leading dot, its line end a CRLF).
    static let expectedData = bytes("Subject: s\r\n\r\nhello\r\n\r\n" + smuggled)

    struct Run {
        var envelopes: [SMTPEnvelope] = []
        var replies = ""
        var closed = false
    }

    /// Feeds `pieces` one `receive` each, storing every delivered message at once.
    static func run(_ pieces: [ArraySlice<UInt8>]) -> Run {
        var session = SMTPSession(configuration: .test)
        var run = Run()
        func perform(_ actions: [SMTPAction]) {
            for action in actions {
                switch action {
                case .send(let reply): run.replies += String(decoding: reply, as: UTF8.self)
                case .deliver(let envelope):
                    run.envelopes.append(envelope)
                    perform(session.deliveryCompleted(.stored(id: "m\(run.envelopes.count)")))
                case .close: run.closed = true
                case .startTLS: Issue.record("STARTTLS is not offered here")
                }
            }
        }
        perform(session.start())
        for piece in pieces { perform(session.receive(piece)) }
        return run
    }

    static func expectOneMessage(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.envelopes.count == 1, sourceLocation: sourceLocation)
        #expect(run.envelopes.first?.mailFrom == "a@b.test", sourceLocation: sourceLocation)
        #expect(run.envelopes.first?.recipients == ["c@d.test"], sourceLocation: sourceLocation)
        #expect(run.envelopes.first?.data == expectedData, sourceLocation: sourceLocation)
        #expect(run.replies.hasSuffix("354 End data with <CR><LF>.<CR><LF>\r\n250 2.0.0 Ok: queued as m1\r\n221 2.0.0 mx.test Bye\r\n"),
                sourceLocation: sourceLocation)
        #expect(run.closed, sourceLocation: sourceLocation)
    }

    @Test(arguments: lookAlikes.map(\.name))
    func lookAlikeIsTextWholeAndByteByByte(name: String) {
        let wire = Self.wire(Self.lookAlikes.first { $0.name == name }!.bytes)
        Self.expectOneMessage(Self.run([wire[...]]))
        Self.expectOneMessage(Self.run(wire.indices.map { wire[$0...$0] }))
    }

    @Test(arguments: lookAlikes.map(\.name))
    func lookAlikeIsTextSplitAnywhere(name: String) {
        let wire = Self.wire(Self.lookAlikes.first { $0.name == name }!.bytes)
        for split in 1..<wire.count {
            let run = Self.run([wire[..<split], wire[split...]])
            #expect(run.envelopes.count == 1 && run.envelopes.first?.data == Self.expectedData, "split at \(split)")
        }
    }

    @Test(arguments: Feeding.allCases)
    func bareLineFeedTextIsStillAccepted(feeding: Feeding) {
        // Bare LF ends a text line (normalised to CRLF); a stuffed dot after one is removed as usual.
        let wire = "one\ntwo\r\n..three\n.\nfour\n.\r\n.\r\n"
        let outcome = Conversation(greeting, ehlo(), SMTPDataTests.data, [.raw(bytes(wire))], queued("lf"), quit).check(feeding)
        #expect(outcome.envelopes.first?.data == bytes("one\r\ntwo\r\n.three\r\n\r\nfour\r\n\r\n"))
    }

    @Test func bdatCarriesLookAlikesAsOctets() {
        // CHUNKING counts octets: no end-of-data sequence exists inside a chunk to smuggle with.
        let chunk = bytes("hello\n.\nMAIL FROM:<evil@x.test>\r\n.\r\nRCPT TO:<v@y.test>\r\n\n.\r\n")
        let wire = bytes("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nBDAT \(chunk.count) LAST\r\n") + chunk
            + bytes("QUIT\r\n")
        for pieces in [[wire[...]], wire.indices.map { wire[$0...$0] }] {
            let run = Self.run(pieces)
            #expect(run.envelopes.count == 1)
            #expect(run.envelopes.first?.data == chunk)
            #expect(run.envelopes.first?.recipients == ["c@d.test"])
        }
    }
}
