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
               maxConnections: Int = 10) throws -> (EventLoopGroup, SMTPServer, SocketAddress) {
        let group = try EventLoopGroup(threads: 2)
        let server = SMTPServer(configuration: .init(host: "127.0.0.1", port: 0, session: session, maxConnections: maxConnections),
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
        let session = SMTPConfiguration(hostname: "test.local", commandTimeout: .milliseconds(200))
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
        let session = SMTPConfiguration(hostname: "test.local", commandTimeout: .milliseconds(300))
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
}
