/// A key together with the only algorithm it verifies: a verifier takes the algorithm from the
/// key, never from the token header.
public enum VerificationKey: Sendable {
    case rs256(JWS.RS256.PublicKey)
    case ps256(JWS.RS256.PublicKey)
    case es256(JWS.ES256.PublicKey)
    case edDSA(JWS.EdDSA.PublicKey)
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

    /// Whether `signature` is valid for `message` under this key's algorithm.
    public func isValidSignature(_ signature: [UInt8], for message: some Sequence<UInt8>) -> Bool {
        switch self {
        case .rs256(let key): return key.isValidSignature(signature, for: message)
        case .ps256(let key): return key.isValidPSSSignature(signature, for: message)
        case .es256(let key): return key.isValidSignature(signature, for: message)
        case .edDSA(let key): return key.isValidSignature(signature, for: message)
        case .hs256(let secret):
            guard !secret.isEmpty else { return false }
            let expected = HMACSHA256.authenticationCode(for: message, key: secret)
            return HMACSHA256.constantTimeEquals(expected, signature)
        }
    }

    /// The verification key a JWK describes, for the algorithm its "alg" names, or, without "alg",
    /// the one its key type implies (RSA: RS256, EC P-256: ES256, OKP Ed25519: EdDSA, oct: HS256).
    public init(jwk: JWK) throws(JOSEError) {
        let alg = jwk.alg
        switch jwk.kty {
        case "RSA":
            let key = try JWS.RS256.PublicKey(jwk: jwk)
            switch alg {
            case nil, "RS256": self = .rs256(key)
            case "PS256": self = .ps256(key)
            default: throw .invalidKey("the RSA JWK names \"alg\":\"\(alg!.prefix(16))\"; supported are RS256 and PS256")
            }
        case "EC":
            guard alg == nil || alg == "ES256" else { throw .invalidKey("the EC JWK names \"alg\":\"\(alg!.prefix(16))\"; only ES256 is supported") }
            self = .es256(try JWS.ES256.PublicKey(jwk: jwk))
        case "OKP":
            guard alg == nil || alg == "EdDSA" else { throw .invalidKey("the OKP JWK names \"alg\":\"\(alg!.prefix(16))\"; only EdDSA is supported") }
            self = .edDSA(try JWS.EdDSA.PublicKey(jwk: jwk))
        case "oct":
            guard alg == nil || alg == "HS256" else { throw .invalidKey("the oct JWK names \"alg\":\"\(alg!.prefix(16))\"; only HS256 is supported") }
            guard let k = try jwk.bytes("k"), !k.isEmpty else { throw .invalidKey("the oct JWK has no \"k\"") }
            self = .hs256(k)
        default:
            throw .invalidKey("JWK key type \(jwk.kty.map { "\"\($0.prefix(16))\"" } ?? "missing") is not supported; use RSA, EC, OKP or oct")
        }
    }
}
