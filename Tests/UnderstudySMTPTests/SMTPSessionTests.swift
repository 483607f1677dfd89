import Testing
@testable import UnderstudySMTP

// Conversations from RFC 5321 appendix D, client side verbatim, with this server's replies.
@Suite struct RFC5321ExampleTests {
    @Test(arguments: Feeding.allCases)
    func d1TypicalTransaction(feeding: Feeding) {
        let conversation = Conversation(greeting, [
            .client("EHLO bar.com"),
            .server("250-mx.test greets bar.com"),
            .server("250-PIPELINING"), .server("250-SIZE 26214400"), .server("250-8BITMIME"), .server("250-SMTPUTF8"),
            .server("250-ENHANCEDSTATUSCODES"), .server("250-AUTH PLAIN LOGIN"), .server("250 CHUNKING"),
            .client("MAIL FROM:<Smith@bar.com>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<Jones@foo.com>"), .server("250 2.1.5 Recipient ok"),
            .client("RCPT TO:<Green@foo.com>"), .server("250 2.1.5 Recipient ok"),
            .client("RCPT TO:<Brown@foo.com>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("Blah blah blah...\r\n...etc. etc. etc.\r\n.\r\n")),
        ], queued("D1"), quit)
        let outcome = conversation.check(feeding)
        let envelope = outcome.envelopes.first
        #expect(outcome.envelopes.count == 1)
        #expect(envelope?.heloName == "bar.com")
        #expect(envelope?.usedEHLO == true)
        #expect(envelope?.mailFrom == "Smith@bar.com")
        #expect(envelope?.recipients == ["Jones@foo.com", "Green@foo.com", "Brown@foo.com"])
        // The leading dot of "...etc." is a stuffed dot (RFC 5321 4.5.2).
        #expect(envelope?.data == bytes("Blah blah blah...\r\n..etc. etc. etc.\r\n"))
        #expect(envelope?.declaredSize == nil)
        #expect(envelope?.bodyType == nil)
        #expect(envelope?.smtpUTF8 == false)
        #expect(envelope?.authenticatedUser == nil)
        #expect(envelope?.usedChunking == false)
        #expect(envelope?.receivedProtocol == "ESMTP")
        #expect(outcome.session.isClosed)
    }

    @Test(arguments: Feeding.allCases)
    func d2AbortedTransaction(feeding: Feeding) {
        let conversation = Conversation(greeting, ehlo("bar.com"), [
            .client("MAIL FROM:<Smith@bar.com>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<Jones@foo.com>"), .server("250 2.1.5 Recipient ok"),
            .client("RCPT TO:<Green@foo.com>"), .server("250 2.1.5 Recipient ok"),
            .client("RSET"), .server("250 2.0.0 Ok"),
            // The aborted transaction is gone: DATA has nothing to send.
            .client("DATA"), .server("503 5.5.1 Send MAIL first"),
        ], quit)
        #expect(conversation.check(feeding).envelopes.isEmpty)
    }

    @Test(arguments: Feeding.allCases)
    func d3RelayedMail(feeding: Feeding) {
        let message = "Date: Thu, 21 May 1998 05:33:29 -0700\r\nFrom: John Q. Public <JQP@bar.com>\r\n"
            + "Subject: The Next Meeting of the Board\r\nTo: Jones@xyz.com\r\n\r\nBill:\r\n"
            + "The next meeting of the board of directors will be\r\non Tuesday.\r\nJohn.\r\n"
        let conversation = Conversation(greeting, ehlo("foo.com"), [
            .client("MAIL FROM:<JQP@bar.com>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<Jones@XYZ.COM>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes(message + ".\r\n")),
        ], queued("D3"), quit)
        let outcome = conversation.check(feeding)
        #expect(outcome.envelopes.map(\.data) == [bytes(message)])
        #expect(outcome.envelopes.first?.recipients == ["Jones@XYZ.COM"])
    }

    @Test(arguments: Feeding.allCases)
    func d4VerifyingAndSending(feeding: Feeding) {
        let conversation = Conversation(greeting, ehlo("bar.com"), [
            .client("VRFY Crispin"), .server("252 2.5.0 Cannot VRFY user, but will accept message and attempt delivery"),
            .client("MAIL FROM:<EAK@bar.com>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<Admin.MRC@foo.com>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("Blah blah blah...\r\n...etc. etc. etc.\r\n.\r\n")),
        ], queued("D4"), quit)
        #expect(conversation.check(feeding).envelopes.map(\.mailFrom) == ["EAK@bar.com"])
    }

    /// RFC 5321 appendix C: a source route must be accepted and ignored.
    @Test(arguments: Feeding.allCases)
    func sourceRouteIsIgnored(feeding: Feeding) {
        let conversation = Conversation(greeting, ehlo(), [
            .client("MAIL FROM:<@ONE,@TWO:JOE@THREE>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<@hosta.int,@jkl.org:userc@d.bar.org>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes(".\r\n")),
        ], queued("C"), quit)
        let envelope = conversation.check(feeding).envelopes.first
        #expect(envelope?.mailFrom == "JOE@THREE")
        #expect(envelope?.recipients == ["userc@d.bar.org"])
        #expect(envelope?.data == [])
    }
}

@Suite struct SMTPGreetingTests {
    @Test(arguments: Feeding.allCases)
    func heloGetsOneLineAndNoExtensions(feeding: Feeding) {
        let conversation = Conversation(greeting, [
            .client("HELO old.client"), .server("250 mx.test greets old.client"),
            .client("MAIL FROM:<a@old.client>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<b@mx.test>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("hi\r\n.\r\n")),
        ], queued("h"), quit)
        let envelope = conversation.check(feeding).envelopes.first
        #expect(envelope?.usedEHLO == false)
        #expect(envelope?.heloName == "old.client")
        #expect(envelope?.receivedProtocol == "SMTP")
    }

    @Test(arguments: Feeding.allCases)
    func ehloAdvertisesConfiguredSizeAndNeedsAName(feeding: Feeding) {
        var configuration = SMTPConfiguration.test
        configuration.maxMessageSize = 1000
        Conversation(configuration, greeting, [
            .client("EHLO"), .server("501 5.5.4 Syntax: EHLO hostname"),
            .client("HELO"), .server("501 5.5.4 Syntax: HELO hostname"),
        ], ehlo("[127.0.0.1]", size: 1000), quit).check(feeding)
    }

    @Test func greetingIsSentOnce() {
        var session = SMTPSession(configuration: .test)
        #expect(session.start() == [.send(bytes("220 mx.test ESMTP Understudy\r\n"))])
        #expect(session.start() == [])
    }

    @Test func hostnameCannotBreakFraming() {
        let configuration = SMTPConfiguration(hostname: "evil\r\n250 fake")
        #expect(configuration.hostname == "evil250fake")
        #expect(SMTPConfiguration(hostname: " ").hostname == "localhost")
    }
}

@Suite struct SMTPAuthTests {
    static var withCredentials: SMTPConfiguration {
        var configuration = SMTPConfiguration.test
        configuration.credentials = SMTPCredentials(username: "user", password: "secret")
        return configuration
    }

    /// `\0user\0secret` in base64 (RFC 4616).
    static let plainUserSecret = SMTPBase64.encode(bytes("\0user\0secret"))

    static func sendOne(from sender: String = "a@client.test") -> [Step] {
        [
            .client("MAIL FROM:<\(sender)>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<b@mx.test>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("x\r\n.\r\n")),
            .delivered(.stored(id: "a")), .server("250 2.0.0 Ok: queued as a"),
        ]
    }

    @Test func plainExampleIsTheKnownEncoding() {
        #expect(Self.plainUserSecret == "AHVzZXIAc2VjcmV0")
    }

    @Test(arguments: Feeding.allCases)
    func plainWithInitialResponse(feeding: Feeding) {
        let outcome = Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0"), .server("235 2.7.0 Authentication successful"),
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0"), .server("503 5.5.1 Already authenticated"),
        ], Self.sendOne(), quit).check(feeding)
        #expect(outcome.envelopes.first?.authenticatedUser == "user")
        #expect(outcome.envelopes.first?.receivedProtocol == "ESMTPA")
    }

    @Test(arguments: Feeding.allCases)
    func plainWithContinuation(feeding: Feeding) {
        Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("AUTH PLAIN"), .server("334 "),
            .client("AHVzZXIAc2VjcmV0"), .server("235 2.7.0 Authentication successful"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func plainWithMatchingAuthorizationIdentity(feeding: Feeding) {
        Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("AUTH PLAIN " + SMTPBase64.encode(bytes("other\0user\0secret"))),
            .server("535 5.7.8 Authentication credentials invalid: cannot act as another user"),
            .client("AUTH PLAIN " + SMTPBase64.encode(bytes("user\0user\0secret"))),
            .server("235 2.7.0 Authentication successful"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func loginWithTwoPrompts(feeding: Feeding) {
        let outcome = Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("AUTH LOGIN"), .server("334 VXNlcm5hbWU6"),
            .client("dXNlcg=="), .server("334 UGFzc3dvcmQ6"),
            .client("c2VjcmV0"), .server("235 2.7.0 Authentication successful"),
        ], Self.sendOne(), quit).check(feeding)
        #expect(outcome.envelopes.first?.authenticatedUser == "user")
    }

    @Test(arguments: Feeding.allCases)
    func loginWithInitialUsername(feeding: Feeding) {
        Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("auth login dXNlcg=="), .server("334 UGFzc3dvcmQ6"),
            .client("c2VjcmV0"), .server("235 2.7.0 Authentication successful"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func wrongCredentialsThenRight(feeding: Feeding) {
        Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("AUTH PLAIN " + SMTPBase64.encode(bytes("\0user\0wrong"))),
            .server("535 5.7.8 Authentication credentials invalid"),
            .client("AUTH LOGIN"), .server("334 VXNlcm5hbWU6"),
            .client(SMTPBase64.encode(bytes("someone"))), .server("334 UGFzc3dvcmQ6"),
            .client("c2VjcmV0"), .server("535 5.7.8 Authentication credentials invalid"),
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0"), .server("235 2.7.0 Authentication successful"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func badBase64AndMalformedPlain(feeding: Feeding) {
        Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("AUTH PLAIN !!!!"), .server("501 5.5.2 Invalid base64 in the AUTH response"),
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0="), .server("501 5.5.2 Invalid base64 in the AUTH response"),
            .client("AUTH LOGIN"), .server("334 VXNlcm5hbWU6"),
            .client("dXNlcg"), .server("501 5.5.2 Invalid base64 in the AUTH response"),
            .client("AUTH PLAIN " + SMTPBase64.encode(bytes("user-without-nul"))),
            .server("501 5.5.2 Malformed PLAIN response: expected authzid NUL user NUL password"),
            .client("AUTH CRAM-MD5"), .server("504 5.5.4 Unrecognized authentication type: use PLAIN or LOGIN"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func cancelWithStar(feeding: Feeding) {
        Conversation(Self.withCredentials, greeting, ehlo(), [
            .client("AUTH PLAIN"), .server("334 "),
            .client("*"), .server("501 5.7.0 Authentication cancelled"),
            .client("AUTH LOGIN"), .server("334 VXNlcm5hbWU6"),
            .client("dXNlcg=="), .server("334 UGFzc3dvcmQ6"),
            .client("*"), .server("501 5.7.0 Authentication cancelled"),
            // Cancelled means not authenticated: a new AUTH is allowed.
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0"), .server("235 2.7.0 Authentication successful"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func anyCredentialsWhenNoneConfigured(feeding: Feeding) {
        let outcome = Conversation(greeting, ehlo(), [
            .client("AUTH PLAIN " + SMTPBase64.encode(bytes("\0anyone@example.com\0whatever"))),
            .server("235 2.7.0 Authentication successful"),
        ], Self.sendOne(), quit).check(feeding)
        #expect(outcome.envelopes.first?.authenticatedUser == "anyone@example.com")
    }

    @Test(arguments: Feeding.allCases)
    func authOrderRules(feeding: Feeding) {
        Conversation(greeting, [
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0"), .server("503 5.5.1 Send EHLO first"),
        ], ehlo(), [
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0"), .server("503 5.5.1 AUTH not allowed during a mail transaction"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func requireAuthentication(feeding: Feeding) {
        var configuration = Self.withCredentials
        configuration.requireAuthentication = true
        Conversation(configuration, greeting, ehlo(), [
            .client("MAIL FROM:<a@client.test>"), .server("530 5.7.0 Authentication required: send AUTH first"),
            .client("AUTH PLAIN AHVzZXIAc2VjcmV0"), .server("235 2.7.0 Authentication successful"),
        ], Self.sendOne(), quit).check(feeding)
    }

    @Test func credentialsNeverPrintThePassword() {
        let credentials = SMTPCredentials(username: "user", password: "hunter2")
        #expect(!"\(credentials)".contains("hunter2"))
    }
}

@Suite struct SMTPLimitTests {
    @Test(arguments: Feeding.allCases)
    func sizeDeclaredOnMail(feeding: Feeding) {
        var configuration = SMTPConfiguration.test
        configuration.maxMessageSize = 100
        let outcome = Conversation(configuration, greeting, ehlo(size: 100), [
            .client("MAIL FROM:<a@b.test> SIZE=101"),
            .server("552 5.3.4 Message size exceeds fixed maximum message size (100 octets)"),
            .client("MAIL FROM:<a@b.test> SIZE=abc"), .server("501 5.5.4 Syntax: SIZE=<number of octets>"),
            .client("MAIL FROM:<a@b.test> SIZE=99999999999999999999999"), .server("501 5.5.4 Syntax: SIZE=<number of octets>"),
            .client("MAIL FROM:<a@b.test> SIZE=100 BODY=8BITMIME"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("ok\r\n.\r\n")),
        ], queued("s"), quit).check(feeding)
        #expect(outcome.envelopes.first?.declaredSize == 100)
        #expect(outcome.envelopes.first?.bodyType == .eightBitMIME)
    }

    @Test(arguments: Feeding.allCases)
    func sizeCheckedWhenTheDataEnds(feeding: Feeding) {
        var configuration = SMTPConfiguration.test
        configuration.maxMessageSize = 100
        let exactly100 = String(repeating: "a", count: 98) + "\r\n"  // 100 octets with its CRLF
        let tooBig = String(repeating: "b", count: 60) + "\r\n" + String(repeating: "c", count: 60) + "\r\n"
        let transaction: [Step] = [
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
        ]
        let outcome = Conversation(configuration, greeting, ehlo(size: 100), transaction, [
            .raw(bytes(tooBig + ".\r\n")),
            .server("552 5.3.4 Message size exceeds fixed maximum message size (100 octets)"),
            // The refused transaction is over; the session goes on.
        ], transaction, [.raw(bytes(exactly100 + ".\r\n"))], queued("fits"), [
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("BDAT 60"), .raw(bytes(String(repeating: "x", count: 60))), .server("250 2.0.0 60 octets received"),
            .client("BDAT 41 LAST"), .raw(bytes(String(repeating: "y", count: 41))),
            .server("552 5.3.4 Message size exceeds fixed maximum message size (100 octets)"),
        ], quit).check(feeding)
        #expect(outcome.envelopes.map(\.data) == [bytes(exactly100)])
    }

    @Test func oversizedBodyIsNotBuffered() {
        var configuration = SMTPConfiguration.test
        configuration.maxMessageSize = 1000
        var body = SMTPMessageBody(limit: configuration.maxMessageSize, expectedSize: nil)
        let chunk = [UInt8](repeating: 65, count: 600)
        chunk.withUnsafeBufferPointer { body.append($0) }
        #expect(body.bytes.count == 600)
        chunk.withUnsafeBufferPointer { body.append($0) }
        #expect(body.exceedsLimit)
        #expect(body.bytes.isEmpty)
        #expect(body.bytes.capacity == 0)
        #expect(body.size == 1200)
    }

    @Test(arguments: Feeding.allCases)
    func maxRecipients(feeding: Feeding) {
        var configuration = SMTPConfiguration.test
        configuration.maxRecipients = 2
        let outcome = Conversation(configuration, greeting, ehlo(), [
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<one@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("RCPT TO:<two@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("RCPT TO:<three@d.test>"), .server("452 4.5.3 Too many recipients (limit 2)"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("x\r\n.\r\n")),
        ], queued("r"), quit).check(feeding)
        #expect(outcome.envelopes.first?.recipients == ["one@d.test", "two@d.test"])
    }

    @Test(arguments: Feeding.allCases)
    func tooLongCommandLine(feeding: Feeding) {
        let longArgument = String(repeating: "x", count: 600)
        let hugeLine = String(repeating: "y", count: 20_000)
        Conversation(greeting, ehlo(), [
            .client("NOOP " + longArgument), .server("500 5.5.2 Line too long (limit 512 octets)"),
            // Longer than any line the session buffers: discarded up to its end, then the same reply.
            .client(hugeLine), .server("500 5.5.2 Line too long (limit 512 octets)"),
            .client("MAIL FROM:<a@b.test> " + longArgument), .server("500 5.5.2 Line too long (limit 512 octets)"),
            // A 510-octet line plus CRLF is exactly 512: accepted.
            .client("NOOP " + String(repeating: "z", count: 505)), .server("250 2.0.0 Ok"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func longDataLinesAreAccepted(feeding: Feeding) {
        let line = String(repeating: "L", count: 5000) + "\r\n"
        let outcome = Conversation(greeting, ehlo(), [
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes(line + ".\r\n")),
        ], queued("long"), quit).check(feeding)
        #expect(outcome.envelopes.first?.data == bytes(line))
    }

    @Test(arguments: Feeding.allCases)
    func tooManyErrorsCloses(feeding: Feeding) {
        var configuration = SMTPConfiguration.test
        configuration.maxInvalidCommands = 3
        let outcome = Conversation(configuration, greeting, [
            .client("FOO"), .server("500 5.5.1 Command unrecognized"),
            .client("MAIL FROM:<a@b.test>"), .server("503 5.5.1 Send EHLO or HELO first"),
            .client("BAR"), .server("500 5.5.1 Command unrecognized"),
            .server("421 4.7.0 mx.test Too many errors, closing connection"), .closed,
            .client("NOOP"),  // ignored after close
        ]).check(feeding)
        #expect(outcome.session.isClosed)
        #expect(outcome.session.currentTimeout == nil)
    }

    @Test(arguments: Feeding.allCases)
    func tooManyJunkCommandsCloses(feeding: Feeding) {
        var configuration = SMTPConfiguration.test
        configuration.maxJunkCommands = 2
        Conversation(configuration, greeting, [
            .client("NOOP"), .server("250 2.0.0 Ok"),
            .client("RSET"), .server("250 2.0.0 Ok"),
            .client("NOOP"), .server("421 4.7.0 mx.test Too many commands without a message, closing connection"), .closed,
        ]).check(feeding)
    }
}

@Suite struct SMTPSequenceTests {
    static let mailAndRcpt: [Step] = [
        .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
        .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
    ]

    @Test(arguments: Feeding.allCases)
    func commandsOutOfOrder(feeding: Feeding) {
        Conversation(greeting, [
            .client("MAIL FROM:<a@b.test>"), .server("503 5.5.1 Send EHLO or HELO first"),
            .client("RCPT TO:<c@d.test>"), .server("503 5.5.1 Send EHLO or HELO first"),
            .client("DATA"), .server("503 5.5.1 Send EHLO or HELO first"),
        ], ehlo(), [
            .client("RCPT TO:<c@d.test>"), .server("503 5.5.1 Send MAIL first"),
            .client("DATA"), .server("503 5.5.1 Send MAIL first"),
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .client("DATA"), .server("503 5.5.1 Need RCPT: send RCPT TO first"),
            .client("MAIL FROM:<a@b.test>"), .server("503 5.5.1 Nested MAIL command: send RSET to abort the current transaction"),
            // BDAT without RCPT: the chunk is still read, so its bytes are not taken for commands.
            .client("BDAT 6"), .raw(bytes("QUIT\r\n")), .server("503 5.5.1 Need RCPT: send RCPT TO first"),
            .client("RCPT TO:<c@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("BDAT 3"), .raw(bytes("abc")), .server("250 2.0.0 3 octets received"),
            .client("DATA"), .server("503 5.5.1 DATA not allowed after BDAT"),
            .client("RCPT TO:<e@d.test>"), .server("503 5.5.1 RCPT not allowed after BDAT"),
            .client("BDAT 0 LAST"),
        ], queued("seq"), quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func rsetClearsTheTransactionButNotTheGreetingOrAuth(feeding: Feeding) {
        let outcome = Conversation(greeting, ehlo(), [
            .client("AUTH PLAIN " + SMTPBase64.encode(bytes("\0me\0pw"))), .server("235 2.7.0 Authentication successful"),
        ], Self.mailAndRcpt, [
            .client("RSET"), .server("250 2.0.0 Ok"),
            .client("RCPT TO:<c@d.test>"), .server("503 5.5.1 Send MAIL first"),
            .client("RSET extra"), .server("501 5.5.4 Syntax: RSET"),
            .client("MAIL FROM:<new@b.test>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<only@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("x\r\n.\r\n")),
        ], queued("after-rset"), quit).check(feeding)
        #expect(outcome.envelopes.first?.mailFrom == "new@b.test")
        #expect(outcome.envelopes.first?.recipients == ["only@d.test"])
        #expect(outcome.envelopes.first?.authenticatedUser == "me")
    }

    @Test(arguments: Feeding.allCases)
    func ehloAbortsTheTransaction(feeding: Feeding) {
        Conversation(greeting, ehlo(), Self.mailAndRcpt, ehlo("again.test"), [
            .client("DATA"), .server("503 5.5.1 Send MAIL first"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func unknownAndUnimplementedCommands(feeding: Feeding) {
        Conversation(greeting, ehlo(), [
            .client("XYZZY"), .server("500 5.5.1 Command unrecognized"),
            .client("STARTTLS"), .server("502 5.5.1 STARTTLS not implemented"),
            .client("EXPN staff"), .server("502 5.5.1 EXPN not implemented"),
            .client(""), .server("500 5.5.2 Empty command line"),
            .client("GET / HTTP/1.1"), .server("500 5.5.1 Command unrecognized"),
            .client("noop lowercase works"), .server("250 2.0.0 Ok"),
            .client("HELP"), .server("214 2.0.0 Commands: EHLO HELO MAIL RCPT DATA BDAT RSET NOOP QUIT VRFY HELP AUTH"),
            .client("VRFY"), .server("501 5.5.4 Syntax: VRFY <address>"),
            .client("DATA now"), .server("501 5.5.4 Syntax: DATA"),
            .client("BDAT x"), .server("501 5.5.4 Syntax: BDAT <octets> [LAST]"),
            .client("BDAT 5 FIRST"), .server("501 5.5.4 Syntax: BDAT <octets> [LAST]"),
        ], quit).check(feeding)
    }

    @Test(arguments: Feeding.allCases)
    func quitClosesAndIgnoresWhatFollows(feeding: Feeding) {
        let outcome = Conversation(greeting, [
            .client("QUIT"), .server("221 2.0.0 mx.test Bye"), .closed,
            .client("NOOP"),
        ]).check(feeding)
        #expect(outcome.session.isClosed)
        #expect(!outcome.session.wantsInput)
    }

    @Test(arguments: Feeding.allCases)
    func timeoutSays421AndCloses(feeding: Feeding) {
        let outcome = Conversation(greeting, ehlo(), [
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .timeout, .server("421 4.4.2 mx.test Timeout waiting for the client, closing connection"), .closed,
            .timeout,  // a second timer firing after close does nothing
        ]).check(feeding)
        #expect(outcome.envelopes.isEmpty)
    }
}

@Suite struct SMTPAddressTests {
    @Test(arguments: Feeding.allCases)
    func pathSyntax(feeding: Feeding) {
        Conversation(greeting, ehlo(), [
            .client("MAIL FROM:a@b.test"), .server("501 5.1.7 The address must be in angle brackets: <user@example.com>"),
            .client("MAIL FROM:<a>"), .server("501 5.1.7 The address has no domain: use user@example.com"),
            .client("MAIL FROM:<@b.test>"), .server("501 5.1.7 Malformed source route"),
            .client("MAIL FROM:<a@b..test>"), .server("501 5.1.7 Empty label in the domain"),
            .client("MAIL FROM:<a@b.test"), .server("501 5.1.7 Missing closing angle bracket"),
            .client("MAIL FROM:<a b@c.test>"), .server("501 5.1.7 Invalid character in the local part"),
            .client("MAIL FROM:<\(String(repeating: "l", count: 65))@b.test>"), .server("501 5.1.7 The local part is longer than 64 octets"),
            .client("MAIL TO:<a@b.test>"), .server("501 5.5.4 Syntax: MAIL FROM:<address> [parameters]"),
            .client("MAIL FROM:<a@b.test> FOO=bar"), .server("555 5.5.4 Unsupported MAIL parameter FOO"),
            .client("MAIL FROM:<a@b.test> BODY=BINARYMIME"), .server("501 5.5.4 Syntax: BODY=7BIT or BODY=8BITMIME"),
            .client("MAIL FROM:<a@b.test> SMTPUTF8 SMTPUTF8"), .server("501 5.5.4 Duplicate parameter SMTPUTF8"),
            // A space after the colon is a common client mistake, tolerated.
            .client("MAIL FROM: <>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<>"), .server("501 5.1.3 The null path <> is allowed only in MAIL FROM"),
            .client("RCPT TO:<bad@>"), .server("501 5.1.3 The address has no domain: use user@example.com"),
            .client("RCPT TO:<c@d.test> NOTIFY=NEVER"), .server("555 5.5.4 Unsupported RCPT parameter NOTIFY"),
            .client("RCPT TO:<Postmaster>"), .server("250 2.1.5 Recipient ok"),
            .client("RCPT TO:<\"john smith\"@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("RCPT TO:<x@[192.0.2.1]>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes(".\r\n")),
        ], queued("bounce"), quit).check(feeding).envelopes.forEach { envelope in
            #expect(envelope.mailFrom == "")
            #expect(envelope.recipients == ["Postmaster", "\"john smith\"@d.test", "x@[192.0.2.1]"])
        }
    }

    @Test(arguments: Feeding.allCases)
    func utf8Mailboxes(feeding: Feeding) {
        let outcome = Conversation(greeting, ehlo(), [
            .client("MAIL FROM:<用户@例子.测试> SMTPUTF8 BODY=8BITMIME"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<θσερ@παράδειγμα.δοκιμή>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("Subject: héllo\r\n\r\nçà\r\n.\r\n")),
        ], queued("u1"), [
            // Without SMTPUTF8 a sink still accepts it (a strict server would answer 553 5.6.7).
            .client("MAIL FROM:<jörg@example.test>"), .server("250 2.1.0 Sender ok"),
            .client("RCPT TO:<b@d.test>"), .server("250 2.1.5 Recipient ok"),
            .client("DATA"), .server("354 End data with <CR><LF>.<CR><LF>"),
            .raw(bytes("x\r\n.\r\n")),
        ], queued("u2"), [
            .client("MAIL FROM:<a@b.test>"), .server("250 2.1.0 Sender ok"),
            .raw([UInt8]("RCPT TO:<".utf8) + [0x61, 0xFF, 0xC3] + [UInt8]("@d.test>\r\n".utf8)),
            .server("501 5.1.3 The address is not valid UTF-8"),
        ], quit).check(feeding)
        #expect(outcome.envelopes.map(\.mailFrom) == ["用户@例子.测试", "jörg@example.test"])
        #expect(outcome.envelopes.map(\.smtpUTF8) == [true, false])
        #expect(outcome.envelopes.first?.receivedProtocol == "UTF8SMTP")
        #expect(outcome.envelopes.first?.data == bytes("Subject: héllo\r\n\r\nçà\r\n"))
    }
}
