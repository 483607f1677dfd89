import UnderstudyJOSE
import UnderstudyJSON

/// A provider's signing keys with their public forms precomputed: JWKS bytes are built once, so
/// serving them costs no crypto and no JSON work per request.
public struct KeyRing: Sendable {
    public let keys: [ProviderKey]
    public let jwks: [JWK]
    private let publicKeys: [String: JWS.RS256.PublicKey]

    public init(keys: [ProviderKey]) throws(JOSEError) {
        precondition(!keys.isEmpty, "a key ring needs at least one key")
        self.keys = keys
        var jwks: [JWK] = []
        var publicKeys: [String: JWS.RS256.PublicKey] = [:]
        for key in keys {
            let pub = key.privateKey.publicKey
            jwks.append(JWK(publicKey: pub, kid: key.kid, alg: "RS256", use: "sig"))
            publicKeys[key.kid] = pub
        }
        self.jwks = jwks
        self.publicKeys = publicKeys
    }

    public var kids: [String] { keys.map(\.kid) }

    public func key(kid: String?) throws(MintError) -> ProviderKey {
        guard let kid else { return keys[0] }
        guard let key = keys.first(where: { $0.kid == kid }) else { throw .unknownKey(kid, known: kids) }
        return key
    }

    public func publicKey(kid: String) -> JWS.RS256.PublicKey? { publicKeys[kid] }

    /// Signs `claims` under `header` (whose `alg` must be RS256) with `key`.
    func sign(header: JSONObject, claims: JSONObject, key: ProviderKey) throws(MintError) -> MintedToken {
        do {
            let payload = JSONValue.object(claims).serializedBytes()
            // base64url grows the payload by 4/3; refuse before signing what cannot fit.
            let estimate = (payload.count + 2) / 3 * 4
            if estimate > MintRequest.maximumTokenBytes {
                throw MintError.tokenTooLarge(estimate, limit: MintRequest.maximumTokenBytes)
            }
            let token = try JWS.sign(header: header, payload: payload, key: .rs256(key.privateKey))
            if token.utf8.count > MintRequest.maximumTokenBytes {
                throw MintError.tokenTooLarge(token.utf8.count, limit: MintRequest.maximumTokenBytes)
            }
            return MintedToken(idToken: token, header: header, claims: claims)
        } catch let error as MintError {
            throw error
        } catch {
            throw .signingFailed("\(error)")
        }
    }
}

/// Seconds since the Unix epoch, injectable so tests can pin time.
public typealias UnixClock = @Sendable () -> Int64

#if canImport(Glibc)
import Glibc
#endif

/// The real wall clock, in Unix seconds.
public let systemUnixClock: UnixClock = { Int64(time(nil)) }
