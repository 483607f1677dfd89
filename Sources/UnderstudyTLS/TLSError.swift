/// Why a TLS operation failed. Messages say what was wrong and what to do; they carry OpenSSL's
/// reason string (a short library text such as "wrong version number", never key material) and
/// the alert that ended the handshake, if one was sent or received.
public struct TLSError: Error, Sendable, CustomStringConvertible {
    /// The category of a failure, for callers that branch on it (`error.kind == .handshakeFailed`).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Code: String, Hashable, Sendable {
            case invalidCertificate, invalidPrivateKey, invalidConfiguration, handshakeFailed, handshakeTooLarge
            case certificateVerificationFailed, noCertificateForServerName, connectionFailed, closed, cryptoFailure
        }
        private let code: Code
        private init(_ code: Code) { self.code = code }

        /// A certificate could not be read (not PEM/DER X.509, or too large).
        public static let invalidCertificate = Kind(.invalidCertificate)
        /// A private key could not be read, or does not belong to the certificate.
        public static let invalidPrivateKey = Kind(.invalidPrivateKey)
        /// The configuration is inconsistent (versions, ALPN names, server name).
        public static let invalidConfiguration = Kind(.invalidConfiguration)
        /// The handshake failed: wrong protocol, version or suites refused, an alert, garbage input.
        public static let handshakeFailed = Kind(.handshakeFailed)
        /// The peer sent more handshake bytes than `TLSConfiguration.handshakeByteLimit` without finishing.
        public static let handshakeTooLarge = Kind(.handshakeTooLarge)
        /// The peer's certificate does not chain to the trust roots or does not name the host.
        public static let certificateVerificationFailed = Kind(.certificateVerificationFailed)
        /// The server has no certificate for the name the client asked for (SNI).
        public static let noCertificateForServerName = Kind(.noCertificateForServerName)
        /// A record after the handshake was corrupt or an alert ended the connection.
        public static let connectionFailed = Kind(.connectionFailed)
        /// Plaintext was written after `close()` or after the connection failed.
        public static let closed = Kind(.closed)
        /// OpenSSL failed where it should not (out of memory, broken installation).
        public static let cryptoFailure = Kind(.cryptoFailure)

        public var description: String { code.rawValue }
    }

    public let kind: Kind
    /// The alert that ended the connection: received from the peer if it sent one, else the one
    /// this side sent.
    public let alert: TLSAlert?
    /// OpenSSL's reason for the failure ("wrong version number", "http request"), if it gave one.
    public let reason: String?
    private let message: String

    private init(_ kind: Kind, _ message: String, alert: TLSAlert? = nil, reason: String? = nil) {
        self.kind = kind
        self.message = message
        self.alert = alert
        self.reason = reason
    }

    public var description: String { message }

    static func invalidCertificate(_ why: String) -> TLSError {
        TLSError(.invalidCertificate, "Invalid certificate: \(why).")
    }

    static func invalidPrivateKey(_ why: String) -> TLSError {
        TLSError(.invalidPrivateKey, "Invalid private key: \(why).")
    }

    static func invalidConfiguration(_ why: String) -> TLSError {
        TLSError(.invalidConfiguration, "Invalid TLS configuration: \(why).")
    }

    static func cryptoFailure(_ operation: String, reason: String?) -> TLSError {
        TLSError(.cryptoFailure, "OpenSSL failed in \(operation) (\(reason ?? "no detail")). This is not caused by the peer; check the OpenSSL 3 installation.",
                 reason: reason)
    }

    static func handshakeTooLarge(consumed: Int, limit: Int) -> TLSError {
        TLSError(.handshakeTooLarge, "The TLS handshake took more than \(limit) bytes from the peer (\(consumed) so far) without finishing; the peer is not speaking TLS as expected, or sends an oversized certificate chain (raise handshakeByteLimit if it is legitimate).")
    }

    static func noCertificate(serverName: String?) -> TLSError {
        let shown = serverName.map { "\"\(String($0.prefix(80)))\"" } ?? "(none: the client sent no SNI)"
        return TLSError(.noCertificateForServerName, "The TLS client asked for server name \(shown) and there is no certificate for it. Connect with a host name this server answers for.",
                        alert: nil, reason: nil)
    }

    static func certificateVerification(_ detail: String, alert: TLSAlert?) -> TLSError {
        TLSError(.certificateVerificationFailed, "The peer's certificate did not verify: \(detail). Trust the CA that issued it (for Understudy: its ca.pem), and connect with a name the certificate carries.",
                 alert: alert, reason: detail)
    }

    static func handshakeFailed(reason: String?, alert: TLSAlert?) -> TLSError {
        TLSError(.handshakeFailed, "The TLS handshake failed: \(explain(reason: reason, alert: alert))",
                 alert: alert, reason: reason)
    }

    static func connectionFailed(reason: String?, alert: TLSAlert?) -> TLSError {
        TLSError(.connectionFailed, "The TLS connection failed after the handshake: \(explain(reason: reason, alert: alert))",
                 alert: alert, reason: reason)
    }

    static func closed() -> TLSError {
        TLSError(.closed, "The TLS connection is closed (close() was called, or it failed); open a new connection to send more.")
    }

    /// What the user should understand from OpenSSL's reason and the alert.
    private static func explain(reason: String?, alert: TLSAlert?) -> String {
        var parts: [String] = []
        switch reason {
        case "http request"?, "https proxy request"?:
            parts.append("the peer sent plain HTTP to a TLS port (use https://, or the plain HTTP port)")
        case "unsupported protocol"?, "tlsv1 alert protocol version"?:
            parts.append("the peer offered only TLS versions this side refuses (TLS 1.2 and 1.3 are supported; TLS 1.1 and older are not)")
        case "wrong version number"?, "packet length too long"?, "record layer failure"?:
            parts.append("the bytes received are not TLS records (\(reason!)); the peer is not speaking TLS")
        case "no shared cipher"?, "sslv3 alert handshake failure"?:
            parts.append("no cipher suite in common (TLS 1.2 needs an ECDHE suite with AES-GCM or ChaCha20-Poly1305)")
        case let reason?:
            parts.append(reason)
        case nil:
            break
        }
        if let alert {
            parts.append("alert \(alert.name) (\(alert.code)) \(alert.direction == .sent ? "sent to" : "received from") the peer")
        }
        return parts.isEmpty ? "no detail from OpenSSL." : parts.joined(separator: "; ") + "."
    }
}
