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
