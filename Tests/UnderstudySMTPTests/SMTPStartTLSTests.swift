import Testing
@testable import UnderstudySMTP

/// STARTTLS as RFC 3207 says: offered in EHLO, 220 then TLS, everything known before forgotten,
/// pipelined commands after it discarded, and `requireTLS` (530) until it is done.
@Suite struct SMTPStartTLSTests {
    static var offering: SMTPConfiguration {
        var configuration = SMTPConfiguration.test
        configuration.offersTLS = true
        return configuration
    }

    static func ehloOffering(_ name: String = "client.test", starttls: Bool = true) -> [Step] {
        [
            .client("EHLO \(name)"),
            .server("250-mx.test greets \(name)"),
            .server("250-PIPELINING"), .server("250-SIZE 26214400"), .server("250-8BITMIME"), .server("250-SMTPUTF8"),
            .server("250-ENHANCEDSTATUSCODES"), .server("250-AUTH PLAIN LOGIN"),
        ] + (starttls ? [.server("250-CHUNKING"), .server("250 STARTTLS")] : [.server("250 CHUNKING")])
    }

    /// A client waits for the 220 and the handshake before it says more, so these scripts are not
    /// fed pipelined in one piece (that case is `commandsPipelinedAfterStarttlsAreDiscarded`).
    static let waitingForTLS: [Feeding] = [.asWritten, .byteAtATime]

    @Test(arguments: waitingForTLS)
    func starttlsResetsTheSessionAndIsOfferedOnlyBeforeTLS(feeding: Feeding) {
        let conversation = Conversation(Self.offering, greeting, Self.ehloOffering(), [
            .client("STARTTLS"), .server("220 2.0.0 Ready to start TLS"), .startedTLS,
            // What the client said before TLS is forgotten: it greets again.
            .client("MAIL FROM:<a@example.com>"), .server("503 5.5.1 Send EHLO or HELO first"),
        ], Self.ehloOffering(starttls: false), [
            .client("STARTTLS"), .server("503 5.5.1 TLS is already active"),
            .client("MAIL FROM:<a@example.com>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<b@example.com>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("Subject: over TLS\r\n\r\nhello\r\n.\r\n")),
        ], queued("T1"), quit)
        let outcome = conversation.check(feeding)
        #expect(outcome.envelopes.first?.overTLS == true)
        #expect(outcome.envelopes.first?.receivedProtocol == "ESMTPS")
    }

    /// CVE-2011-0411 and its kin: bytes pipelined behind STARTTLS in the same packet would
    /// otherwise be taken as if they had come over TLS.
    @Test func commandsPipelinedAfterStarttlsAreDiscarded() {
        var session = SMTPSession(configuration: Self.offering)
        _ = session.start()
        _ = session.receive(bytes("EHLO client.test\r\n"))
        let actions = session.receive(bytes("STARTTLS\r\nMAIL FROM:<injected@example.com>\r\nRCPT TO:<x@example.com>\r\n"))
        #expect(actions == [.send(bytes("220 2.0.0 Ready to start TLS\r\n")), .startTLS])
        // After the handshake the session sees only what comes over TLS.
        let after = session.receive(bytes("RCPT TO:<x@example.com>\r\n"))
        #expect(after == [.send(bytes("503 5.5.1 Send EHLO or HELO first\r\n"))])
    }

    @Test(arguments: Feeding.allCases)
    func starttlsRefusesArgumentsAndOpenTransactions(feeding: Feeding) {
        Conversation(Self.offering, greeting, Self.ehloOffering(), [
            .client("STARTTLS now"), .server("501 5.5.4 Syntax: STARTTLS"),
            .client("MAIL FROM:<a@example.com>"), .server("250 2.1.0 Sender ok"),
            .client("STARTTLS"), .server("503 5.5.1 STARTTLS not allowed during a mail transaction"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func withoutTLSOfferedStarttlsIsNotImplemented(feeding: Feeding) {
        Conversation(greeting, ehlo(), [.client("STARTTLS"), .server("502 5.5.1 STARTTLS not implemented")], quit)
            .check(feeding)
    }

    @Test(arguments: waitingForTLS)
    func requireTLSRefusesMailUntilTLS(feeding: Feeding) {
        var configuration = Self.offering
        configuration.requireTLS = true
        Conversation(configuration, greeting, Self.ehloOffering(), [
            .client("MAIL FROM:<a@example.com>"), .server("530 5.7.0 Must issue a STARTTLS command first"),
            .client("AUTH PLAIN AGEAYg=="), .server("530 5.7.0 Must issue a STARTTLS command first"),
            .client("STARTTLS"), .server("220 2.0.0 Ready to start TLS"), .startedTLS,
        ], Self.ehloOffering(starttls: false), [
            .client("MAIL FROM:<a@example.com>"), .server("250 2.1.0 Sender ok"),
        ], quit).check(feeding)
    }

    @Test func anImplicitTLSSessionStartsWithTLSActive() {
        var configuration = Self.offering
        configuration.requireTLS = true
        var session = SMTPSession(configuration: configuration)
        session.tlsIsActive()
        _ = session.start()
        _ = session.receive(bytes("EHLO client.test\r\n"))
        #expect(session.receive(bytes("MAIL FROM:<a@example.com>\r\n")) == [.send(bytes("250 2.1.0 Sender ok\r\n"))])
    }
}
