#if canImport(Glibc)
import Glibc
#endif
import UnderstudyIO
import UnderstudyTestSupport
import UnderstudyTLS

/// A blocking TLS client for live tests: a `TestClient` socket with a client `TLSConnection`
/// moving the bytes. Reads time out with the socket (5 s), so a bug cannot hang a test.
final class TLSTestClient {
    let socket: TestClient
    let engine: TLSConnection
    private var plaintext: [UInt8] = []
    private(set) var closeNotifyReceived = false
    private(set) var sawEOF = false

    init(_ address: SocketAddress, context: TLSContext, serverName: String?) throws {
        socket = try TestClient(address)
        engine = try TLSConnection(context: context, serverName: serverName)
    }

    /// Runs the handshake; its state after (complete, or failed with the reason).
    @discardableResult
    func handshake() -> TLSHandshakeState {
        for _ in 0..<100 where engine.isHandshaking {
            flush()
            guard receiveOnce() else { break }
        }
        flush()
        return engine.handshakeState
    }

    func write(_ text: String) throws {
        try engine.writePlaintext(Array(text.utf8))
        flush()
    }

    /// Plaintext until `count` bytes, EOF, close_notify or the timeout.
    func read(count: Int) -> [UInt8] {
        while plaintext.count < count, !closeNotifyReceived, receiveOnce() {}
        let n = min(count, plaintext.count)
        defer { plaintext.removeFirst(n) }
        return Array(plaintext[0..<n])
    }

    /// Plaintext until the server closes.
    func readToEnd() -> [UInt8] {
        while !closeNotifyReceived, receiveOnce() {}
        defer { plaintext = [] }
        return plaintext
    }

    func flush() {
        let bytes = engine.drainForNetwork()
        if !bytes.isEmpty { socket.send(bytes) }
    }

    /// One recv, fed to the engine; false at EOF, on an error or the timeout.
    private func receiveOnce() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let n = chunk.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else {
            sawEOF = true
            return false
        }
        for event in engine.consumeFromNetwork(chunk[0..<n]) {
            if case .closeNotifyReceived = event { closeNotifyReceived = true }
        }
        plaintext += engine.readPlaintext()
        flush()
        return true
    }
}
