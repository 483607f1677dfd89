/// JWS "alg" values (RFC 7518 section 3.1, RFC 8037 section 3.1) that this module knows.
/// `none` exists so it can be named in errors and tests; nothing verifies or signs with it.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    case rs256 = "RS256"
    case es256 = "ES256"
    case ps256 = "PS256"
    case edDSA = "EdDSA"
    case hs256 = "HS256"
    case none
}
