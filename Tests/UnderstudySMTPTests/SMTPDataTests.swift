import Testing
@testable import UnderstudySMTP

@Suite struct SMTPDataTests {
    static let transaction: [Step] = [
        .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
        .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
    ]
    static let data: [Step] = [
        .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
        .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
        .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
    ]

    @Test(arguments: Feeding.allCases)
    func dotUnstuffing(feeding: Feeding) {
        // RFC 5321 4.5.2: a client doubles a leading dot; a line that is just ".." carries one ".".
        let wire = "..\r\n...\r\n..leading dot\r\nmiddle . dot\r\n.\r\n"
        let outcome = Conversation(greeting, ehlo(), Self.data, [.raw(bytes(wire))], queued("dots"), quit).check(feeding)
        #expect(outcome.envelopes.first?.data == bytes(".\r\n..\r\n.leading dot\r\nmiddle . dot\r\n"))
    }

    @Test(arguments: Feeding.allCases)
    func almostTerminators(feeding: Feeding) {
        // ".x", ". ", ".\r" followed by text and "\r.\r\n" are not the end of data.
        let wire = ".x\r\n. \r\n.\rz\r\n\r.\r\nend\r\n.\r\n"
        let outcome = Conversation(greeting, ehlo(), Self.data, [.raw(bytes(wire))], queued("almost"), quit).check(feeding)
        #expect(outcome.envelopes.first?.data == bytes("x\r\n \r\n\rz\r\n\r.\r\nend\r\n"))
    }

    @Test(arguments: Feeding.allCases)
    func emptyMessage(feeding: Feeding) {
        let outcome = Conversation(greeting, ehlo(), Self.data, [.raw(bytes(".\r\n"))], queued("empty"), quit).check(feeding)
        #expect(outcome.envelopes.first?.data == [])
    }

    @Test(arguments: Feeding.allCases)
    func bareLineFeedsAreNormalised(feeding: Feeding) {
        // Commands and data with bare LF; only CRLF.CRLF ends the data (see SMTPSmugglingTests).
        let outcome = Conversation(greeting, [
            .raw(bytes("EHLO lf.test\n")),
            .server("250-mx.test greets lf.test"),
            .server("250-PIPELINING"), .server("250-SIZE 26214400"), .server("250-8BITMIME"), .server("250-SMTPUTF8"),
            .server("250-ENHANCEDSTATUSCODES"), .server("250-AUTH PLAIN LOGIN"), .server("250 CHUNKING"),
            .raw(bytes("MAIL FROM:<a@b.test>\nRCPT TO:<c@d.test>\nDATA\n")),
            .server("250 2.1.0 Sender ok"), .server("250 2.1.5 Recipient ok"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("Subject: lf\n\nline one\r\nline two\n..stuffed\r\n.\r\n")),
        ], queued("lf"), [.raw(bytes("QUIT\n")), .server("221 2.0.0 mx.test Bye"), .closed]).check(feeding)
        #expect(outcome.envelopes.first?.data == bytes("Subject: lf\r\n\r\nline one\r\nline two\r\n.stuffed\r\n"))
    }

    @Test(arguments: Feeding.allCases)
    func bdatCarriesBinaryExactly(feeding: Feeding) {
        // Binary data with CRLF.CRLF, a lone LF, NUL and 0xFF: CHUNKING passes it through untouched.
        let first: [UInt8] = [0x00, 0xFF, 13, 10, 0x2E, 13, 10, 10, 0x2E, 0x2E]
        let second: [UInt8] = bytes("\r\n.\r\nQUIT\r\n")
        let outcome = Conversation(greeting, ehlo(), Self.transaction, [
            .client("BDAT \(first.count)"), .raw(first), .server("250 2.0.0 \(first.count) octets received"),
            .client("BDAT \(second.count) LAST"), .raw(second),
        ], queued("bin"), Self.transaction, [
            .client("BDAT 0 LAST"),
        ], queued("zero"), quit).check(feeding)
        #expect(outcome.envelopes.map(\.data) == [first + second, []])
        #expect(outcome.envelopes.map(\.usedChunking) == [true, true])
    }

    @Test(arguments: Feeding.allCases)
    func pipelinedTransactionsWaitForEachDelivery(feeding: Feeding) {
        // PIPELINING (RFC 2920): MAIL, RCPT, DATA in one write; after the data the next transaction
        // follows at once, and its replies come only after the first message's 250.
        let outcome = Conversation(greeting, ehlo(), [
            .raw(bytes("MAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nRCPT TO:<e@d.test>\r\nDATA\r\n")),
            .server("250 2.1.0 Sender ok"), .server("250 2.1.5 Recipient ok"), .server("250 2.1.5 Recipient ok"),
            .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("first\r\n.\r\nMAIL FROM:<x@b.test>\r\nRCPT TO:<y@d.test>\r\nDATA\r\n")),
            .delivered(.stored(id: "m1")), .server("250 2.0.0 Ok: queued as m1"),
            .server("250 2.1.0 Sender ok"), .server("250 2.1.5 Recipient ok"),
            .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("second\r\n.\r\nQUIT\r\n")),
            .delivered(.failed(reason: "disk\r\nfull")), .server("451 4.3.0 disk  full"),
            .server("221 2.0.0 mx.test Bye"), .closed,
        ]).check(feeding)
        #expect(outcome.envelopes.map(\.data) == [bytes("first\r\n"), bytes("second\r\n")])
        #expect(outcome.envelopes.map(\.recipients) == [["c@d.test", "e@d.test"], ["y@d.test"]])
    }

    @Test func nothingIsAnsweredUntilDeliveryCompletes() {
        var session = SMTPSession(configuration: .test)
        _ = session.start()
        _ = session.receive(bytes("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nDATA\r\n"))
        #expect(session.currentTimeout == .seconds(180))
        let actions = session.receive(bytes("hello\r\n.\r\nNOOP\r\n"))
        guard case .deliver(let envelope)? = actions.first, actions.count == 1 else {
            Issue.record("expected exactly one deliver, got \(actions)")
            return
        }
        #expect(envelope.data == bytes("hello\r\n"))
        #expect(!session.wantsInput)
        #expect(session.currentTimeout == nil)
        #expect(session.receive(bytes("NOOP\r\n")) == [])
        // A timer firing anyway still ends the session, and the late result is then ignored.
        #expect(session.timedOut() == [
            .send(bytes("421 4.4.2 mx.test Timeout waiting for the client, closing connection\r\n")), .close,
        ])
        #expect(session.deliveryCompleted(.stored(id: "late")) == [])
    }

    @Test func deliveryCompletedAnswersPipelinedCommands() {
        var session = SMTPSession(configuration: .test)
        _ = session.start()
        _ = session.receive(bytes("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nDATA\r\n"))
        let actions = session.receive(bytes("hello\r\n.\r\nNOOP\r\nQUIT\r\n"))
        #expect(actions.count == 1)
        #expect(session.receive(bytes("NOOP\r\n")) == [])
        #expect(session.deliveryCompleted(.stored(id: "q")) == [
            .send(bytes("250 2.0.0 Ok: queued as q\r\n250 2.0.0 Ok\r\n221 2.0.0 mx.test Bye\r\n")), .close,
        ])
        #expect(session.deliveryCompleted(.stored(id: "again")) == [])
    }

    @Test func floodWhileWaitingForDeliveryCloses() {
        var session = SMTPSession(configuration: .test)
        _ = session.start()
        _ = session.receive(bytes("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nDATA\r\nx\r\n.\r\n"))
        let flood = [UInt8](repeating: UInt8(ascii: "N"), count: SMTPSession.maxBufferedInputWhileDelivering + 1)
        #expect(session.receive(flood) == [])
        #expect(session.deliveryCompleted(.stored(id: "f")) == [
            .send(bytes("250 2.0.0 Ok: queued as f\r\n421 4.7.0 mx.test Too much pipelined input, closing connection\r\n")), .close,
        ])
    }

    @Test func timeoutFollowsThePhase() {
        var configuration = SMTPConfiguration.test
        configuration.commandTimeout = .seconds(30)
        configuration.dataTimeout = .seconds(10)
        var session = SMTPSession(configuration: configuration)
        _ = session.start()
        #expect(session.currentTimeout == .seconds(30))
        _ = session.receive(bytes("EHLO c.test\r\nAUTH LOGIN\r\n"))
        #expect(session.currentTimeout == .seconds(30))
        _ = session.receive(bytes("*\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nBDAT 10\r\nabc"))
        #expect(session.currentTimeout == .seconds(10))
        _ = session.receive(bytes("defghij"))
        #expect(session.currentTimeout == .seconds(30))
        _ = session.receive(bytes("BDAT 0 LAST\r\n"))
        #expect(session.currentTimeout == nil)
        _ = session.deliveryCompleted(.stored(id: "t"))
        #expect(session.currentTimeout == .seconds(30))
        #expect(session.timedOut() == [
            .send(bytes("421 4.4.2 mx.test Timeout waiting for the client, closing connection\r\n")), .close,
        ])
        #expect(session.currentTimeout == nil)
    }

    @Test func largeMessageInManyReads() {
        var session = SMTPSession(configuration: .test)
        _ = session.start()
        _ = session.receive(bytes("EHLO c.test\r\nMAIL FROM:<a@b.test> SIZE=2000000\r\nRCPT TO:<c@d.test>\r\nDATA\r\n"))
        var line = [UInt8](repeating: UInt8(ascii: "m"), count: 76)
        line[0] = UInt8(ascii: ".")
        line += [13, 10]
        var wire: [UInt8] = []
        var expected: [UInt8] = []
        while expected.count < 2_000_000 - 78 {
            wire += line
            expected += line.dropFirst()
        }
        wire += bytes(".\r\n")
        var delivered: [SMTPEnvelope] = []
        var offset = 0
        while offset < wire.count {
            let end = min(offset + 1500, wire.count)  // reads split lines anywhere
            for case .deliver(let envelope) in session.receive(wire[offset..<end]) { delivered.append(envelope) }
            offset = end
        }
        #expect(delivered.count == 1)
        let data = delivered.first?.data ?? []
        #expect(data.count == expected.count)
        let identical = data == expected  // compared outside #expect so a failure does not print megabytes
        #expect(identical)
    }
}

@Suite struct SMTPBase64Tests {
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy"),
                      ("Username:", "VXNlcm5hbWU6"), ("Password:", "UGFzc3dvcmQ6")])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(SMTPBase64.encode(bytes(plain)) == encoded)
        #expect(SMTPBase64.decode(bytes(encoded)) == bytes(plain))
    }

    @Test(arguments: ["Zg", "Zg=", "Z===", "Zm9v!", "Zg==Zg==", "Zm 9", "=Zm9"])
    func rejectsMalformed(text: String) {
        #expect(SMTPBase64.decode(bytes(text)) == nil)
    }

    @Test func allBytesRoundTrip() {
        let all = (0...255).map(UInt8.init)
        #expect(SMTPBase64.decode(bytes(SMTPBase64.encode(all))) == all)
    }
}
