import Testing
@testable import UnderstudySMTP

/// The budgets that bound a session's total time, whatever trickles in: one per command line, one
/// per message, and the shorter idle timeout before the first MAIL.
@Suite struct SMTPTimeLimitTests {
    static var configuration: SMTPConfiguration {
        var c = SMTPConfiguration.test
        c.commandTimeout = .seconds(300)
        c.commandTimeoutBeforeMail = .seconds(30)
        c.dataTimeout = .seconds(180)
        c.commandLineTimeLimit = .seconds(60)
        c.messageTimeLimit = .seconds(600)
        return c
    }

    @Test func idleTimeoutIsShorterUntilTheFirstMail() {
        var session = SMTPSession(configuration: Self.configuration)
        _ = session.start()
        #expect(session.currentTimeout == .seconds(30))
        _ = session.receive(bytes("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\n"))
        #expect(session.currentTimeout == .seconds(300))
        _ = session.receive(bytes("RSET\r\n"))
        #expect(session.currentTimeout == .seconds(300))  // a sender, still
    }

    @Test func aCommandLineKeepsItsBudgetWhileItTrickles() {
        var session = SMTPSession(configuration: Self.configuration)
        _ = session.start()
        #expect(session.commandLineTimeLimit == nil)
        _ = session.receive(bytes("E"))
        let first = session.commandLineTimeLimit
        #expect(first?.duration == .seconds(60))
        for byte in bytes("HLO c.test") {
            _ = session.receive(CollectionOfOne(byte))
            #expect(session.commandLineTimeLimit == first)
        }
        _ = session.receive(bytes("\r\n"))
        #expect(session.commandLineTimeLimit == nil)
        // A pipelined line cut short after a complete one gets its own budget.
        _ = session.receive(bytes("NOOP\r\nNO"))
        let second = session.commandLineTimeLimit
        #expect(second != nil && second != first)
        _ = session.receive(bytes("OP\r\n"))
        #expect(session.commandLineTimeLimit == nil)
    }

    @Test func aMessageKeepsItsBudgetUntilItEnds() {
        var session = SMTPSession(configuration: Self.configuration)
        _ = session.start()
        _ = session.receive(bytes("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\n"))
        #expect(session.messageTimeLimit == nil)
        _ = session.receive(bytes("DATA\r\n"))
        let limit = session.messageTimeLimit
        #expect(limit?.duration == .seconds(600))
        for line in ["Subject: x\r\n", "\r\n", "body\r\n"] {
            _ = session.receive(bytes(line))
            #expect(session.messageTimeLimit == limit)
            #expect(session.commandLineTimeLimit == nil)  // text lines are not command lines
        }
        _ = session.receive(bytes(".\r\n"))
        #expect(session.messageTimeLimit == nil)
        _ = session.deliveryCompleted(.stored(id: "m"))
        #expect(session.messageTimeLimit == nil)
    }

    @Test func bdatChunksShareOneBudget() {
        var session = SMTPSession(configuration: Self.configuration)
        _ = session.start()
        _ = session.receive(bytes("EHLO c.test\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nBDAT 3\r\nab"))
        let limit = session.messageTimeLimit
        #expect(limit != nil)
        _ = session.receive(bytes("c"))
        #expect(session.messageTimeLimit == limit)  // between chunks, the message is still being sent
        _ = session.receive(bytes("BDAT 2 LAST\r\n"))
        #expect(session.messageTimeLimit == limit)
        _ = session.receive(bytes("de"))
        #expect(session.messageTimeLimit == nil)
        _ = session.deliveryCompleted(.stored(id: "m"))
        _ = session.receive(bytes("MAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nBDAT 1 LAST\r\n"))
        let next = session.messageTimeLimit
        #expect(next != nil && next != limit)
    }
}
