import UnderstudyJSON

/// Where a claim value comes from: a literal, or something the context knows.
public enum ClaimSource: Sendable, Hashable {
    case literal(JSONValue)
    /// The raw nonce itself.
    case rawNonce
    /// Lowercase hex SHA-256 of the raw nonce.
    case hashedNonce
    /// The hex SHA-256 of a raw nonce other than the one the verifier is given.
    case otherNonce
    /// The jti of the previous scenario token minted here.
    case previousJTI
    /// An audience that is none of the configured client ids.
    case foreignAudience
    /// An issuer that is not the provider's.
    case foreignIssuer
    /// A private relay address (`...@privaterelay.appleid.com`).
    case privateRelayEmail
    /// The configured iOS client id (Google).
    case iosClientID
    /// A Google client id that is none of the configured ones.
    case foreignClientID
}
