import COpenSSL
import CShims

/// A raw OpenSSL client limited to TLS 1.0-1.1 (security level 0), which the engine cannot be
/// configured as: it stands for an old client the server must refuse.
enum LegacyClient {
    /// The ClientHello such a client sends first.
    static func clientHello() -> [UInt8] {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { return [] }
        defer { SSL_CTX_free(ctx) }
        SSL_CTX_set_security_level(ctx, 0)
        guard CShims_SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION) == 1,
              CShims_SSL_CTX_set_max_proto_version(ctx, TLS1_1_VERSION) == 1,
              SSL_CTX_set_cipher_list(ctx, "DEFAULT:@SECLEVEL=0") == 1,
              let ssl = SSL_new(ctx)
        else { return [] }
        defer { SSL_free(ssl) }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else { return [] }
        SSL_set_bio(ssl, input, output)
        SSL_set_connect_state(ssl)
        _ = SSL_do_handshake(ssl)
        ERR_clear_error()
        let pending = BIO_ctrl_pending(output)
        var bytes = [UInt8](repeating: 0, count: pending)
        let n = bytes.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress, Int32($0.count)) }
        return n > 0 ? Array(bytes.prefix(Int(n))) : []
    }
}
