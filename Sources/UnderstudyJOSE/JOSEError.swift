/// Why a JOSE operation failed. Messages say what was wrong and what to do; they never contain key
/// material or token contents beyond short, public identifiers such as an algorithm name.
public struct JOSEError: Error, Sendable, CustomStringConvertible {
    /// The category of a failure, for callers that branch on it (`error.kind == .invalidSignature`).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Code: String, Hashable, Sendable {
            case malformedToken, tokenTooLarge, algorithmMismatch, unsupportedHeader, invalidSignature
            case invalidKey, invalidJWK, invalidPEM, invalidCertificate, cryptoFailure
        }
        private let code: Code
        private init(_ code: Code) { self.code = code }

        /// The compact string is not three base64url parts with a JSON object header.
        public static let malformedToken = Kind(.malformedToken)
        /// The token is longer than `JWS.maximumTokenLength`.
        public static let tokenTooLarge = Kind(.tokenTooLarge)
        /// The header's "alg" is missing or is not the algorithm of the key (including "none").
        public static let algorithmMismatch = Kind(.algorithmMismatch)
        /// The header asks for something not supported ("crit" extensions).
        public static let unsupportedHeader = Kind(.unsupportedHeader)
        /// The signature does not verify with the key.
        public static let invalidSignature = Kind(.invalidSignature)
        /// A key is of the wrong type, curve or size, or its parameters are inconsistent.
        public static let invalidKey = Kind(.invalidKey)
        /// A JWK or JWK Set document is missing members or has members of the wrong type.
        public static let invalidJWK = Kind(.invalidJWK)
        /// A PEM document could not be read.
        public static let invalidPEM = Kind(.invalidPEM)
        /// An X.509 certificate could not be read or built.
        public static let invalidCertificate = Kind(.invalidCertificate)
        /// OpenSSL failed where it should not (out of memory, broken installation).
        public static let cryptoFailure = Kind(.cryptoFailure)

        public var description: String { code.rawValue }
    }

    public let kind: Kind
    private let message: String

    private init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func malformedToken(_ why: String) -> JOSEError {
        JOSEError(.malformedToken, "Malformed JWS: \(why). Expected the compact form header.payload.signature, each part base64url without padding.")
    }

    static func tokenTooLarge(length: Int, limit: Int) -> JOSEError {
        JOSEError(.tokenTooLarge, "JWS is \(length) bytes, more than the limit of \(limit); refusing to parse it. Send a smaller token.")
    }

    static func missingAlgorithm() -> JOSEError {
        JOSEError(.algorithmMismatch, "JWS header has no \"alg\" string member. Add \"alg\" naming the algorithm of the signing key.")
    }

    static func algorithmMismatch(header: String, key: JWSAlgorithm) -> JOSEError {
        if header == "none" {
            return JOSEError(.algorithmMismatch, "JWS header says \"alg\":\"none\" (unsigned); unsigned tokens are never accepted. Sign the token with a \(key.rawValue) key.")
        }
        let shown = header.utf8.count <= 16 ? header : String(header.prefix(16)) + "..."
        return JOSEError(.algorithmMismatch, "JWS header says \"alg\":\"\(shown)\" but the key is for \(key.rawValue). The algorithm comes from the key, never from the token; sign with a matching key or header.")
    }

    static func unsupportedCritical() -> JOSEError {
        JOSEError(.unsupportedHeader, "JWS header has a \"crit\" member; no critical header extensions are supported (RFC 7515 section 4.1.11), so the token is rejected. Remove \"crit\".")
    }

    static func invalidSignature(_ alg: JWSAlgorithm) -> JOSEError {
        JOSEError(.invalidSignature, "JWS signature does not verify with the given \(alg.rawValue) key. The token was altered or signed by a different key; check the key id (kid) and the key set.")
    }

    static func invalidKey(_ why: String) -> JOSEError {
        JOSEError(.invalidKey, "Invalid key: \(why).")
    }

    static func invalidJWK(_ why: String) -> JOSEError {
        JOSEError(.invalidJWK, "Invalid JWK: \(why) (RFC 7517, RFC 7518 section 6).")
    }

    static func invalidPEM(_ what: String, _ why: String) -> JOSEError {
        JOSEError(.invalidPEM, "Could not read the \(what) PEM: \(why).")
    }

    static func invalidCertificate(_ why: String) -> JOSEError {
        JOSEError(.invalidCertificate, "Invalid X.509 certificate: \(why).")
    }

    static func cryptoFailure(_ operation: String) -> JOSEError {
        JOSEError(.cryptoFailure, "OpenSSL failed in \(operation) (\(OpenSSL.drainErrors())). This is not caused by the input; check the OpenSSL 3 installation.")
    }
}
