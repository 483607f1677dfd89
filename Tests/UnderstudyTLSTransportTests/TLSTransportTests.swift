#if canImport(Glibc)
import Glibc
#endif
import Testing
import UnderstudyCA
import UnderstudyIO
import UnderstudyTestSupport
import UnderstudyTLS
@testable import UnderstudyTLSTransport

/// Echoes each line back upper-cased with the server name the client asked for, closes on "bye".
private final class LineHandler: ConnectionHandler {
    let events: Box<[String]>
    init(events: Box<[String]>) { self.events = events }
    func connectionActive(_ connection: any Transport) {
        events.update { $0.append("active tls=\(connection.security.isTLS) sni=\(connection.security.serverName ?? "-")") }
    }
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("bye") {
            connection.write(Array("bye\n".utf8))
            connection.close()
            return
        }
        connection.write(Array(text.uppercased().utf8))
    }
    func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
        events.update { $0.append("closed") }
    }
}

/// Speaks plain text until "STARTTLS\n", then answers "GO\n" and puts TLS under itself.
private final class StartTLSHandler: ConnectionHandler {
    let context: TLSContext
    let events: Box<[String]>
    init(context: TLSContext, events: Box<[String]>) { self.context = context; self.events = events }
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
        guard String(decoding: bytes, as: UTF8.self).hasPrefix("STARTTLS") else {
            connection.write(Array("plain\n".utf8))
            return
        }
        connection.write(Array("GO\n".utf8))
        do {
            let tls = try TLSTransport(context: context, upper: LineHandler(events: events))
            connection.replaceHandler(with: tls, replaying: [])
        } catch {
            connection.close()
        }
    }
}

@Suite(.serialized) struct TLSTransportTests {
    static func authority() throws -> (CertificateAuthority, TemporaryFolder) {
        let folder = try TemporaryFolder()
        return (try CertificateAuthority(directory: folder.path + "/ca", hostname: "test"), folder)
    }

    static func clientContext(trusting ca: CertificateAuthority, versions: ClosedRange<TLSVersion>? = nil) throws -> TLSContext {
        var configuration = TLSConfiguration.client(trustRoots: [ca.certificate])
        if let versions {
            configuration.minimumVersion = versions.lowerBound
            configuration.maximumVersion = versions.upperBound
        }
        return try TLSContext(configuration: configuration)
    }

    @Test(arguments: [TLSVersion.tls12, .tls13])
    func aProtocolHandlerSpeaksThroughTLSAndLearnsTheServerName(version: TLSVersion) throws {
        let (ca, folder) = try Self.authority()
        defer { folder.remove() }
        let server = try TLSContext(configuration: ca.serverConfiguration())
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let events = Box<[String]>([])
        let tcp = TCPServer(configuration: .init(port: 0), group: group) { _ in
            try! TLSTransport(context: server, upper: LineHandler(events: events))
        }
        let client = try TLSTestClient(try tcp.start(), context: try Self.clientContext(trusting: ca, versions: version...version),
                                       serverName: "appleid.apple.com")
        #expect(client.handshake().isComplete)
        #expect(client.engine.negotiatedVersion == version)
        try client.write("hello\n")
        #expect(client.read(count: 6) == Array("HELLO\n".utf8))
        // A large write crosses many records and reads both ways.
        let big = String(repeating: "abcdefghij", count: 100_000) + "\n"
        try client.write(big)
        #expect(client.read(count: big.utf8.count) == Array(big.uppercased().utf8))
        try client.write("bye\n")
        #expect(client.readToEnd() == Array("bye\n".utf8))
        #expect(client.closeNotifyReceived)  // the server's close sent close_notify
        #expect(waitUntil { events.value.last == "closed" })
        #expect(events.value.first == "active tls=true sni=appleid.apple.com")
    }

    @Test func starttlsPutsTLSUnderAConnectionMidStream() throws {
        let (ca, folder) = try Self.authority()
        defer { folder.remove() }
        let server = try TLSContext(configuration: ca.serverConfiguration())
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let events = Box<[String]>([])
        let tcp = TCPServer(configuration: .init(port: 0), group: group) { _ in StartTLSHandler(context: server, events: events) }
        let client = try TLSTestClient(try tcp.start(), context: try Self.clientContext(trusting: ca), serverName: "localhost")
        client.socket.send("hi\n")
        #expect(client.socket.readLine() == "plain")
        client.socket.send("STARTTLS\n")
        #expect(client.socket.readLine() == "GO")
        #expect(client.handshake().isComplete)
        try client.write("secret\n")
        #expect(client.read(count: 7) == Array("SECRET\n".utf8))
        #expect(events.value.first == "active tls=true sni=localhost")
    }

    @Test func aClientThatDoesNotTrustTheCAFailsAndTheHandlerNeverHearsOfIt() throws {
        let (ca, folder) = try Self.authority()
        defer { folder.remove() }
        let (other, otherFolder) = try Self.authority()
        defer { otherFolder.remove() }
        let server = try TLSContext(configuration: ca.serverConfiguration())
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let events = Box<[String]>([])
        let failures = Box<[String]>([])
        let tcp = TCPServer(configuration: .init(port: 0), group: group) { _ in
            try! TLSTransport(context: server, upper: LineHandler(events: events),
                              onFailure: { failure in failures.update { $0.append(failure.description) } })
        }
        let client = try TLSTestClient(try tcp.start(), context: try Self.clientContext(trusting: other), serverName: "localhost")
        #expect(client.handshake().isFailed)
        client.socket.close()
        #expect(waitUntil { !failures.value.isEmpty })
        #expect(failures.value[0].contains("handshake failed"))
        #expect(events.value.isEmpty)
        #expect(waitUntil { tcp.connectionCount == 0 })
    }

    @Test func garbageIsRefusedAndClosed() throws {
        let (ca, folder) = try Self.authority()
        defer { folder.remove() }
        let server = try TLSContext(configuration: ca.serverConfiguration())
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let events = Box<[String]>([])
        let tcp = TCPServer(configuration: .init(port: 0), group: group) { _ in
            try! TLSTransport(context: server, upper: LineHandler(events: events))
        }
        let address = try tcp.start()
        let garbage = try TestClient(address)
        garbage.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(garbage.readToEnd() != nil)  // an alert, then EOF: closed, not hanging
        #expect(waitUntil { tcp.connectionCount == 0 })
        #expect(events.value.isEmpty)
    }

    /// Half-finished handshakes neither pile up nor keep descriptors: the limit refuses what is past
    /// it at once, and the timeout frees the rest. After 1,000 of them the server still answers,
    /// with no connection and no TLS engine left over. (Other suites run in this process at the
    /// same time, so its descriptor count is checked in the interop suite, on the server process.)
    @Test func abandonedHandshakesAreBoundedAndTimedOut() throws {
        let (ca, folder) = try Self.authority()
        defer { folder.remove() }
        let server = try TLSContext(configuration: ca.serverConfiguration())
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let limiter = TLSHandshakeLimiter(limit: 20)
        let failures = Box<[String]>([])
        let tcp = TCPServer(configuration: .init(port: 0), group: group) { _ in
            try! TLSTransport(context: server, upper: LineHandler(events: Box([])), handshakeTimeout: .milliseconds(300),
                              limiter: limiter, onFailure: { f in failures.update { $0.append(f.description) } })
        }
        let address = try tcp.start()
        // Half a ClientHello from each of 1,000 clients that then go silent, 100 at a time.
        let hello = try TLSConnection(context: try Self.clientContext(trusting: ca), serverName: "localhost").drainForNetwork()
        for round in 1...10 {
            var clients: [TestClient] = []
            for _ in 0..<100 {
                let c = try TestClient(address)
                c.send(Array(hello.prefix(hello.count / 2)))
                clients.append(c)
            }
            #expect(waitUntil { failures.value.count == round * 100 })
            #expect(limiter.count == 0)
            for c in clients { c.close() }   // ends the lingering closes of what the server refused
            #expect(waitUntil { tcp.connectionCount == 0 })
        }
        #expect(failures.value.filter { $0.contains("handshakes already in progress") }.count == 800)
        #expect(failures.value.filter { $0.contains("not completed within") }.count == 200)
        #expect(waitUntil { server.liveConnectionCount == 0 })   // every engine was freed
        // The server still answers.
        let client = try TLSTestClient(address, context: try Self.clientContext(trusting: ca), serverName: "localhost")
        #expect(client.handshake().isComplete)
        try client.write("ok\n")
        #expect(client.read(count: 3) == Array("OK\n".utf8))
    }
}
