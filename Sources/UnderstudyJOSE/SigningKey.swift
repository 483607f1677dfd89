/// A key together with the algorithm it signs with.
public enum SigningKey: Sendable {
    case rs256(JWS.RS256.PrivateKey)
    case ps256(JWS.RS256.PrivateKey)
    case es256(JWS.ES256.PrivateKey)
    case edDSA(JWS.EdDSA.PrivateKey)
    /// An HMAC secret; RFC 7518 section 3.2 asks for at least 32 bytes.
    case hs256([UInt8])

    public var algorithm: JWSAlgorithm {
        switch self {
        case .rs256: return .rs256
        case .ps256: return .ps256
        case .es256: return .es256
        case .edDSA: return .edDSA
        case .hs256: return .hs256
        }
    }

    /// The matching verification key (for HS256, the same secret).
    public var verificationKey: VerificationKey {
        switch self {
        case .rs256(let key): return .rs256(key.publicKey)
        case .ps256(let key): return .ps256(key.publicKey)
        case .es256(let key): return .es256(key.publicKey)
        case .edDSA(let key): return .edDSA(key.publicKey)
        case .hs256(let secret): return .hs256(secret)
        }
    }

    /// The JWS signature of `message` (for ES256, raw r || s).
    public func signature(for message: some Sequence<UInt8>) throws(JOSEError) -> [UInt8] {
        switch self {
        case .rs256(let key): return try key.signature(for: message)
        case .ps256(let key): return try key.pssSignature(for: message)
        case .es256(let key): return try key.signature(for: message)
        case .edDSA(let key): return try key.signature(for: message)
        case .hs256(let secret):
            guard !secret.isEmpty else { throw .invalidKey("the HS256 secret is empty; use at least 32 random bytes") }
            return HMACSHA256.authenticationCode(for: message, key: secret)
        }
    }
}
