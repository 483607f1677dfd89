import UnderstudyTLS

/// Moves bytes between two connections until neither has anything to send, as a network would,
/// whole or one byte at a time; collects the events each side reported.
struct Shuttle {
    let client: TLSConnection
    let server: TLSConnection
    var clientEvents: [TLSEvent] = []
    var serverEvents: [TLSEvent] = []
    /// Bytes the server received (to count handshake traffic).
    var bytesToServer = 0

    init(client: TLSConnection, server: TLSConnection) {
        self.client = client
        self.server = server
    }

    /// Returns false if the bytes kept flowing for `maximumRounds` rounds (a livelock).
    @discardableResult
    mutating func run(byteByByte: Bool = false, maximumRounds: Int = 1_000) -> Bool {
        for _ in 0..<maximumRounds {
            let toServer = client.drainForNetwork()
            let toClient = server.drainForNetwork()
            if toServer.isEmpty && toClient.isEmpty { return true }
            bytesToServer += toServer.count
            deliver(toServer, to: server, events: &serverEvents, byteByByte: byteByByte)
            deliver(toClient, to: client, events: &clientEvents, byteByByte: byteByByte)
        }
        return false
    }

    private func deliver(_ bytes: [UInt8], to connection: TLSConnection, events: inout [TLSEvent], byteByByte: Bool) {
        guard !bytes.isEmpty else { return }
        if byteByByte {
            for byte in bytes { events += connection.consumeFromNetwork(CollectionOfOne(byte)) }
        } else {
            events += connection.consumeFromNetwork(bytes)
        }
    }

    /// Everything the connection has decrypted so far.
    static func readAll(_ connection: TLSConnection) -> [UInt8] {
        connection.readPlaintext()
    }

    /// A connected pair after a full handshake (check `handshakeState` on both).
    static func handshake(client clientContext: TLSContext, server serverContext: TLSContext, serverName: String? = "appleid.apple.com",
                          byteByByte: Bool = false) throws -> Shuttle {
        let client = try TLSConnection(context: clientContext, serverName: serverName)
        let server = try TLSConnection(context: serverContext)
        var shuttle = Shuttle(client: client, server: server)
        shuttle.run(byteByByte: byteByByte)
        return shuttle
    }
}

extension TLSEvent {
    var isHandshakeCompleted: Bool { if case .handshakeCompleted = self { return true }; return false }
    var isCloseNotify: Bool { if case .closeNotifyReceived = self { return true }; return false }
    var failure: TLSError? { if case .failed(let error) = self { return error }; return nil }
}

extension TLSHandshakeState {
    var error: TLSError? { if case .failed(let error) = self { return error }; return nil }
}
