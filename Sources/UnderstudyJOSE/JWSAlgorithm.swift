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

extension JWSAlgorithm {
    /// The OpenID Connect at_hash / c_hash of `value` for an ID token signed with this algorithm
    /// (OIDC Core 3.1.3.6, 3.3.2.11): base64url of the left half of the hash the algorithm uses.
    /// nil for EdDSA, whose hash OIDC does not define, and for none.
    public func oidcHalfHash(of value: String) -> String? {
        switch self {
        case .rs256, .es256, .ps256, .hs256:
            return Base64URL.encode(SHA256.hash(value.utf8).prefix(16))
        case .edDSA, .none:
            return nil
        }
    }
}
