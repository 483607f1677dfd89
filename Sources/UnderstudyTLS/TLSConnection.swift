import COpenSSL
import CShims
import Synchronization

/// One TLS connection over memory buffers: bytes from the network go in with
/// `consumeFromNetwork`, bytes for the network come out of `drainForNetwork`, and plaintext goes
/// through `writePlaintext` / `readPlaintext` (swift-nio-ssl's `SSLConnection`). It knows nothing
/// of sockets; the transport moves the bytes and owns timeouts.
///
/// After every call, `drainForNetwork()` and send what it returns: consuming can produce handshake
/// messages, alerts or (TLS 1.3) key update replies as well as records.
///
/// A class, not a value: it owns an `SSL` whose state cannot be copied, so copies of a struct would
/// alias it. Not Sendable: use it on one thread (the connection's event loop).
public final class TLSConnection {
    public enum Role: Sendable { case server, client }

    let context: TLSContext
    private let ssl: OpaquePointer
    private let networkInput: OpaquePointer   // BIO the engine reads records from (owned by ssl)
    private let networkOutput: OpaquePointer  // BIO the engine writes records to (owned by ssl)

    public let role: Role
    /// For a client: the name it sent (SNI) and verifies. For a server: known once the ClientHello
    /// is read (`serverName`).
    private let expectedServerName: String?

    public private(set) var handshakeState: TLSHandshakeState = .incomplete
    /// The error that ended the connection (during or after the handshake).
    public private(set) var failure: TLSError?
    /// The peer sent close_notify.
    public private(set) var receivedCloseNotify = false
    /// `close()` queued this side's close_notify.
    public private(set) var sentCloseNotify = false

    private var handshakeBytes = 0
    private var pendingPlaintextWrites: [UInt8] = []
    private var plaintext: [UInt8] = []
    private var plaintextStart = 0
    private var sentAlert: TLSAlert?
    private var receivedAlert: TLSAlert?
    private var missingIdentity: (serverName: String?, recorded: Bool) = (nil, false)

    /// The ex_data slot of `SSL` objects that points back at their connection (unretained: the
    /// connection owns the SSL and frees it in deinit).
    private static let exDataIndex: Int32 = CShims_SSL_get_ex_new_index()

    /// A connection in the context's role. A client sends `serverName` as SNI (unless it is an IP
    /// address) and, with `verifyHostname`, checks the server's certificate names it; its
    /// ClientHello is ready to drain at once.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        let backing = context.backing
        var verifyHostname = false
        switch backing.configuration.role {
        case .server:
            guard serverName == nil else {
                throw .invalidConfiguration("a server connection learns the server name from the client; do not pass one")
            }
            role = .server
        case .client(_, let verify):
            role = .client
            verifyHostname = verify
            if verify && serverName == nil {
                throw .invalidConfiguration("verifying the server's hostname needs a serverName (or make the context with verifyHostname: false)")
            }
        }
        if let serverName, serverName.isEmpty || serverName.utf8.count > 253 || serverName.utf8.contains(0) {
            throw .invalidConfiguration("the server name must be 1 to 253 bytes with no NUL")
        }
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(backing.pointer) else {
            throw .cryptoFailure("SSL_new", reason: OpenSSLErrorQueue.drain())
        }
        guard let input = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .cryptoFailure("BIO_new", reason: OpenSSLErrorQueue.drain())
        }
        guard let output = BIO_new(BIO_s_mem()) else {
            BIO_free(input)
            SSL_free(ssl)
            throw .cryptoFailure("BIO_new", reason: OpenSSLErrorQueue.drain())
        }
        // An empty input BIO means "retry when more bytes come", not end of file.
        _ = CShims_BIO_set_mem_eof_return(input, -1)
        _ = CShims_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)  // ssl owns both BIOs from here on

        self.context = context
        self.ssl = ssl
        self.networkInput = input
        self.networkOutput = output
        self.expectedServerName = serverName
        backing.liveConnections.add(1, ordering: .relaxed)
        SSL_set_ex_data(ssl, TLSConnection.exDataIndex, Unmanaged.passUnretained(self).toOpaque())

        switch role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            if let serverName {
                let ip = IPAddress.isLiteral(serverName)
                let ok = ip || CShims_SSL_set_tlsext_host_name(ssl, serverName) == 1  // RFC 6066: no IP in SNI
                let verifies = !verifyHostname
                    || (ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1
                           : SSL_set1_host(ssl, serverName) == 1)
                guard ok, verifies else {
                    OpenSSLErrorQueue.clear()
                    throw .invalidConfiguration("\"\(serverName.prefix(80))\" is not a host name or IP address")
                }
            }
            SSL_set_connect_state(ssl)
            advanceHandshake()
        }
    }

    deinit {
        SSL_free(ssl)
        context.backing.liveConnections.subtract(1, ordering: .relaxed)
    }

    static func from(_ ssl: OpaquePointer?) -> TLSConnection? {
        guard let ssl, let pointer = SSL_get_ex_data(ssl, exDataIndex) else { return nil }
        return Unmanaged<TLSConnection>.fromOpaque(pointer).takeUnretainedValue()
    }

    // MARK: State

    /// Still handshaking (for the transport's handshake timeout and its limit on concurrent handshakes).
    public var isHandshaking: Bool {
        if case .incomplete = handshakeState { return true }
        return false
    }

    /// Neither failed nor closed by this side: bytes may still be written.
    public var isOpen: Bool { failure == nil && !sentCloseNotify }

    /// The server name the client asked for (SNI), on both sides; nil if none was sent.
    public var serverName: String? {
        if role == .client { return expectedServerName.flatMap { IPAddress.isLiteral($0) ? nil : $0 } }
        return SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
    }

    /// The ALPN protocol agreed on ("http/1.1"), or nil if none was.
    public var applicationProtocol: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The version negotiated, once the handshake is complete.
    public var negotiatedVersion: TLSVersion? {
        guard handshakeState.isComplete else { return nil }
        return TLSVersion(openSSLVersion: SSL_version(ssl))
    }

    /// The cipher suite negotiated (OpenSSL's name: "TLS_AES_128_GCM_SHA256",
    /// "ECDHE-ECDSA-AES128-GCM-SHA256"), once the handshake is complete.
    public var cipherSuite: String? {
        guard handshakeState.isComplete, let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) else { return nil }
        return String(cString: name)
    }

    /// The certificate chain the peer presented (leaf first); empty for a server's client.
    public var peerCertificateChain: [TLSCertificate] {
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return [] }
        var out: [TLSCertificate] = []
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let element = OPENSSL_sk_value(stack, index) else { continue }
            let x509 = OpaquePointer(element)
            guard X509_up_ref(x509) == 1 else { continue }
            out.append(TLSCertificate(owner: X509Owner(takingOwnershipOf: x509)))
        }
        return out
    }

    /// Bytes received and not yet processed, plus decrypted bytes not yet read.
    public var bufferedByteCount: Int { Int(BIO_ctrl_pending(networkInput)) + plaintext.count - plaintextStart }

    // MARK: Network side

    /// Takes bytes received from the peer: advances the handshake, then decrypts what records are
    /// complete into the plaintext buffer. Returns what happened. Bytes after a failure or after
    /// the peer's close_notify are ignored.
    @discardableResult
    public func consumeFromNetwork(_ bytes: some Collection<UInt8>) -> [TLSEvent] {
        guard failure == nil, !receivedCloseNotify else { return [] }
        var events: [TLSEvent] = []
        let wasHandshaking = isHandshaking
        if !bytes.isEmpty {
            let written = bytes.withContiguousStorageIfAvailable { write($0) } ?? Array(bytes).withUnsafeBufferPointer { write($0) }
            guard written else {
                fail(.cryptoFailure("BIO_write", reason: OpenSSLErrorQueue.drain()), into: &events)
                return events
            }
        }
        if wasHandshaking {
            handshakeBytes += bytes.count
            advanceHandshake()
            switch handshakeState {
            case .incomplete:
                if handshakeBytes > context.backing.configuration.handshakeByteLimit {
                    fail(.handshakeTooLarge(consumed: handshakeBytes, limit: context.backing.configuration.handshakeByteLimit), into: &events)
                }
                return events
            case .failed(let error):
                events.append(.failed(error))
                return events
            case .complete:
                events.append(.handshakeCompleted)
            }
        }
        decrypt(into: &events)
        return events
    }

    /// Everything the engine wrote for the network since the last call (handshake messages,
    /// records, alerts); empty if nothing. Still call it after a failure: the alert is in there.
    public func drainForNetwork() -> [UInt8] {
        readAll(from: networkOutput)
    }

    /// Bytes waiting in `drainForNetwork()`.
    public var pendingNetworkByteCount: Int { Int(BIO_ctrl_pending(networkOutput)) }

    // MARK: Application side

    /// Decrypted application data, at most `maximumCount` bytes, in order; empty if none is buffered.
    public func readPlaintext(maximumCount: Int = .max) -> [UInt8] {
        let available = plaintext.count - plaintextStart
        guard available > 0, maximumCount > 0 else { return [] }
        let count = min(available, maximumCount)
        let out = Array(plaintext[plaintextStart..<(plaintextStart + count)])
        plaintextStart += count
        if plaintextStart == plaintext.count {
            plaintext.removeAll(keepingCapacity: plaintext.capacity <= 64 * 1024)
            plaintextStart = 0
        } else if plaintextStart >= 64 * 1024 {
            plaintext.removeSubrange(0..<plaintextStart)
            plaintextStart = 0
        }
        return out
    }

    /// Encrypts `bytes` for the peer (drain to send them). Before the handshake completes they
    /// are queued and go out right after it.
    public func writePlaintext(_ bytes: some Collection<UInt8>) throws(TLSError) {
        if let failure { throw failure }
        guard !sentCloseNotify else { throw .closed() }
        guard !bytes.isEmpty else { return }
        if isHandshaking || !pendingPlaintextWrites.isEmpty {
            pendingPlaintextWrites.append(contentsOf: bytes)
            if !isHandshaking { flushPendingWrites() }
        } else {
            let ok = bytes.withContiguousStorageIfAvailable { encrypt($0) } ?? Array(bytes).withUnsafeBufferPointer { encrypt($0) }
            if !ok, let failure { throw failure }
        }
    }

    /// Sends close_notify (drain to send it); later writes throw. Does nothing after a failure
    /// or a second time. Closing during the handshake sends nothing (TLS has no clean way to
    /// abandon a handshake): the transport just closes the socket.
    public func close() {
        guard failure == nil, !sentCloseNotify else { return }
        sentCloseNotify = true
        pendingPlaintextWrites = []
        guard !isHandshaking else { return }
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)  // 0: ours is sent, the peer's not yet seen; 1: both done
        OpenSSLErrorQueue.clear()
    }

    // MARK: Internals

    private func write(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let chunk = min(buffer.count - offset, 1 << 30)
            let n = BIO_write(networkInput, buffer.baseAddress! + offset, Int32(chunk))
            guard n > 0 else { return false }
            offset += Int(n)
        }
        return true
    }

    private func advanceHandshake() {
        guard isHandshaking else { return }
        OpenSSLErrorQueue.clear()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            handshakeState = .complete
            flushPendingWrites()
            return
        }
        let code = SSL_get_error(ssl, rc)
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            OpenSSLErrorQueue.clear()
        default:
            let error = handshakeError(code: code)
            failure = error
            handshakeState = .failed(error)
        }
    }

    private func handshakeError(code: Int32) -> TLSError {
        let reason = OpenSSLErrorQueue.drain()
        let alert = receivedAlert ?? sentAlert
        if missingIdentity.recorded { return .noCertificate(serverName: missingIdentity.serverName) }
        if role == .client, receivedAlert == nil {
            let verify = SSL_get_verify_result(ssl)
            if verify != Int(X509_V_OK) {
                return .certificateVerification(String(cString: X509_verify_cert_error_string(verify)), alert: sentAlert)
            }
        }
        if code == SSL_ERROR_SYSCALL, reason == nil {
            return .handshakeFailed(reason: "unexpected end of the handshake", alert: alert)
        }
        return .handshakeFailed(reason: reason, alert: alert)
    }

    private func decrypt(into events: inout [TLSEvent]) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var produced = false
        while true {
            OpenSSLErrorQueue.clear()
            let n = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                plaintext.append(contentsOf: chunk[0..<Int(n)])
                produced = true
                continue
            }
            let code = SSL_get_error(ssl, n)
            switch code {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                OpenSSLErrorQueue.clear()
                if produced { events.append(.plaintextAvailable) }
            case SSL_ERROR_ZERO_RETURN:
                OpenSSLErrorQueue.clear()
                if produced { events.append(.plaintextAvailable) }
                receivedCloseNotify = true
                events.append(.closeNotifyReceived)
            default:
                if produced { events.append(.plaintextAvailable) }
                let reason = OpenSSLErrorQueue.drain()
                fail(.connectionFailed(reason: reason ?? (code == SSL_ERROR_SYSCALL ? "unexpected end of stream" : nil),
                                       alert: receivedAlert ?? sentAlert), into: &events)
            }
            return
        }
    }

    private func flushPendingWrites() {
        guard !pendingPlaintextWrites.isEmpty, !isHandshaking, failure == nil else { return }
        let queued = pendingPlaintextWrites
        pendingPlaintextWrites = []
        _ = queued.withUnsafeBufferPointer { encrypt($0) }
    }

    /// SSL_write of all of `buffer`. With memory BIOs a write completes unless the engine must
    /// first read (never after the handshake with renegotiation off); then the rest is queued.
    private func encrypt(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let chunk = min(buffer.count - offset, 1 << 20)
            OpenSSLErrorQueue.clear()
            let n = SSL_write(ssl, buffer.baseAddress! + offset, Int32(chunk))
            if n > 0 {
                offset += Int(n)
                continue
            }
            let code = SSL_get_error(ssl, n)
            if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE {
                OpenSSLErrorQueue.clear()
                pendingPlaintextWrites.append(contentsOf: buffer[offset...])
                return true
            }
            var ignored: [TLSEvent] = []
            fail(.connectionFailed(reason: OpenSSLErrorQueue.drain(), alert: receivedAlert ?? sentAlert), into: &ignored)
            return false
        }
        return true
    }

    private func fail(_ error: TLSError, into events: inout [TLSEvent]) {
        guard failure == nil else { return }
        failure = error
        if isHandshaking { handshakeState = .failed(error) }
        pendingPlaintextWrites = []
        events.append(.failed(error))
    }

    func record(_ alert: TLSAlert) {
        guard alert.code != TLSAlert.closeNotify else { return }
        switch alert.direction {
        case .sent: if sentAlert == nil { sentAlert = alert }
        case .received: if receivedAlert == nil { receivedAlert = alert }
        }
    }

    func recordMissingIdentity(serverName: String?) {
        missingIdentity = (serverName, true)
    }
}
