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
