import UnderstudyJSON

/// One change a scenario makes to a token. A scenario is a list of these, applied in order to the
/// request, the claims, the header, the signing and the serialization; `ScenarioMinter` applies them.
public enum TokenEdit: Sendable, Hashable {
    /// Sets iat, exp and nbf to `now` plus these offsets (nil leaves the claim as minted; `exp` relative
    /// to now, not to iat).
    case times(iat: Int64?, exp: Int64?, nbf: Int64?)
    /// Sets a claim from a value the scenario context supplies.
    case setClaim(String, ClaimSource)
    case removeClaim(String)
    case setHeader(String, JSONValue)
    case removeHeader(String)
    /// Mints for a native platform (picks aud and azp as the provider does).
    case platform(ClientPlatform)
    /// Writes `email_verified` and `is_private_email` as strings or as JSON booleans.
    case booleans(AppleBooleanStyle)
    /// How the token is signed.
    case signing(ScenarioSigning)
    /// How the signed token is then broken.
    case malformation(ScenarioMalformation)
}

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

/// How a scenario's token is signed.
public enum ScenarioSigning: Sendable, Hashable {
    /// RS256 with the key the header names.
    case normal
    /// RS256, then the signature's bytes flipped.
    case corruptedSignature
    /// `alg: none` and an empty signature.
    case unsigned
    /// HS256 with the provider key's public PEM as the HMAC secret (the key-confusion attack).
    case hmacWithPublicKey
    /// RS256 with a key that is no longer published (a retired one), its kid in the header.
    case retiredKey
    /// RS256 with the right key, but the header names a kid the JWKS does not have.
    case unknownKeyID
}

/// How a signed token is made unparseable.
public enum ScenarioMalformation: Sendable, Hashable {
    /// Two segments instead of three.
    case segmentCount
    /// A character outside base64url in the payload.
    case badBase64
    /// A header that decodes to text that is not JSON.
    case headerNotJSON
    /// A fourth, empty segment after a trailing dot.
    case trailingDot
}
