import Dispatch
import Synchronization
import Testing
import UnderstudyIO
import UnderstudySMTP
import UnderstudyTestSupport
@testable import UnderstudySMTPServer

#if canImport(Glibc)
import Glibc
#endif

/// Stores envelopes after a delay on another thread, like the inbox's writer.
final class SlowDelivery: SMTPDeliveryHandler {
    let delivered = Mutex<[SMTPEnvelope]>([])
    let fail: Bool
    init(fail: Bool = false) { self.fail = fail }

    func deliver(_ envelope: SMTPEnvelope, completion: @escaping @Sendable (SMTPDeliveryResult) -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
            if fail { return completion(.failed(reason: "disk full")) }
            let n = delivered.withLock { $0.append(envelope); return $0.count }
            completion(.stored(id: "ID\(n)"))
        }
    }
}

/// A line-oriented SMTP client over the shared test socket.
final class Client {
    let connection: TestClient

    init(_ address: SocketAddress) throws {
        connection = try TestClient(address, timeoutSeconds: 10)
    }

    func send(_ s: String) { connection.send(s) }

    /// The next line, or nil when the server closed.
    func line() -> String? { connection.readLine() }

    /// The last line of a (multi-line) reply.
    func reply() -> String? {
        while let l = line() { if l.count < 4 || l[l.index(l.startIndex, offsetBy: 3)] == " " { return l } }
        return nil
    }
}

@Suite(.serialized) struct SMTPServerTests {
    func start(_ delivery: SlowDelivery, session: SMTPConfiguration = SMTPConfiguration(hostname: "test.local"),
               maxConnections: Int = 10, maxConnectionsPerAddress: Int = 32) throws -> (EventLoopGroup, SMTPServer, SocketAddress) {
        let group = try EventLoopGroup(threads: 2)
        let server = SMTPServer(configuration: .init(host: "127.0.0.1", port: 0, session: session, maxConnections: maxConnections,
                                                     maxConnectionsPerAddress: maxConnectionsPerAddress),
                                group: group, delivery: delivery)
        return (group, server, try server.start())
    }

    @Test func pipelinedTransactionIsAnsweredAfterStoring() throws {
        let delivery = SlowDelivery()
        let (group, _, address) = try start(delivery)
        defer { group.shutdownGracefully() }
        let c = try Client(address)
        #expect(c.reply()?.hasPrefix("220 test.local") == true)
        c.send("EHLO x\r\n")
        #expect(c.reply()?.hasPrefix("250 ") == true)
        // Two messages pipelined in one write: each 250 waits for its store.
        c.send("MAIL FROM:<a@x>\r\nRCPT TO:<b@y>\r\nDATA\r\n")
        #expect(c.reply()?.hasPrefix("250") == true)
        #expect(c.reply()?.hasPrefix("250") == true)
        #expect(c.reply()?.hasPrefix("354") == true)
        c.send("Subject: one\r\n\r\n..dot\r\n.\r\nMAIL FROM:<a@x>\r\nRCPT TO:<c@y>\r\nDATA\r\n")
        #expect(c.reply() == "250 2.0.0 Ok: queued as ID1")
        #expect(c.reply()?.hasPrefix("250") == true)
        #expect(c.reply()?.hasPrefix("250") == true)
        #expect(c.reply()?.hasPrefix("354") == true)
        c.send("Subject: two\r\n\r\nbody\r\n.\r\nQUIT\r\n")
        #expect(c.reply() == "250 2.0.0 Ok: queued as ID2")
        #expect(c.reply()?.hasPrefix("221") == true)
        #expect(c.line() == nil)
        let stored = delivery.delivered.withLock { $0 }
        #expect(stored.map(\.recipients) == [["b@y"], ["c@y"]])
        #expect(stored.first?.data == Array("Subject: one\r\n\r\n.dot\r\n".utf8))
    }

    @Test(arguments: ["\n.\n", "\r\n.\n", "\n.\r\n"])
    func smuggledEnvelopeStaysInTheBody(lookAlike: String) throws {
        // One DATA is one message: an end-of-data look-alike cannot start a second transaction.
        let delivery = SlowDelivery()
        let (group, _, address) = try start(delivery)
        defer { group.shutdownGracefully() }
        let c = try Client(address)
        _ = c.reply()
        c.send("EHLO x\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@y>\r\nDATA\r\n")
        for _ in 0..<4 { _ = c.reply() }
        c.send("Subject: s\r\n\r\nhello" + lookAlike + "MAIL FROM:<evil@x>\r\nRCPT TO:<victim@y>\r\nDATA\r\nsmuggled\r\n.\r\nQUIT\r\n")
        #expect(c.reply() == "250 2.0.0 Ok: queued as ID1")
        #expect(c.reply()?.hasPrefix("221") == true)
        #expect(c.line() == nil)
        let stored = delivery.delivered.withLock { $0 }
        #expect(stored.map(\.recipients) == [["b@y"]])
        #expect(stored.first?.data == Array("Subject: s\r\n\r\nhello\r\n\r\nMAIL FROM:<evil@x>\r\nRCPT TO:<victim@y>\r\nDATA\r\nsmuggled\r\n".utf8))
    }

    @Test func failedStoreAnswers451() throws {
        let (group, _, address) = try start(SlowDelivery(fail: true))
        defer { group.shutdownGracefully() }
        let c = try Client(address)
        _ = c.reply()
        c.send("HELO x\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@y>\r\nDATA\r\n")
        for _ in 0..<4 { _ = c.reply() }
        c.send("hi\r\n.\r\n")
        #expect(c.reply()?.hasPrefix("451 4.3.0 disk full") == true)
    }

    @Test func sessionsBeyondTheLimitGet421() throws {
        let (group, _, address) = try start(SlowDelivery(), maxConnections: 1)
        defer { group.shutdownGracefully() }
        let first = try Client(address)
        #expect(first.reply()?.hasPrefix("220") == true)
        let second = try Client(address)
        #expect(second.reply()?.hasPrefix("421 4.7.0") == true)
        #expect(second.line() == nil)
    }

    @Test func idleSessionTimesOutWith421() throws {
        let session = SMTPConfiguration(hostname: "test.local", commandTimeout: .milliseconds(200), commandTimeoutBeforeMail: .milliseconds(200))
        let (group, _, address) = try start(SlowDelivery(), session: session)
        defer { group.shutdownGracefully() }
        let c = try Client(address)
        _ = c.reply()
        #expect(c.reply()?.hasPrefix("421 4.4.2") == true)
        #expect(c.line() == nil)
    }

    @Test func eachCommandRestartsTheTimeoutAndTheLastOneStillEndsTheSession() throws {
        // Re-arming only moves the deadline: the timer armed by the greeting fires early, must not
        // close the session, and must come back for the deadline of the last command.
        let session = SMTPConfiguration(hostname: "test.local", commandTimeout: .milliseconds(300), commandTimeoutBeforeMail: .milliseconds(300))
        let (group, _, address) = try start(SlowDelivery(), session: session)
        defer { group.shutdownGracefully() }
        let c = try Client(address)
        _ = c.reply()
        let start = ContinuousClock.now
        for _ in 0..<4 {
            usleep(150_000)
            c.send("NOOP\r\n")
            #expect(c.reply()?.hasPrefix("250") == true)  // alive 600 ms in, past two greeting-era timeouts
        }
        #expect(c.reply()?.hasPrefix("421 4.4.2") == true)
        #expect(c.line() == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(850))
    }

    /// Sends `bytes` one at a time, `interval` apart, on another thread, until all are sent or the
    /// server closes: a client that trickles, each byte restarting the idle timeout.
    static func trickle(_ client: Client, _ bytes: [UInt8], interval: useconds_t = 100_000) {
        let connection = client.connection  // held, so its descriptor stays open (and not reused) until done
        DispatchQueue.global().async {
            for byte in bytes {
                usleep(interval)
                let sent = withUnsafeBytes(of: byte) { Glibc.send(connection.fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                if sent != 1 { return }
            }
        }
    }

    @Test func tricklingCommandLineRunsOutOfTime() throws {
        // The idle timeout (10 s) never runs out while a byte comes every 100 ms; the line's
        // budget (500 ms from its first byte) does.
        let session = SMTPConfiguration(hostname: "test.local", commandTimeout: .seconds(10), commandTimeoutBeforeMail: .seconds(10),
                                        commandLineTimeLimit: .milliseconds(500))
        let (group, _, address) = try start(SlowDelivery(), session: session)
        defer { group.shutdownGracefully() }
        let c = try Client(address)
        _ = c.reply()
        Self.trickle(c, Array("EHLO a-very-slow-client.example.com and more and more and more and more".utf8))
        #expect(c.reply()?.hasPrefix("421 4.4.2") == true)
        #expect(c.line() == nil)
    }

    @Test func tricklingMessageRunsOutOfTime() throws {
        let session = SMTPConfiguration(hostname: "test.local", commandTimeout: .seconds(10), dataTimeout: .seconds(10),
                                        commandTimeoutBeforeMail: .seconds(10), messageTimeLimit: .milliseconds(500))
        let delivery = SlowDelivery()
        let (group, _, address) = try start(delivery, session: session)
        defer { group.shutdownGracefully() }
        let c = try Client(address)
        _ = c.reply()
        c.send("EHLO x\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@y>\r\nDATA\r\n")
        for _ in 0..<4 { _ = c.reply() }
        Self.trickle(c, Array("Subject: slow\r\n\r\nline\r\nline\r\nline\r\nline\r\nline\r\nline\r\nline\r\nline\r\nline\r\n".utf8))
        #expect(c.reply()?.hasPrefix("421 4.4.2") == true)
        #expect(c.line() == nil)
        #expect(delivery.delivered.withLock { $0.isEmpty })
    }

    @Test func idleBeforeMailIsShorterThanAfter() throws {
        let session = SMTPConfiguration(hostname: "test.local", commandTimeout: .seconds(30), commandTimeoutBeforeMail: .milliseconds(300))
        let (group, _, address) = try start(SlowDelivery(), session: session)
        defer { group.shutdownGracefully() }
        let silent = try Client(address)
        _ = silent.reply()
        #expect(silent.reply()?.hasPrefix("421 4.4.2") == true)
        #expect(silent.line() == nil)

        let sender = try Client(address)
        _ = sender.reply()
        sender.send("EHLO x\r\nMAIL FROM:<a@x>\r\n")
        #expect(sender.reply()?.hasPrefix("250 ") == true)
        #expect(sender.reply()?.hasPrefix("250 2.1.0") == true)
        usleep(1_000_000)  // over three times the timeout before MAIL
        sender.send("NOOP\r\n")
        #expect(sender.reply()?.hasPrefix("250 2.0.0") == true)
    }

    @Test func sessionsBeyondThePerAddressLimitGet421() throws {
        let (group, server, address) = try start(SlowDelivery(), maxConnections: 10, maxConnectionsPerAddress: 2)
        defer { group.shutdownGracefully() }
        let first = try Client(address)
        #expect(first.reply()?.hasPrefix("220") == true)
        let second = try Client(address)
        #expect(second.reply()?.hasPrefix("220") == true)
        let third = try Client(address)
        #expect(third.reply() == "421 4.7.0 test.local Too many connections from your address, try again later")
        #expect(third.line() == nil)
        // A closed session frees its place.
        first.send("QUIT\r\n")
        #expect(first.reply()?.hasPrefix("221") == true)
        #expect(first.line() == nil)
        var admitted = false
        for _ in 0..<100 where !admitted {
            if server.connectionCount < 2 {
                let next = try Client(address)
                admitted = next.reply()?.hasPrefix("220") == true
            } else {
                usleep(20_000)
            }
        }
        #expect(admitted)
    }
}
