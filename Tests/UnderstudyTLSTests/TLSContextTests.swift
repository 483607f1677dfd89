import Testing
import UnderstudyTLS

@Suite struct TLSContextTests {
    @Test func inconsistentConfigurationsAreRefused() throws {
        let identity = try TestCredentials.identity("apple")
        var versions = TLSConfiguration.server(identity: identity)
        versions.minimumVersion = .tls13
        versions.maximumVersion = .tls12
        #expect(throws: TLSError.self) { try TLSContext(configuration: versions) }

        var alpn = TLSConfiguration.server(identity: identity)
        alpn.applicationProtocols = [""]
        #expect(throws: TLSError.self) { try TLSContext(configuration: alpn) }
        alpn.applicationProtocols = [String(repeating: "h", count: 256)]
        #expect(throws: TLSError.self) { try TLSContext(configuration: alpn) }

        var limit = TLSConfiguration.server(identity: identity)
        limit.handshakeByteLimit = 10
        #expect(throws: TLSError.self) { try TLSContext(configuration: limit) }
    }

    @Test func connectionsCheckTheirServerName() throws {
        let server = try TestCredentials.serverContext()
        let client = try TestCredentials.clientContext()
        #expect(throws: TLSError.self) { try TLSConnection(context: server, serverName: "appleid.apple.com") }
        let missing = #expect(throws: TLSError.self) { try TLSConnection(context: client) }
        #expect(missing?.kind == .invalidConfiguration)
        #expect(throws: TLSError.self) { try TLSConnection(context: client, serverName: "") }
        #expect(throws: TLSError.self) { try TLSConnection(context: client, serverName: String(repeating: "a", count: 300)) }
        #expect(server.liveConnectionCount == 0 && client.liveConnectionCount == 0)
    }

    @Test func aClientStartsWithItsClientHelloAndAServerWaits() throws {
        let client = try TLSConnection(context: TestCredentials.clientContext(), serverName: "appleid.apple.com")
        let hello = client.drainForNetwork()
        #expect(hello.first == 0x16 && hello.count > 100)
        #expect(client.isHandshaking)
        #expect(client.negotiatedVersion == nil && client.cipherSuite == nil)
        let server = try TLSConnection(context: TestCredentials.serverContext())
        #expect(server.drainForNetwork().isEmpty)
        #expect(server.isHandshaking)
    }
}
