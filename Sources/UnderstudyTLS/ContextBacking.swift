import COpenSSL
import CShims
import Synchronization

/// Owns one `SSL_CTX`. It is configured entirely in `init` and only used to make `SSL` objects
/// afterwards, which OpenSSL allows from several threads; the callbacks read only immutable state.
final class ContextBacking: @unchecked Sendable {
    let pointer: OpaquePointer
    let configuration: TLSConfiguration
    /// The server's ALPN preferences in wire form (length-prefixed names).
    let applicationProtocolsWire: [UInt8]
    let liveConnections = Atomic<Int>(0)

    /// TLS 1.2 suites: forward-secret (ECDHE) and AEAD only, ECDSA and RSA certificates.
    static let tls12Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
    static let tls13Suites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
    /// Key exchange groups: elliptic curves only (no finite-field DHE).
    static let groups = "X25519:P-256:P-384"

    init(configuration: TLSConfiguration) throws(TLSError) {
        guard configuration.minimumVersion <= configuration.maximumVersion else {
            throw .invalidConfiguration("minimumVersion \(configuration.minimumVersion) is above maximumVersion \(configuration.maximumVersion)")
        }
        guard configuration.handshakeByteLimit >= 1024 else {
            throw .invalidConfiguration("handshakeByteLimit must be at least 1024 bytes (a ClientHello alone is several hundred)")
        }
        var wire: [UInt8] = []
        for name in configuration.applicationProtocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw .invalidConfiguration("ALPN protocol names must be 1 to 255 bytes, got \"\(name.prefix(40))\"")
            }
            wire.append(UInt8(bytes.count))
            wire.append(contentsOf: bytes)
        }
        OpenSSLErrorQueue.clear()
        guard let ctx = SSL_CTX_new(TLS_method()) else {
            throw .cryptoFailure("SSL_CTX_new", reason: OpenSSLErrorQueue.drain())
        }
        pointer = ctx
        self.configuration = configuration
        applicationProtocolsWire = wire

        let options = CShims_SSL_OP_NO_RENEGOTIATION() | CShims_SSL_OP_NO_COMPRESSION()
            | CShims_SSL_OP_CIPHER_SERVER_PREFERENCE() | CShims_SSL_OP_NO_TICKET()
        _ = SSL_CTX_set_options(ctx, options)
        _ = CShims_SSL_CTX_set_mode(ctx, Int(SSL_MODE_RELEASE_BUFFERS))
        // No session cache: every handshake is full, so the server keeps no state between connections.
        _ = CShims_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
        SSL_CTX_set_security_level(ctx, 2)
        guard CShims_SSL_CTX_set_min_proto_version(ctx, configuration.minimumVersion.openSSLValue) == 1,
              CShims_SSL_CTX_set_max_proto_version(ctx, configuration.maximumVersion.openSSLValue) == 1,
              SSL_CTX_set_cipher_list(ctx, ContextBacking.tls12Ciphers) == 1,
              SSL_CTX_set_ciphersuites(ctx, ContextBacking.tls13Suites) == 1,
              CShims_SSL_CTX_set1_groups_list(ctx, ContextBacking.groups) == 1,
              SSL_CTX_set_num_tickets(ctx, 0) == 1
        else { throw .cryptoFailure("configuring SSL_CTX", reason: OpenSSLErrorQueue.drain()) }
        SSL_CTX_set_info_callback(ctx, ContextBacking.infoCallback)

        switch configuration.role {
        case .server(.fixed(let identity)):
            guard SSL_CTX_use_cert_and_key(ctx, identity.backing.leafPointer, identity.backing.keyPointer,
                                           identity.backing.extraCertificates, 1) == 1
            else { throw .invalidPrivateKey("OpenSSL refused the certificate and key (\(OpenSSLErrorQueue.drain() ?? "no detail"))") }
        case .server(.selected):
            SSL_CTX_set_cert_cb(ctx, ContextBacking.certificateCallback, nil)
        case .client(let roots, _):
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            guard let store = SSL_CTX_get_cert_store(ctx) else {
                throw .cryptoFailure("SSL_CTX_get_cert_store", reason: OpenSSLErrorQueue.drain())
            }
            for root in roots where X509_STORE_add_cert(store, root.owner.pointer) != 1 {
                throw .invalidCertificate("OpenSSL refused a trust root (\(OpenSSLErrorQueue.drain() ?? "no detail"))")
            }
        }
        if !wire.isEmpty {
            if configuration.isServer {
                SSL_CTX_set_alpn_select_cb(ctx, ContextBacking.alpnCallback, nil)
            } else {
                guard SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) == 0 else {
                    throw .cryptoFailure("SSL_CTX_set_alpn_protos", reason: OpenSSLErrorQueue.drain())
                }
            }
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    // MARK: Callbacks (run inside OpenSSL calls made by a TLSConnection, on its thread)

    /// Records alerts sent and received on the connection, for its error.
    static let infoCallback: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = { ssl, kind, value in
        guard kind & SSL_CB_ALERT != 0, let connection = TLSConnection.from(ssl) else { return }
        let alert = TLSAlert(code: UInt8(truncatingIfNeeded: value & 0xFF),
                             direction: kind & SSL_CB_READ != 0 ? .received : .sent)
        connection.record(alert)
    }

    /// Installs the identity the configuration's selector picks for the client's server name.
    static let certificateCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let connection = TLSConnection.from(ssl),
              case .server(.selected(let select)) = connection.context.backing.configuration.role
        else { return 0 }
        let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
        guard let identity = select(name) else {
            connection.recordMissingIdentity(serverName: name)
            return 0
        }
        return SSL_use_cert_and_key(ssl, identity.backing.leafPointer, identity.backing.keyPointer,
                                    identity.backing.extraCertificates, 1)
    }

    /// Selects the first of the server's ALPN names that the client offers; no ALPN otherwise.
    static let alpnCallback: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
                                              UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?) -> Int32 = { ssl, out, outLength, input, inputLength, _ in
        guard let connection = TLSConnection.from(ssl), let out, let outLength, let input else { return SSL_TLSEXT_ERR_NOACK }
        let offered = UnsafeBufferPointer(start: input, count: Int(inputLength))
        let preferences = connection.context.backing.applicationProtocolsWire
        var p = 0
        while p < preferences.count {
            let length = Int(preferences[p])
            let wanted = preferences[(p + 1)..<(p + 1 + length)]
            var q = 0
            while q < offered.count {
                let offeredLength = Int(offered[q])
                guard offeredLength > 0, q + 1 + offeredLength <= offered.count else { return SSL_TLSEXT_ERR_NOACK }
                if offeredLength == length && offered[(q + 1)..<(q + 1 + offeredLength)].elementsEqual(wanted) {
                    out.pointee = input + q + 1  // OpenSSL copies the selected name out of the ClientHello
                    outLength.pointee = UInt8(offeredLength)
                    return SSL_TLSEXT_ERR_OK
                }
                q += 1 + offeredLength
            }
            p += 1 + length
        }
        return SSL_TLSEXT_ERR_NOACK
    }
}
