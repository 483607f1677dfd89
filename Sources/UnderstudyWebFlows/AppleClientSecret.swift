import UnderstudyJOSE
import UnderstudyJSON

/// The client secret of Sign in with Apple: an ES256 JWT the developer signs with their .p8 key,
/// checked as Apple checks it. Its signature is verified when the client's public key is
/// configured; its structure and claims always.
public enum AppleClientSecret {
    /// The longest lifetime Apple accepts: six months.
    public static let maximumLifetime: Int64 = 15_777_000
    public static let audience = "https://appleid.apple.com"

    public static func check(_ secret: String?, clientID: String, client: OAuthClient?, now: Int64) throws(FlowError) {
        func fail(_ problem: String) -> FlowError {
            .invalidClient("client_secret \(problem); make it an ES256 JWT with header kid = your key id and claims "
                + "iss = team id, sub = client_id, aud = \(audience), iat, exp (at most \(maximumLifetime) s after iat)", provider: .apple)
        }
        guard let secret, !secret.isEmpty else { throw fail("is missing") }
        let decoded: DecodedJWS
        do {
            if let key = client?.publicKey {
                decoded = try JWS.verify(secret, key: .es256(key))
            } else {
                decoded = try JWS.decode(secret)
            }
        } catch {
            throw fail("is not a valid JWT signed with the configured key (\(error))")
        }
        guard decoded.header["alg"]?.stringValue == "ES256" else { throw fail("must be signed with ES256") }
        guard let kid = decoded.header["kid"]?.stringValue, !kid.isEmpty else { throw fail("has no kid header") }
        if let keyID = client?.keyID, kid != keyID { throw fail("names key \(kid), not the configured \(keyID)") }
        guard let claims = decoded.claims else { throw fail("has no JSON claims") }
        guard let iss = claims["iss"]?.stringValue, !iss.isEmpty else { throw fail("has no iss (team id)") }
        if let team = client?.teamID, iss != team { throw fail("has iss \(iss), not the configured team id \(team)") }
        guard claims["sub"]?.stringValue == clientID else { throw fail("has sub \(claims["sub"]?.stringValue ?? "(none)"), not the client_id \(clientID)") }
        let audOK: Bool
        switch claims["aud"] {
        case .string(let s)?: audOK = s == audience
        case .array(let items)?: audOK = items.contains(.string(audience))
        default: audOK = false
        }
        guard audOK else { throw fail("has an aud other than \(audience)") }
        guard let iat = claims["iat"]?.intValue, let exp = claims["exp"]?.intValue else { throw fail("lacks iat or exp") }
        guard exp > now else { throw fail("has expired") }
        guard iat <= now + 60 else { throw fail("has an iat in the future") }
        guard exp - iat <= maximumLifetime else { throw fail("lives \(exp - iat) s, longer than Apple allows") }
    }
}
