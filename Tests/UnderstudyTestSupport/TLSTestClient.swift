#if canImport(Glibc)
import Glibc
#endif
import UnderstudyIO
import UnderstudyTLS

/// A blocking TLS client for live tests: a `TestClient` socket with a client `TLSConnection`
/// moving the bytes. Reads time out with the socket (5 s), so a bug cannot hang a test.
public final class TLSTestClient {
    public let socket: TestClient
    public let engine: TLSConnection
    private var plaintext: [UInt8] = []
    public private(set) var closeNotifyReceived = false
    public private(set) var sawEOF = false

    public convenience init(_ address: SocketAddress, context: TLSContext, serverName: String?) throws {
        try self.init(socket: try TestClient(address), context: context, serverName: serverName)
    }

    /// TLS over a connection already open (after a CONNECT's 200, or a STARTTLS).
    public init(socket: TestClient, context: TLSContext, serverName: String?) throws {
        self.socket = socket
        engine = try TLSConnection(context: context, serverName: serverName)
    }

    /// Runs the handshake; its state after (complete, or failed with the reason).
    @discardableResult
    public func handshake() -> TLSHandshakeState {
        for _ in 0..<100 where engine.isHandshaking {
            flush()
            guard receiveOnce() else { break }
        }
        flush()
        return engine.handshakeState
    }

    public func write(_ text: String) throws {
        try engine.writePlaintext(Array(text.utf8))
        flush()
    }

    /// Plaintext until `count` bytes, EOF, close_notify or the timeout.
    public func read(count: Int) -> [UInt8] {
        while plaintext.count < count, !closeNotifyReceived, receiveOnce() {}
        let n = min(count, plaintext.count)
        defer { plaintext.removeFirst(n) }
        return Array(plaintext[0..<n])
    }

    /// Plaintext until the server closes.
    public func readToEnd() -> [UInt8] {
        while !closeNotifyReceived, receiveOnce() {}
        defer { plaintext = [] }
        return plaintext
    }

    public func flush() {
        let bytes = engine.drainForNetwork()
        if !bytes.isEmpty { socket.send(bytes) }
    }

    /// One recv (or what the socket had already buffered), fed to the engine; false at EOF, on an
    /// error or the timeout.
    private func receiveOnce() -> Bool {
        var chunk = socket.takeBuffered()
        if chunk.isEmpty {
            chunk = [UInt8](repeating: 0, count: 16384)
            let n = chunk.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                sawEOF = true
                return false
            }
            chunk.removeSubrange(n...)
        }
        for event in engine.consumeFromNetwork(chunk) {
            if case .closeNotifyReceived = event { closeNotifyReceived = true }
        }
        plaintext += engine.readPlaintext()
        flush()
        return true
    }
}

extension TLSTestClient {
    /// One HTTP/1.1 request over TLS with `Connection: close`; the whole response as text.
    public func request(_ method: String, _ target: String, host: String, headers: [String] = []) throws -> String {
        let head = ([ "\(method) \(target) HTTP/1.1", "Host: \(host)", "Connection: close"] + headers).joined(separator: "\r\n")
        try write(head + "\r\n\r\n")
        return String(decoding: readToEnd(), as: UTF8.self)
    }
}
