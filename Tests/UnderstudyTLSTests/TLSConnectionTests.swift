import Synchronization
import Testing
@testable import UnderstudyTLS

@Suite struct TLSConnectionTests {
    // MARK: Handshakes

    @Test(arguments: [false, true])
    func tls13HandshakeNegotiatesSuiteALPNAndServerName(byteByByte: Bool) throws {
        let shuttle = try Shuttle.handshake(client: TestCredentials.clientContext(), server: TestCredentials.serverContext(),
                                            byteByByte: byteByByte)
        #expect(shuttle.client.handshakeState.isComplete, "\(String(describing: shuttle.client.failure))")
        #expect(shuttle.server.handshakeState.isComplete, "\(String(describing: shuttle.server.failure))")
        #expect(shuttle.clientEvents.filter(\.isHandshakeCompleted).count == 1)
        #expect(shuttle.serverEvents.filter(\.isHandshakeCompleted).count == 1)
        for side in [shuttle.client, shuttle.server] {
            #expect(side.negotiatedVersion == .tls13)
            #expect(side.cipherSuite?.hasPrefix("TLS_") == true)
            #expect(side.applicationProtocol == "http/1.1")
            #expect(side.serverName == "appleid.apple.com")
            #expect(!side.isHandshaking)
        }
        #expect(shuttle.client.peerCertificateChain.first?.dnsNames.contains("appleid.apple.com") == true)
    }

    @Test(arguments: [false, true])
    func forcedTLS12UsesAnECDHEAEADSuite(byteByByte: Bool) throws {
        let client = try TestCredentials.clientContext { $0.maximumVersion = .tls12 }
        let shuttle = try Shuttle.handshake(client: client, server: TestCredentials.serverContext(), byteByByte: byteByByte)
        #expect(shuttle.client.handshakeState.isComplete, "\(String(describing: shuttle.client.failure))")
        #expect(shuttle.server.handshakeState.isComplete, "\(String(describing: shuttle.server.failure))")
        #expect(shuttle.server.negotiatedVersion == .tls12)
        let suite = try #require(shuttle.server.cipherSuite)
        #expect(suite.hasPrefix("ECDHE-ECDSA-"))
        #expect(suite.contains("GCM") || suite.contains("CHACHA20"))
        #expect(shuttle.server.applicationProtocol == "http/1.1")
        #expect(shuttle.server.serverName == "appleid.apple.com")
    }

    @Test func tls12WithAnRSACertificateUsesECDHERSA() throws {
        let client = try TestCredentials.clientContext { $0.maximumVersion = .tls12 }
        let shuttle = try Shuttle.handshake(client: client, server: TestCredentials.serverContext("rsa"), serverName: "rsa.example")
        #expect(shuttle.client.handshakeState.isComplete, "\(String(describing: shuttle.client.failure))")
        #expect(shuttle.server.cipherSuite?.hasPrefix("ECDHE-RSA-") == true)
    }

    @Test func serverLimitedToTLS13RefusesATLS12Client() throws {
        let client = try TestCredentials.clientContext { $0.maximumVersion = .tls12 }
        let server = try TestCredentials.serverContext { $0.minimumVersion = .tls13 }
        let shuttle = try Shuttle.handshake(client: client, server: server)
        let error = try #require(shuttle.server.handshakeState.error)
        #expect(error.kind == .handshakeFailed)
        #expect(error.alert == TLSAlert(code: TLSAlert.protocolVersion, direction: .sent))
        #expect(shuttle.client.handshakeState.error?.alert == TLSAlert(code: TLSAlert.protocolVersion, direction: .received))
    }

    @Test func aTLS11ClientIsRefusedWithProtocolVersion() throws {
        let hello = LegacyClient.clientHello()
        try #require(hello.count > 5, "OpenSSL made no TLS 1.1 ClientHello")
        #expect(hello[0] == 0x16)  // a handshake record
        #expect(hello[9] == 0x03 && hello[10] == 0x02, "the ClientHello should offer TLS 1.1 at most")

        let server = try TLSConnection(context: TestCredentials.serverContext())
        let events = server.consumeFromNetwork(hello)
        let error = try #require(server.handshakeState.error)
        #expect(events.contains { $0.failure != nil })
        #expect(error.kind == .handshakeFailed)
        #expect(error.alert == TLSAlert(code: TLSAlert.protocolVersion, direction: .sent))
        #expect(error.description.contains("TLS 1.2 and 1.3 are supported"), "\(error)")
        // The alert goes out: one alert record, fatal (2), protocol_version (70).
        let out = server.drainForNetwork()
        #expect(out.count == 7 && out[0] == 0x15 && out[5] == 2 && out[6] == TLSAlert.protocolVersion, "\(out)")
        #expect(throws: TLSError.self) { try server.writePlaintext([1, 2, 3]) }
        #expect(server.consumeFromNetwork(hello).isEmpty, "bytes after a failure are ignored")
    }

    // MARK: SNI and ALPN

    @Test func theServerNamePicksTheCertificate() throws {
        let apple = try TestCredentials.identity("apple")
        let google = try TestCredentials.identity("google")
        let asked = NameLog()
        let server = try TLSContext(configuration: .server { name in
            asked.append(name)
            switch name {
            case "appleid.apple.com"?: return apple
            case "www.googleapis.com"?: return google
            default: return nil
            }
        })
        let client = try TestCredentials.clientContext()
        for host in ["www.googleapis.com", "appleid.apple.com"] {
            let shuttle = try Shuttle.handshake(client: client, server: server, serverName: host)
            #expect(shuttle.client.handshakeState.isComplete, "\(host): \(String(describing: shuttle.client.failure))")
            #expect(shuttle.server.serverName == host)
            #expect(shuttle.client.peerCertificateChain.first?.dnsNames.contains(host) == true)
            #expect(shuttle.client.peerCertificateChain.count == 2, "the chain goes out with the leaf")
        }
        #expect(asked.names == ["www.googleapis.com", "appleid.apple.com"])

        let unknown = try Shuttle.handshake(client: client, server: server, serverName: "example.com")
        let error = try #require(unknown.server.handshakeState.error)
        #expect(error.kind == .noCertificateForServerName)
        #expect(error.description.contains("\"example.com\""))
        #expect(unknown.client.handshakeState.isFailed)
    }

    @Test func aClientConnectingToAnIPAddressSendsNoSNIAndVerifiesTheIP() throws {
        let local = try TestCredentials.identity("localhost")
        let asked = NameLog()
        let server = try TLSContext(configuration: .server { name in
            asked.append(name)
            return local
        })
        let shuttle = try Shuttle.handshake(client: TestCredentials.clientContext(), server: server, serverName: "127.0.0.1")
        #expect(shuttle.client.handshakeState.isComplete, "\(String(describing: shuttle.client.failure))")
        #expect(asked.names == [nil])
        #expect(shuttle.server.serverName == nil)
    }

    @Test(arguments: [
        (["h2", "http/1.1"], "http/1.1"),
        (["http/1.1"], "http/1.1"),
        (["h2"], nil),
        ([], nil),
    ] as [([String], String?)])
    func alpnSelectsHTTP11WhenOfferedAndIsOptional(offered: [String], expected: String?) throws {
        let client = try TestCredentials.clientContext { $0.applicationProtocols = offered }
        let shuttle = try Shuttle.handshake(client: client, server: TestCredentials.serverContext())
        #expect(shuttle.client.handshakeState.isComplete, "\(String(describing: shuttle.client.failure))")
        #expect(shuttle.server.applicationProtocol == expected)
        #expect(shuttle.client.applicationProtocol == expected)
    }

    // MARK: Data

    @Test(arguments: [TLSVersion.tls12, .tls13])
    func dataFlowsBothWaysIncludingOneMebibyte(version: TLSVersion) throws {
        let client = try TestCredentials.clientContext { $0.maximumVersion = version }
        var shuttle = try Shuttle.handshake(client: client, server: TestCredentials.serverContext())
        try #require(shuttle.client.handshakeState.isComplete)

        try shuttle.client.writePlaintext(Array("GET /auth/keys HTTP/1.1\r\n\r\n".utf8))
        shuttle.run()
        #expect(shuttle.server.readPlaintext() == Array("GET /auth/keys HTTP/1.1\r\n\r\n".utf8))

        let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        try shuttle.server.writePlaintext(big)
        try shuttle.client.writePlaintext(big.reversed())
        shuttle.run()
        #expect(shuttle.client.readPlaintext() == big)
        #expect(shuttle.server.readPlaintext() == Array(big.reversed()))
        #expect(shuttle.client.readPlaintext().isEmpty)
        #expect(shuttle.client.failure == nil && shuttle.server.failure == nil)
    }

    @Test func plaintextDeliveredOneByteAtATimeArrivesWhole() throws {
        var shuttle = try Shuttle.handshake(client: TestCredentials.clientContext(), server: TestCredentials.serverContext(), byteByByte: true)
        let message = Array("HELO there\r\n".utf8) + (0..<40_000).map { UInt8(truncatingIfNeeded: $0) }
        try shuttle.client.writePlaintext(message)
        shuttle.run(byteByByte: true)
        var received: [UInt8] = []
        while true {
            let chunk = shuttle.server.readPlaintext(maximumCount: 1000)
            if chunk.isEmpty { break }
            #expect(chunk.count <= 1000)
            received += chunk
        }
        #expect(received == message)
        #expect(shuttle.serverEvents.contains { if case .plaintextAvailable = $0 { return true }; return false })
    }

    @Test func plaintextWrittenBeforeTheHandshakeGoesOutAfterIt() throws {
        let client = try TLSConnection(context: TestCredentials.clientContext(), serverName: "appleid.apple.com")
        let server = try TLSConnection(context: TestCredentials.serverContext())
        try client.writePlaintext(Array("early".utf8))
        try server.writePlaintext(Array("banner".utf8))
        var shuttle = Shuttle(client: client, server: server)
        shuttle.run()
        #expect(server.readPlaintext() == Array("early".utf8))
        #expect(client.readPlaintext() == Array("banner".utf8))
    }

    // MARK: Closing

    @Test func closeNotifyIsSentAndReceivedBothWays() throws {
        var shuttle = try Shuttle.handshake(client: TestCredentials.clientContext(), server: TestCredentials.serverContext())
        try shuttle.client.writePlaintext(Array("last words".utf8))
        shuttle.client.close()
        #expect(shuttle.client.sentCloseNotify)
        #expect(throws: TLSError.self) { try shuttle.client.writePlaintext([1]) }
        shuttle.run()
        #expect(shuttle.server.receivedCloseNotify)
        #expect(shuttle.serverEvents.contains { $0.isCloseNotify })
        #expect(shuttle.server.readPlaintext() == Array("last words".utf8), "data before close_notify is kept")

        try shuttle.server.writePlaintext(Array("bye".utf8))
        shuttle.server.close()
        shuttle.run()
        #expect(shuttle.client.readPlaintext() == Array("bye".utf8), "a half-closed client still reads")
        #expect(shuttle.client.receivedCloseNotify)
        #expect(shuttle.clientEvents.contains { $0.isCloseNotify })
        #expect(shuttle.client.failure == nil && shuttle.server.failure == nil)
        shuttle.server.close()  // a second close does nothing
        #expect(shuttle.server.drainForNetwork().isEmpty)
    }

    @Test func closingDuringTheHandshakeSendsNothingAndRefusesWrites() throws {
        let client = try TLSConnection(context: TestCredentials.clientContext(), serverName: "appleid.apple.com")
        _ = client.drainForNetwork()
        client.close()
        #expect(client.drainForNetwork().isEmpty)
        #expect(throws: TLSError.self) { try client.writePlaintext([1]) }
    }

    // MARK: Verification

    @Test func aClientTrustingAnotherCAFailsAndTheServerHearsUnknownCA() throws {
        let shuttle = try Shuttle.handshake(client: TestCredentials.clientContext(trusting: "other-ca"), server: TestCredentials.serverContext())
        let error = try #require(shuttle.client.handshakeState.error)
        #expect(error.kind == .certificateVerificationFailed)
        #expect(error.reason == "self-signed certificate in certificate chain", "\(error)")  // the chain ends in a root it does not trust
        #expect(shuttle.server.handshakeState.error?.alert == TLSAlert(code: TLSAlert.unknownCA, direction: .received))
    }

    @Test func aCertificateForAnotherNameFailsHostnameVerification() throws {
        let shuttle = try Shuttle.handshake(client: TestCredentials.clientContext(), server: TestCredentials.serverContext("google"),
                                            serverName: "appleid.apple.com")
        let error = try #require(shuttle.client.handshakeState.error)
        #expect(error.kind == .certificateVerificationFailed)
        #expect(error.reason == "hostname mismatch", "\(error)")
    }

    @Test func withoutHostnameVerificationOnlyTheChainIsChecked() throws {
        let context = try TLSContext(configuration: .client(trustRoots: [TestCredentials.certificate("test-ca")], verifyHostname: false))
        let shuttle = try Shuttle.handshake(client: context, server: TestCredentials.serverContext("google"), serverName: "appleid.apple.com")
        #expect(shuttle.client.handshakeState.isComplete)
    }

    // MARK: Bad input

    @Test func plainHTTPToTheTLSPortFailsWithAClearError() throws {
        let server = try TLSConnection(context: TestCredentials.serverContext())
        server.consumeFromNetwork(Array("GET / HTTP/1.1\r\nHost: appleid.apple.com\r\n\r\n".utf8))
        let error = try #require(server.handshakeState.error)
        #expect(error.kind == .handshakeFailed)
        #expect(error.reason == "http request")
        #expect(error.description.contains("plain HTTP"), "\(error)")
    }

    @Test(arguments: 0..<8)
    func garbageFailsTheHandshakeCleanly(seed: Int) throws {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var garbage: [UInt8] = []
        for _ in 0..<4096 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            garbage.append(UInt8(truncatingIfNeeded: state))
        }
        if seed % 2 == 1 {  // a well-framed 64-byte handshake record holding a 60-byte message of noise
            garbage.replaceSubrange(0..<9, with: [0x16, 0x03, 0x01, 0x00, 0x40, seed % 4 == 1 ? 0x01 : 0x02, 0x00, 0x00, 0x3C])
        }
        for role in ["server", "client"] {
            let connection = role == "server"
                ? try TLSConnection(context: TestCredentials.serverContext())
                : try TLSConnection(context: TestCredentials.clientContext(), serverName: "appleid.apple.com")
            _ = connection.drainForNetwork()
            for chunk in stride(from: 0, to: garbage.count, by: 512) {
                connection.consumeFromNetwork(garbage[chunk..<(chunk + 512)])
            }
            _ = connection.drainForNetwork()
            #expect(connection.handshakeState.isFailed, "\(role) seed \(seed) should fail")
            #expect(!connection.isOpen)
        }
    }

    @Test func aCorruptRecordAfterTheHandshakeFailsTheConnection() throws {
        var shuttle = try Shuttle.handshake(client: TestCredentials.clientContext(), server: TestCredentials.serverContext())
        try shuttle.client.writePlaintext(Array("hello".utf8))
        var record = shuttle.client.drainForNetwork()
        record[record.count - 3] ^= 0x40
        let events = shuttle.server.consumeFromNetwork(record)
        let error = try #require(shuttle.server.failure)
        #expect(events.contains { $0.failure != nil })
        #expect(error.kind == .connectionFailed)
        #expect(error.alert == TLSAlert(code: TLSAlert.badRecordMAC, direction: .sent), "\(error)")
        #expect(shuttle.server.handshakeState.isComplete, "the handshake itself had completed")
        #expect(shuttle.server.readPlaintext().isEmpty)
        shuttle.run()
        #expect(shuttle.client.failure?.alert == TLSAlert(code: TLSAlert.badRecordMAC, direction: .received))
    }

    @Test func aHandshakeThatNeverEndsHitsTheByteLimit() throws {
        // A ClientHello announcing 100,000 bytes (OpenSSL accepts up to 128 KiB), sent in records of 16,000.
        let server = try TLSConnection(context: TestCredentials.serverContext { $0.handshakeByteLimit = 32 * 1024 })
        var sent = 0
        var failedAt: Int?
        for index in 0..<7 {
            var payload = [UInt8](repeating: 0x41, count: 16_000)
            if index == 0 { payload.replaceSubrange(0..<4, with: [0x01, 0x01, 0x86, 0xA0]) }
            let record = [0x16, 0x03, 0x01, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
            sent += record.count
            let events = server.consumeFromNetwork(record)
            if events.contains(where: { $0.failure != nil }) { failedAt = sent; break }
            #expect(server.isHandshaking, "after \(sent) bytes")
        }
        let error = try #require(server.handshakeState.error)
        #expect(error.kind == .handshakeTooLarge)
        #expect(try #require(failedAt) > 32 * 1024 && failedAt! <= 32 * 1024 + 16_005)
    }

    @Test func aTruncatedHandshakeStaysIncompleteAndCanBeDropped() throws {
        let client = try TLSConnection(context: TestCredentials.clientContext(), serverName: "appleid.apple.com")
        let hello = client.drainForNetwork()
        let context = try TestCredentials.serverContext()
        for cut in [1, 5, 6, hello.count / 2, hello.count - 1] {
            let server = try TLSConnection(context: context)
            #expect(server.consumeFromNetwork(hello.prefix(cut)).isEmpty)
            #expect(server.isHandshaking)
            #expect(server.drainForNetwork().isEmpty, "nothing to say before the ClientHello is whole")
        }
        #expect(context.liveConnectionCount == 0)
    }

    /// 10,000 servers each take a real ClientHello, answer it (key exchange, signature) and are
    /// dropped mid-handshake, as a transport drops timed-out connections. Every one is freed: the
    /// context counts connections from init to deinit, so this is exact, not a memory estimate.
    @Test func abandonedHandshakesAreAllFreed() throws {
        let context = try TestCredentials.serverContext()
        let clientContext = try TestCredentials.clientContext()
        let hello = try TLSConnection(context: clientContext, serverName: "appleid.apple.com").drainForNetwork()
        #expect(clientContext.liveConnectionCount == 0)
        var answered = 0
        for _ in 0..<10_000 {
            let server = try TLSConnection(context: context)
            server.consumeFromNetwork(hello)
            if !server.drainForNetwork().isEmpty { answered += 1 }
            #expect(context.liveConnectionCount == 1)
        }
        #expect(answered == 10_000)
        #expect(context.liveConnectionCount == 0)
        // Clients abandoned after the server's reply (holding its certificate chain) too.
        for _ in 0..<100 {
            let client = try TLSConnection(context: clientContext, serverName: "appleid.apple.com")
            let server = try TLSConnection(context: context)
            server.consumeFromNetwork(client.drainForNetwork())
            client.consumeFromNetwork(server.drainForNetwork())
        }
        #expect(context.liveConnectionCount == 0 && clientContext.liveConnectionCount == 0)
    }
}

/// Records the server names a selector was asked for (the selector is @Sendable).
final class NameLog: Sendable {
    private let storage = Mutex<[String?]>([])
    func append(_ name: String?) { storage.withLock { $0.append(name) } }
    var names: [String?] { storage.withLock { $0 } }
}
